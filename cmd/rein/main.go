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

	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/recipes"
)

// Exit codes shared by every command.
const (
	exitOK    = 0
	exitDeny  = 1
	exitUsage = 2
	exitAsk   = 3
)

// Globals are the flags every command takes.
type Globals struct {
	Recipe string `help:"Recipe file, merged over the discovered ones (user, then repository)." placeholder:"FILE" type:"path"`
	Preset string `help:"Use a built-in preset instead of the user and repository recipes: ${presets}." placeholder:"NAME"`
	Dir    string `help:"Start recipe discovery here instead of the working directory." placeholder:"DIR" type:"existingdir"`
	DB     string `name:"db" help:"Session and audit database (default: $REIN_DB or $XDG_STATE_HOME/rein/rein.db)." placeholder:"FILE"`
}

type cli struct {
	Globals

	Ask      askCmd      `cmd:"" help:"Ask a model a question it answers with vetted commands and file tools."`
	Check    checkCmd    `cmd:"" help:"Vet a command without running it: verdict, the rule behind it, and why."`
	Test     testCmd     `cmd:"" help:"Run the policy tests of the recipe and the built-in presets."`
	Exec     execCmd     `cmd:"" help:"Vet a command, then run it with rein's embedded shell under the same policy."`
	Run      runCmd      `cmd:"" help:"Run a recipe task (or list them) under the recipe's policy."`
	Init     initCmd     `cmd:"" help:"Write a starter rein.jsonnet for this repository (never overwrites)."`
	Tools    toolsCmd    `cmd:"" help:"Show the tools and catalog a model gets (--format openai, anthropic or mcp for wire shapes)."`
	MCP      mcpCmd      `cmd:"" name:"mcp" help:"Serve the recipe's vetted tools to other agents over MCP (stdio)."`
	Sessions sessionsCmd `cmd:"" help:"List sessions with their last activity, questions and commands."`
	Log      logCmd      `cmd:"" help:"Print a session's transcript."`
	Audit    auditCmd    `cmd:"" help:"List every executed command with its decision, exit code and duration."`
	Replay   replayCmd   `cmd:"" help:"Re-vet a past session's commands under another recipe and show what changes."`
	Compile  compileCmd  `cmd:"" help:"Print the compiled recipe as JSON."`
	Doctor   doctorCmd   `cmd:"" help:"Show what the kernel sandbox enforces here."`
	Version  versionCmd  `cmd:"" help:"Print rein's version."`
}

// env is what a command needs from the process.
type env struct {
	stdin          io.Reader
	stdinTerminal  bool
	stdout, stderr io.Writer
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
	// rein is short-lived and its heap small and bounded (output is capped):
	// collecting less often saves about a millisecond per run.
	debug.SetGCPercent(400)
	st, _ := os.Stdin.Stat()
	terminal := st != nil && st.Mode()&os.ModeCharDevice != 0
	os.Exit(run(os.Args[1:], &env{stdin: os.Stdin, stdinTerminal: terminal, stdout: os.Stdout, stderr: os.Stderr}))
}

func run(args []string, e *env) (code int) {
	var c cli
	defer func() {
		if r := recover(); r != nil {
			if req, ok := r.(exitRequest); ok {
				code = req.code
				return
			}
			panic(r)
		}
	}()
	parser, err := kong.New(&c,
		kong.Name("rein"),
		kong.Description("Vet and run shell commands for language models under a per-repository policy (a recipe)."),
		kong.UsageOnError(),
		kong.Writers(e.stdout, e.stderr),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
		kong.Vars{"presets": strings.Join(recipes.Presets, ", ")},
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
	)
	if err != nil {
		fmt.Fprintln(e.stderr, "rein:", err)
		return exitUsage
	}
	ctx, err := parser.Parse(args)
	if err != nil {
		fmt.Fprintln(e.stderr, "rein:", err)
		return exitUsage
	}
	err = ctx.Run(&c.Globals, e)
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
