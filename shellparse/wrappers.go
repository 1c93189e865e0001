package shellparse

import (
	"sync"

	"github.com/reinsh/rein/engine/programs"
)

// The programs that run other programs, and how each one's command is
// found: after options (sudo, env, xargs, ...), as a shell script (sh -c),
// or by a syntax of its own (find -exec, git -c, ssh, ...). unwrap.go
// follows them.

// optionSyntax describes how a wrapper's own options are written, so that the
// command it runs can be found after them. The long options are all of the
// wrapper's (GNU getopt_long takes any unambiguous abbreviation of one:
// env --uns NAME is env --unset NAME); an option rein does not know leaves
// the command unknown.
type optionSyntax struct {
	shortValue string   // short options that take a value (-u root, -uroot)
	optValue   string   // short options whose value is optional and attached (xargs -i{})
	longValue  []string // long options that take a value when not written with =
	longOther  []string // the other long options: no value, or one only after =
	noRun      string   // short options after which nothing is run (command -v)
	noRunLong  []string // long ones (also listed in longValue or longOther)
	assigns    bool     // NAME=VALUE words may stand before the command (env, sudo)
	skip       int      // positionals before the command (timeout DURATION)
	loneDash   bool     // a lone - is an option (env -, which is env -i)
	chdir      []string // options that run the command in another folder (env -C DIR)
	// shortOther are the short options without a value; with known set,
	// a letter in none of the lists is an option rein does not know, and
	// leaves the command unknown (env -a ARG, coreutils 9.5, takes a value
	// rein would have read as the command).
	shortOther string
	known      bool
	numbers    bool // -NUM is an option (nice -5)
}

var wrappers = map[string]optionSyntax{
	// The wrappers the program table knows take their options from it
	// (refineWrappers): here is only what running a command through them
	// means.
	"sudo":    {noRun: "lVvK", noRunLong: []string{"--list", "--version", "--validate", "--help", "--remove-timestamp"}, assigns: true, chdir: []string{"-D", "--chdir"}},
	"doas":    {},
	"env":     {noRunLong: []string{"--help", "--version"}, assigns: true, loneDash: true, chdir: []string{"-C", "--chdir"}},
	"nice":    {noRunLong: []string{"--help", "--version"}},
	"nohup":   {noRunLong: []string{"--help", "--version"}},
	"timeout": {noRunLong: []string{"--help", "--version"}, skip: 1},
	"time":    {noRun: "hV", noRunLong: []string{"--help", "--version"}},
	"stdbuf":  {noRunLong: []string{"--help", "--version"}},
	"ionice":  {noRun: "pPuhV", noRunLong: []string{"--pid", "--pgid", "--uid", "--help", "--version"}},
	"chrt":    {noRun: "pmhV", noRunLong: []string{"--pid", "--max", "--help", "--version"}, skip: 1},
	"taskset": {noRun: "phV", noRunLong: []string{"--pid", "--help", "--version"}, skip: 1},
	"setsid":  {noRun: "hV", noRunLong: []string{"--help", "--version"}},
	"xargs":   {noRunLong: []string{"--help", "--version"}},
	// The shell's own builtins: their syntax is the shell's.
	"command": {noRun: "vV", shortOther: "pvV", known: true},
	"builtin": {},
	"exec":    {shortValue: "a", shortOther: "cl", known: true},
	// ssh runs its command on another machine, and reads options after the
	// host too: only the options that take a value are needed to find it.
	"ssh": {shortValue: "BbcDEeFIiJLlmOoPpQRSWw"},
}

// wrappersReady makes the wrappings table on first use, not at start.
var wrappersReady sync.Once

// loadWrappers makes wrappings ready; every reader calls it.
func loadWrappers() {
	wrappersReady.Do(buildWrappings)
}

// refined holds the wrappers' syntaxes as read with the program table: each
// the first time a command runs through it (reading a program's options
// costs; most commands run through no wrapper).
var refined struct {
	sync.Mutex
	m map[string]*optionSyntax
}

// wrapperSyntax is the option syntax of a wrapper (wrappers), its options
// taken from the program table when the table knows it.
func wrapperSyntax(name string) (*optionSyntax, bool) {
	syn, ok := wrappers[name]
	if !ok {
		return nil, false
	}
	refined.Lock()
	defer refined.Unlock()
	if r, ok := refined.m[name]; ok {
		return r, true
	}
	if refined.m == nil {
		refined.m = map[string]*optionSyntax{}
	}
	refine(name, &syn)
	refined.m[name] = &syn
	return &syn, true
}

// refine takes a wrapper's options from the program table, where it has
// them.
func refine(name string, syn *optionSyntax) {
	spec := programs.Lookup(name)
	if spec == nil {
		return
	}
	if syn.shortValue != "" || syn.optValue != "" || syn.shortOther != "" || syn.longValue != nil || syn.longOther != nil {
		// Two lists of one program's options drift apart: the table's is
		// the one (TestWrappersTakeTheirOptionsFromTheTable reads them all).
		panic("shellparse: the wrapper " + name + " lists options of its own; the program table has them")
	}
	syn.known, syn.numbers = true, spec.Numbers
	for _, o := range spec.Options {
		for _, n := range o.Names {
			switch {
			case len(n) == 2 && o.Arity == programs.Required:
				syn.shortValue += n[1:]
			case len(n) == 2 && o.Arity == programs.Optional:
				syn.optValue += n[1:]
			case len(n) == 2:
				syn.shortOther += n[1:]
			case o.Arity == programs.Required:
				syn.longValue = append(syn.longValue, n)
			default:
				syn.longOther = append(syn.longOther, n)
			}
		}
	}
}

// shellDashC is the label of a script given to each shell with -c.
var shellDashC = func() map[string]string {
	m := make(map[string]string, len(shells))
	for name := range shells {
		m[name] = name + " -c"
	}
	return m
}()

var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "yash": true, "fish": true, "rbash": true}

// runTools are project tools whose run subcommand runs a command in the
// project's environment (uv run pytest, poetry run pytest): the options of
// the run subcommand each knows, the command after them vetted as its own.
// An option not listed leaves the command unknown.
var runTools = map[string]optionSyntax{
	"uv": {shortValue: "p", shortOther: "qv", known: true,
		longValue: []string{"--python", "--with", "--with-editable", "--extra", "--group", "--only-group", "--no-group", "--package"},
		longOther: []string{"--frozen", "--locked", "--no-sync", "--offline", "--no-dev", "--all-extras", "--all-groups", "--no-default-groups",
			"--isolated", "--active", "--no-active", "--no-project", "--exact", "--inexact", "--quiet", "--verbose", "--no-editable"}},
	"poetry": {shortOther: "qvn", known: true, longOther: []string{"--quiet", "--verbose", "--no-interaction", "--ansi", "--no-ansi"}},
	"pipenv": {known: true},
	"pdm":    {shortOther: "qv", known: true, longOther: []string{"--quiet", "--verbose"}},
}

// specialWrappers run other commands with a syntax of their own. (Filled in
// init: the unwrappers reach back to unwrap through nested scripts.)
var specialWrappers map[string]func(*analyzer, *Command, context)

// wrapping is how a program runs another: as a shell, with a syntax of its
// own, or after options. wrappings holds all three kinds, so that the
// common command, which runs nothing, costs one lookup.
type wrapping struct {
	shell   bool
	special func(*analyzer, *Command, context)
	options bool // a wrapper: wrapperSyntax reads its options
}

var wrappings map[string]wrapping

func buildWrappings() {
	specialWrappers = map[string]func(*analyzer, *Command, context){
		"eval":     func(a *analyzer, c *Command, ctx context) { a.nestedWords(c, c.Words[1:], ctx, "eval") },
		"trap":     (*analyzer).unwrapTrap,
		"find":     (*analyzer).unwrapFind,
		"git":      (*analyzer).unwrapGit,
		"watch":    (*analyzer).unwrapWatch,
		"flock":    (*analyzer).unwrapFlock,
		"parallel": (*analyzer).unwrapParallel,
		"ssh":      (*analyzer).unwrapSSH,
	}
	for name := range runTools {
		specialWrappers[name] = (*analyzer).unwrapRun
	}
	// Shells first, then special syntaxes, then plain options (ssh is in
	// both of the last two).
	wrappings = make(map[string]wrapping, len(wrappers)+len(specialWrappers)+len(shells))
	for name := range wrappers {
		wrappings[name] = wrapping{options: true}
	}
	for name, f := range specialWrappers {
		wrappings[name] = wrapping{special: f}
	}
	for name := range shells {
		wrappings[name] = wrapping{shell: true}
	}
}
