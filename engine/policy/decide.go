package policy

import (
	"fmt"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

// Facts are what rein knows about one command when it decides. Before it
// runs, that is its text (or argv) and its folder (the tool that asked is
// the policy's, Options.Tool): rein check, the hook adapters and every tool
// decide with those. While a script runs, the runner hands each argv the
// interpreter is about to run, with a World to ask what the files say; just
// before a program starts it adds the names the program reads from its
// input. Decide is the one function that turns facts into a verdict: the
// runner, the file tools, the MCP server and the hook adapters gather facts
// and obey it.
type Facts struct {
	// Dir is the folder the command runs in; "" is the policy's.
	Dir string
	// Tool is the tool about to run the command, when a tool asks (a
	// recipe's tools.NAME: 'ask' has every command of that tool asked
	// about: Confirm); "" for the runner's own decisions as it runs.
	Tool string
	// Text is shell text, known before running. Argv, when it has words,
	// is one command as it will run (after expansion), and Text is ignored.
	Text string
	Argv []string
	// Vars are the variables the running script set that the program
	// receives (rules see them as cmd.env).
	Vars map[string]string
	// Function: Argv calls a function the running script declared, whose
	// body was vetted when it was declared.
	Function bool

	// World answers what the machine says of the paths the command names;
	// nil before running (static vetting knows no files).
	World World
	// Starting: the program Argv runs is about to start (not a builtin),
	// and its argv was decided when the interpreter called it (Argv may
	// hold the exclusions that decision added). What is decided now is what
	// it reads that its argv does not say: its Input, the objects it names
	// by id, its response files.
	Starting bool
	// Input is the list of file names the program reads from its input
	// (xargs, sort --files0-from=-), read ahead by the runner.
	Input *Input
}

// World answers the questions the policy asks, at run time, of the machine
// a command runs on, from the command's folder. The runner implements it;
// it gathers, and decides nothing.
type World interface {
	// ArgvThroughLinks is argv with each argument that reaches a file
	// through a symbolic link replaced by that file, and whether any did.
	ArgvThroughLinks(argv []string) ([]string, bool)
	// Reach is the file an existing path reaches through symbolic links,
	// and whether it does.
	Reach(path string) (string, bool)
	// Stat stats a name as a program running in the folder finds it.
	Stat(name string) (fs.FileInfo, error)
	// WorkingTree is the top of the git working tree folder is in, or "".
	WorkingTree(folder string) string
	// ReadFile reads a file the program would read (a response file),
	// bounded; an error leaves the file to the program.
	ReadFile(path string) ([]byte, error)
	// Blob asks the repository found from the folder and the -C folders
	// dirs which of names is a file's contents (a blob, or a tag of one),
	// and returns the first, or "".
	Blob(dirs, names []string) (string, error)
}

// Input is the list of file names a program reads from its input.
type Input struct {
	// Program takes the list, read as List says.
	Program string
	List    shellparse.NameInput
	// Written is xargs's reading of the list as the script wrote the
	// command, before rein added exclusions to it (nil: the same).
	Written *shellparse.NameInput
	Data    []byte
}

// maxDashItems bounds the items that look like options in xargs's input
// when its batches are not known (each is vetted as starting one).
const maxDashItems = 64

// maxResponseFiles bounds how many response files one command may name,
// nested ones included.
const maxResponseFiles = 32

// Decide returns the decision on a command's facts. With a World, the
// decision's Run is the argv to run: Argv with the exclusions that keep a
// walking program off secret files.
func (p *Policy) Decide(f Facts) *Decision {
	d := p.decideFacts(f)
	if f.Tool != "" && f.World == nil && !f.Function {
		return p.Confirm(f.Tool, d)
	}
	return d
}

// Confirm is d, a decision on a command a tool is about to run, asked about
// instead of allowed when the run (Options.ConfirmAll) or the recipe
// (tools.TOOL: 'ask') has every command of that tool confirmed. A recipe
// that confirms run_command confirms execute_command too unless it says
// otherwise: the model would take the tool that is not asked about.
func (p *Policy) Confirm(tool string, d *Decision) *Decision {
	if d.Verdict != Allow {
		return d
	}
	rule, reason := "", ""
	_, execSet := p.recipe.Tools["execute_command"]
	switch {
	case p.confirmAll:
		rule, reason = "--confirm-commands", "every command is confirmed in this run"
	case p.recipe.Tools[tool] == "ask":
		rule, reason = "tools."+tool, fmt.Sprintf("the recipe's tools.%s is 'ask': every command it runs is confirmed", tool)
	case tool == "execute_command" && !execSet && p.recipe.Tools["run_command"] == "ask":
		rule, reason = "tools.run_command", "the recipe's tools.run_command is 'ask', and execute_command runs commands too"
	default:
		return d
	}
	confirm := *d
	confirm.Verdict, confirm.Rule, confirm.Reason = Ask, rule, reason
	return &confirm
}

func (p *Policy) decideFacts(f Facts) *Decision {
	p = p.In(f.Dir)
	switch {
	case len(f.Argv) == 0:
		return p.checkText(f.Text)
	case f.Function:
		return p.functionCall(f.Argv)
	}
	if f.Starting && f.World != nil {
		return p.startDecision(f)
	}
	d := p.argvDecision(f.Argv, f.Vars, f.World)
	if d.Verdict == Deny || f.World == nil {
		return d
	}
	run, err := p.GuardSearch(f.Argv, f.World.Stat)
	if err != nil {
		return pathsDenial(f.Argv, "%s", err)
	}
	d.Run = p.excludeInRepository(run, f.World)
	return d
}

// startDecision decides what a program about to start reads that its argv
// does not say.
func (p *Policy) startDecision(f Facts) *Decision {
	if f.Input != nil {
		if denial := p.inputDenial(f.Argv, f.Input, f.World); denial != nil {
			return denial
		}
	}
	if denial := p.objectsDenial(f.Argv, f.Input, f.World); denial != nil {
		return denial
	}
	if denial := p.responseFilesDenial(f.Argv, f.World); denial != nil {
		return denial
	}
	return &Decision{Command: shellparse.JoinArgv(f.Argv), Verdict: Allow, Reason: "what it reads besides its arguments names no secret", Run: f.Argv}
}

// argvDecision decides an argv, then again as the files its arguments
// reach through symbolic links, when a World says so. A denial that holds
// only with the script's variables says which they are.
func (p *Policy) argvDecision(argv []string, vars map[string]string, w World) *Decision {
	d := p.checkArgv(argv, vars)
	if d.Verdict != Allow && len(vars) > 0 && p.checkArgv(argv, nil).Verdict == Allow {
		d.Reason += fmt.Sprintf(" (%s receives %s, which the script set)", argv[0], strings.Join(slices.Sorted(maps.Keys(vars)), ", "))
	}
	if d.Verdict == Deny || w == nil {
		return d
	}
	if real, linked := w.ArgvThroughLinks(argv); linked {
		if ld := p.checkArgv(real, vars); ld.Verdict == Deny {
			ld.Reason = "through a symbolic link: " + ld.Reason
			return ld
		}
	}
	return d
}

// excludeInRepository adds to a guarded git command the secret places
// inside its repository's working tree (SecretsUnder): a home folder kept
// in git has committed .aws/credentials, not only .env files.
func (p *Policy) excludeInRepository(argv []string, w World) []string {
	folder, ok := shellparse.GuardedGitFolder(argv)
	if !ok {
		return argv
	}
	top := w.WorkingTree(folder)
	if top == "" {
		return argv
	}
	return shellparse.WithRepositoryExclusions(argv, p.SecretsUnder(top))
}

// pathsDenial is a run-time refusal of argv for what it would read (rule
// paths.deny, as vetting names it).
func pathsDenial(argv []string, format string, args ...any) *Decision {
	return &Decision{Command: shellparse.JoinArgv(argv), Verdict: Deny, Rule: "paths.deny", Reason: fmt.Sprintf(format, args...)}
}

// secretAmong returns why one of words names a secret, as a path from the
// folder or through a symbolic link ("", when none does).
func (p *Policy) secretAmong(words []string, w World) string {
	for _, word := range words {
		if pat, ok := p.SecretWord(word); ok {
			return fmt.Sprintf("%s, which matches the secret path %s", word, pat)
		}
		if real, linked := w.Reach(word); linked {
			if pat, ok := p.SecretWord(real); ok {
				return fmt.Sprintf("%s, which leads to %s, matching the secret path %s", word, real, pat)
			}
		}
	}
	return ""
}

// inputDenial refuses a program whose input names a secret, or, for xargs,
// builds a command the policy refuses: the items become arguments (printf
// -- '-i s/x/y/ f' | xargs sed is sed -i), options included.
func (p *Policy) inputDenial(argv []string, in *Input, w World) *Decision {
	if why := p.secretAmong(in.List.Words(in.Data), w); why != "" {
		return pathsDenial(argv, "the file list given to %s names %s", in.Program, why)
	}
	if !in.List.Xargs {
		return nil
	}
	x := in.List
	if in.Written != nil && in.Written.Xargs {
		x = *in.Written
	}
	xargsDenial := func(format string, args ...any) *Decision {
		return &Decision{Command: shellparse.JoinArgv(argv), Verdict: Deny, Rule: "xargs.input", Reason: fmt.Sprintf(format, args...)}
	}
	cmds, exact, err := x.Commands(in.Data)
	if err != nil {
		return xargsDenial("%s; quote the names with -0 or -d '\\n'", err)
	}
	// Where xargs batches by size, an item may start a command, so each
	// that looks like an option is vetted as starting one too.
	if !exact && len(cmds) == 1 {
		items := cmds[0][max(len(x.Command), 1):]
		dashes := 0
		for k, item := range items {
			if k == 0 || !strings.HasPrefix(item, "-") {
				continue
			}
			if dashes++; dashes > maxDashItems {
				return xargsDenial("xargs's input has more than %d words that look like options, and xargs may start a command at any of them; give them to the command directly, after --", maxDashItems)
			}
			cmds = append(cmds, append(cmds[0][:len(cmds[0])-len(items):len(cmds[0])-len(items)], items[k:]...))
		}
	}
	for _, cmd := range cmds {
		d := p.argvDecision(cmd, nil, w)
		if d.Verdict == Allow {
			continue
		}
		out := *d
		out.Command = shellparse.JoinArgv(argv)
		out.Verdict = Deny
		out.Reason = fmt.Sprintf("with its input, xargs would run %s: %s", shellparse.JoinArgv(cmd), d.Reason)
		return &out
	}
	return nil
}

// objectsDenial refuses git show and git cat-file (run directly, through
// wrappers, or built by xargs from its input) printing a blob they name by
// object id, which names no path for the policy to check: the id of a
// committed .env is one git ls-tree away. A file's contents are named as
// REV:PATH, whose path the policy checks.
func (p *Policy) objectsDenial(argv []string, in *Input, w World) *Decision {
	type query struct {
		receiver, input []string
	}
	queries := []query{{receiver: argv}}
	if in != nil && (in.Program == "git" || slices.ContainsFunc(in.List.Command, isGit)) {
		// The words hold each name in several readings: one of each will do.
		words := slices.Compact(slices.Sorted(slices.Values(in.List.Words(in.Data))))
		if in.Program == "git" {
			queries = []query{{receiver: argv, input: words}}
		} else {
			queries = append(queries, query{receiver: append(in.List.Command[:len(in.List.Command):len(in.List.Command)], words...)})
		}
	}
	for _, q := range queries {
		for _, c := range shellparse.AnalyzeArgv(q.receiver, nil).Commands {
			g, ok := shellparse.GitObjectsOf(c)
			if !ok {
				continue
			}
			if g.All {
				return pathsDenial(argv, "%s prints every object in the repository, the contents of committed secret files among them; name the objects you need", shellparse.JoinArgv(c.Argv))
			}
			names := g.Names
			if g.Input {
				names = append(names[:len(names):len(names)], q.input...)
			}
			if len(names) == 0 {
				continue
			}
			blob, err := w.Blob(g.Dirs, names)
			switch {
			case err != nil:
				return pathsDenial(argv, "rein could not ask git what %s names (%v), and an object id can name a secret file's contents", strings.Join(names, " "), err)
			case blob != "":
				return pathsDenial(argv, "%s is the object id of a file's contents, and rein cannot tell which file (a committed .env?); name the file as REV:PATH, e.g. git show HEAD:path/to/file", blob)
			}
		}
	}
	return nil
}

func isGit(arg string) bool { return strings.TrimSuffix(filepath.Base(arg), ".exe") == "git" }

// responseFilesDenial refuses a command whose response files (strings
// @FILE) name a secret, directly or in a nested @FILE. A response file that
// cannot be read is left to the program.
func (p *Policy) responseFilesDenial(argv []string, w World) *Decision {
	for _, c := range shellparse.AnalyzeArgv(argv, nil).Commands {
		files := shellparse.ResponseFiles(c)
		for i := 0; i < len(files); i++ {
			if i == maxResponseFiles {
				return pathsDenial(argv, "%s names more than %d response files (@FILE) for rein to check", c.Name, maxResponseFiles)
			}
			if why := p.secretAmong(files[i:i+1], w); why != "" {
				return pathsDenial(argv, "%s reads the response file @%s", c.Name, why)
			}
			data, err := w.ReadFile(files[i])
			if err != nil {
				continue
			}
			words := shellparse.NameInput{}.Words(data)
			if why := p.secretAmong(words, w); why != "" {
				return pathsDenial(argv, "the response file @%s given to %s names %s", files[i], c.Name, why)
			}
			for _, word := range words {
				if len(word) > 1 && word[0] == '@' {
					files = append(files, word[1:])
				}
			}
		}
	}
	return nil
}
