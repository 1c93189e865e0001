// Command rein lets a language model run shell commands on a developer's
// machine under a per-repository policy. This package wires flags to engine
// calls; the work happens under engine/ and shellparse/.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/recipes"
)

// Exit codes shared by every command.
const (
	exitOK    = 0
	exitDeny  = 1
	exitUsage = 2
	exitAsk   = 3
	// exitLimit: rein ask stopped at a limit before the model answered.
	exitLimit = 4
	// rein exec and rein run pass the command's own status on, so rein's
	// refusals there take codes commands do not use by convention
	// (sysexits' EX_NOPERM and EX_TEMPFAIL): a script tells "rein refused"
	// from "the command failed".
	exitRefused = 77 // denied
	exitConfirm = 75 // needs confirmation (--yes)
)

// Globals are the flags every command takes.
type Globals struct {
	Recipe string `help:"Recipe file, merged over the discovered ones (user, then repository)." placeholder:"FILE" type:"path"`
	Preset string `help:"Use a built-in preset instead of the user and repository recipes: ${presets}." placeholder:"NAME"`
	Dir    string `help:"Start recipe discovery here instead of the working directory." placeholder:"DIR" type:"existingdir"`
	DB     string `name:"db" help:"Session and audit database (default: $REIN_DB or $XDG_STATE_HOME/rein/rein.db)." placeholder:"FILE"`
}

// command is one of rein's commands, in the order help lists them.
type command struct {
	name, help string
	new        func() any
}

var commands = []command{
	{"ask", "Ask a model a question it answers with vetted commands and file tools.", func() any { return &askCmd{} }},
	{"check", "Vet a command without running it: verdict, the rule behind it, and why.", func() any { return &checkCmd{} }},
	{"test", "Run the policy tests of the recipe and the built-in presets.", func() any { return &testCmd{} }},
	{"exec", "Vet a command, then run it with rein's embedded shell under the same policy.", func() any { return &execCmd{} }},
	{"run", "Run a recipe task (or list them) under the recipe's policy.", func() any { return &runCmd{} }},
	{"init", "Write a starter rein.jsonnet for this repository (never overwrites).", func() any { return &initCmd{} }},
	{"trust", "Approve this repository's recipe as it is now (ask, exec, run and mcp need it).", func() any { return &trustCmd{} }},
	{"allow", "Add a command you approve every time to the recipe, as a catalog entry and a test.", func() any { return &allowCmd{} }},
	{"tools", "Show the tools and catalog a model gets (--format openai, anthropic or mcp for wire shapes).", func() any { return &toolsCmd{} }},
	{"mcp", "Serve the recipe's vetted tools to other agents over MCP (stdio).", func() any { return &mcpCmd{} }},
	{"hook", "Vet the tool calls of Claude Code, Codex or Gemini CLI as their pre-tool hook (and install it).", func() any { return &hookCmd{} }},
	{"sessions", "List sessions with their last activity, questions and commands.", func() any { return &sessionsCmd{} }},
	{"log", "Print a session's transcript.", func() any { return &logCmd{} }},
	{"audit", "List every executed command with its decision, exit code and duration.", func() any { return &auditCmd{} }},
	{"replay", "Re-vet a past session's commands under another recipe and show what changes.", func() any { return &replayCmd{} }},
	{"compile", "Print the compiled recipe as JSON.", func() any { return &compileCmd{} }},
	{"doctor", "Show what the kernel sandbox enforces here.", func() any { return &doctorCmd{} }},
	{"version", "Print rein's version.", func() any { return &versionCmd{} }},
}

// globalValueFlags are the global flags that take their value as the next
// argument.
var globalValueFlags = map[string]bool{"--recipe": true, "--preset": true, "--dir": true, "--db": true}

// selectCommands is the commands the parser needs for args: only the one
// named, when the first argument after the global flags names one (building
// the model of every command and flag is most of the parser's start-up
// cost), else all of them, for help, errors and suggestions.
func selectCommands(args []string) []command {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if strings.HasPrefix(a, "-") {
			if globalValueFlags[a] {
				i++
			}
			continue
		}
		for _, c := range commands {
			if c.name == a {
				return []command{c}
			}
		}
		break
	}
	return commands
}

// env is what a command needs from the process.
type env struct {
	stdin          io.Reader
	stdinTerminal  bool
	stdout, stderr io.Writer
	// exiting: the process ends when the command does (rein itself, not a
	// test running commands in process). A one-shot command then leaves
	// the database open: closing it copies the log into it and syncs the
	// disk (0.7 ms of every rein exec), which the next rein's open does
	// anyway, off its critical path; every record is committed already,
	// as a killed rein's are.
	exiting bool
}

// closeStore closes a command's database, unless the process is about to
// end (env.exiting).
func (e *env) closeStore(st interface{ Close() error }) {
	if e == nil || !e.exiting {
		st.Close()
	}
}

// codeError ends a command with an exit code; a message, if any, has been
// printed already.
type codeError int

func (c codeError) Error() string { return fmt.Sprintf("exit %d", int(c)) }

type exitRequest struct{ code int }

func main() {
	if len(os.Args) > 2 && os.Args[1] == sandbox.HelperArg {
		sandbox.Main(os.Args[2:]) // confine, then exec the program; never returns
	}
	// Commands rein runs must not read its environment (API keys) or memory
	// through /proc; failing that, the path rules still refuse to name them.
	_ = sandbox.Harden()
	// rein is short-lived and its heap small and bounded (output is capped):
	// collecting less often saves about a millisecond per run.
	debug.SetGCPercent(400)
	// A terminal, not any character device: /dev/null is one too, and a
	// prompt there reads nothing.
	terminal := term.IsTerminal(int(os.Stdin.Fd()))
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdinTerminal: terminal, stdout: os.Stdout, stderr: os.Stderr, exiting: true}))
}

func run(args []string, e *env) int { return runWith(args, e, selectCommands(helpArgs(args))) }

// helpArgs makes rein alone, rein help and rein help CMD print the help
// (they were parse errors).
func helpArgs(args []string) []string {
	switch {
	case len(args) == 0:
		return []string{"--help"}
	case args[0] == "help":
		return append(append([]string(nil), args[1:]...), "--help")
	}
	return args
}

// runWith parses args with a parser that knows cmds and runs the command.
func runWith(args []string, e *env, cmds []command) (code int) {
	args = helpArgs(args)
	var globals Globals
	defer func() {
		if r := recover(); r != nil {
			if req, ok := r.(exitRequest); ok {
				code = req.code
				return
			}
			panic(r)
		}
	}()
	options := []kong.Option{
		kong.Name("rein"),
		kong.Description("Vet and run shell commands for language models under a per-repository policy (a recipe)."),
		kong.UsageOnError(),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
		kong.Vars{"presets": strings.Join(recipes.Presets, ", ")},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	}
	for _, cmd := range cmds {
		options = append(options, kong.DynamicCommand(cmd.name, cmd.help, "", cmd.new()))
	}
	parser, err := kong.New(&globals, options...)
	if err != nil {
		fmt.Fprintln(e.stderr, "rein:", err)
		return exitUsage
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintln(e.stderr, "rein:", err.Error()+durationHint(err.Error()))
		return exitUsage
	}
	err = ctx.Run(&globals, e)
	var ce codeError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ce):
		return int(ce)
	}
	fmt.Fprintln(e.stderr, "rein:", err)
	return exitUsage
}

// durationHint answers a duration given without its unit (--timeout 1)
// with the one meant most often: "; did you mean 1s?".
func durationHint(msg string) string {
	const missing = `missing unit in duration "`
	i := strings.Index(msg, missing)
	if i < 0 {
		return ""
	}
	n, _, ok := strings.Cut(msg[i+len(missing):], `"`)
	if !ok || n == "" || strings.Trim(n, "0123456789.") != "" {
		return ""
	}
	return "; did you mean " + n + "s?"
}
