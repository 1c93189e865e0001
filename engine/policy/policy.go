// Package policy decides whether an analysed script may run under a recipe.
//
// Every simple command is checked against the recipe's deny rules, then its
// ask rules, then its allow rules (catalog commands, programs, allow globs,
// each-rules); a command nothing decides gets the recipe's default. Shell
// constructs, redirects, analysis findings and when-rules are checked once
// per script. The strictest result wins, and every result names the rule
// that made it.
package policy

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

// Policy is a compiled recipe, ready to decide. It is safe for concurrent use.
type Policy struct {
	recipe    *recipe.Recipe
	workspace string
	cwd       string
	tool      string
	// confirmAll: every allowed command is asked about (Options.ConfirmAll).
	confirmAll bool

	catalog map[string][]catalogEntry // by first token
	// names holds, by command name, its program, each-rules and catalog
	// entries: one lookup per command.
	names   *nameTable
	allow   globSet
	ask     globSet
	deny    globSet
	only    globSet // Options.Only
	granted globSet // Options.Granted
	// tracked is Options.Tracked.
	tracked func(path string) bool
	each    []*compiledRule
	when    []*compiledRule
	read    pathSet
	write   pathSet
	secret  pathSet
	// protect are paths that may be read, never written by a redirect or a
	// file tool.
	protect pathSet
	shell   map[string]Verdict
	// constructs are the results of constructRules, in their order.
	constructs []Result
	unknown    Verdict
	deflt      Verdict
	// unknownOption decides an option or subcommand the program table
	// does not know; readOnly: the recipe runs commands read-only.
	unknownOption Verdict
	readOnly      bool
	// reveals are paths.grant: secret files some commands see.
	reveals []reveal
	// hosts are sandbox.hosts, under network 'granted'.
	hosts []hostGrant
	// confined: reads are granted (scope.go), from the workspace and
	// readRoots.
	confined  bool
	readRoots func() []string
	home      string

	cwdClear bool // no anchored secret glob can match below cwd
	// unguarded runs every each-rule in full on every command, skipping
	// the name index and guards: tests check it decides the same.
	unguarded   bool
	secretNames []string // the base names of the **/NAME secret globs, and the paths of **/A/B ones
	// Alternatives are fixed for a recipe: computed at the first denial.
	alts *alternatives
}

// scratch is what one Check reuses from the last: the analysis's memory
// (Check keeps nothing of the Script in its Decision) and the evaluation
// state. One pool for both: each trip to a pool costs.
type scratch struct {
	analyzer shellparse.Analyzer
	ev       evaluation
}

var scratches = sync.Pool{New: func() any { return new(scratch) }}

// In returns the policy as it applies to commands running in dir (a folder
// the interpreter has changed to): relative paths resolve from there.
func (p *Policy) In(dir string) *Policy {
	if dir == "" || dir == p.cwd {
		return p
	}
	c := *p
	c.cwd = dir
	c.cwdClear = c.secret.clearBelow(dir)
	return &c
}

// functionCall decides a call to a function the running script declared:
// the function's body was vetted when it was declared.
func (p *Policy) functionCall(argv []string) *Decision {
	d := &Decision{Command: strings.Join(argv, " ")}
	r := Result{p.shell[shellparse.ConstructFunction], "shell.function", argv[0] + " calls a function declared in this script"}
	d.Commands = []CommandResult{{Text: d.Command, Argv: argv, Name: argv[0], Result: r}}
	p.conclude(d)
	return d
}

// Options adjust where a policy applies.
type Options struct {
	// Cwd is where commands run (default: the workspace).
	Cwd string
	// Tool names what is vetting (check, run_command, task, ...); rules see it.
	Tool string
	// Home is the home folder for ~ in paths (default: os.UserHomeDir).
	Home string
	// Getenv reads the environment whose PATH and toolchain variables
	// say what commands may read (recipe.ReadRoots; default: os.Getenv).
	Getenv func(string) string
	// RulesChecked says the recipe's rules are known to compile (CheckRules
	// passed on this recipe): each is then compiled when first needed
	// instead of all in New. A recipe from rein's compile cache qualifies.
	RulesChecked bool
	// Only, when set, restricts this run to commands matching one of its
	// globs (rein ask --command-allow): any other is denied, and one that
	// matches is still decided by the recipe.
	Only []string
	// CacheDir, when set, is where the rules' guards are kept between runs
	// (keptguards.go); "": they are read off the rules each time.
	CacheDir string
	// Tracked says whether a file is a script git tracks exactly as HEAD
	// has it (runner.Tracked): rules ask it with tracked(cmd, path).
	// Nil: nothing is.
	Tracked func(path string) bool
	// Granted are a task's own allow globs (recipe.Task.Allow): a command
	// they name is allowed by them, and the named dangers (danger-* rules)
	// do not refuse it; the task says it runs it.
	Granted []string
	// ConfirmAll asks about every command the recipe allows (rein ask
	// --confirm-commands), before it runs.
	ConfirmAll bool
}

// New compiles a recipe's rules. A rule that does not compile is an error
// naming the rule, where it is written and the position in the expression.
func New(r *recipe.Recipe, opts Options) (*Policy, error) {
	p := &Policy{recipe: r, workspace: r.Workspace, cwd: opts.Cwd, tool: opts.Tool, confirmAll: opts.ConfirmAll}
	if p.cwd == "" {
		p.cwd = r.Workspace
	}
	if p.tool == "" {
		p.tool = "check"
	}
	home := opts.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	p.catalog = map[string][]catalogEntry{}
	for _, c := range r.Commands {
		toks := parseEntry(c.Command)
		if len(toks) == 0 {
			continue
		}
		p.catalog[toks[0].text] = append(p.catalog[toks[0].text], catalogEntry{command: c.Command, rule: "commands: " + c.Command, tokens: toks})
	}
	p.allow, p.ask, p.deny = newGlobSet(r.Allow), newGlobSet(r.Ask), newGlobSet(r.Deny)
	p.only = newGlobSet(opts.Only)
	if r.Sandbox.Network == "granted" {
		for _, g := range r.Sandbox.Hosts {
			p.hosts = append(p.hosts, hostGrant{hosts: g.Hosts, commands: newGlobSet(g.Commands)})
		}
	}
	for _, g := range r.Paths.Grant {
		p.reveals = append(p.reveals, reveal{path: filepath.Join(r.Workspace, filepath.FromSlash(g.Path)), commands: newGlobSet(g.Commands)})
	}
	p.granted = newGlobSet(opts.Granted)
	p.tracked = opts.Tracked
	rules := make([]*compiledRule, len(r.Rules))
	for i, rule := range r.Rules {
		cr, err := ruleOf(rule, r.Locate)
		if err != nil {
			return nil, err
		}
		rules[i] = cr
	}
	if opts.CacheDir == "" || !readKeptGuards(opts.CacheDir, rules, r.Rules) {
		for _, cr := range rules {
			cr.readGuards()
		}
		if opts.CacheDir != "" {
			keepGuards(opts.CacheDir, rules, r.Rules)
		}
	}
	for _, cr := range rules {
		if !opts.RulesChecked {
			if err := cr.compile(); err != nil {
				return nil, err
			}
		}
		if cr.Each != "" {
			p.each = append(p.each, cr)
		} else {
			p.when = append(p.when, cr)
		}
	}
	p.names = newNameTable(r.Programs, p.each, p.catalog)
	p.read = newPathSet(r.Paths.Read, r.Workspace, home)
	p.write = newPathSet(r.Paths.Write, r.Workspace, home)
	p.secret = newPathSet(r.Paths.Deny, r.Workspace, home)
	p.protect = newPathSet(r.Paths.Protect, r.Workspace, home)
	if caseInsensitiveFiles {
		p.secret = p.secret.folded()
		p.protect = p.protect.folded()
	}
	p.secret.win = runtime.GOOS == "windows"
	p.protect.win = p.secret.win
	p.cwdClear = p.secret.clearBelow(p.cwd)
	for _, g := range p.secret.names {
		p.secretNames = append(p.secretNames, g.base)
	}
	for _, g := range p.secret.globs {
		if g.anywhere != nil && g.base == "" {
			p.secretNames = append(p.secretNames, strings.Join(g.anywhere, "/"))
		}
	}
	sh := r.Shell
	p.shell = map[string]Verdict{
		shellparse.ConstructSubstitution: mustVerdict(sh.Substitution),
		shellparse.ConstructProcSubst:    mustVerdict(sh.ProcessSubstitution),
		shellparse.ConstructSubshell:     mustVerdict(sh.Subshell),
		shellparse.ConstructBackground:   mustVerdict(sh.Background),
		shellparse.ConstructFunction:     mustVerdict(sh.Function),
		shellparse.ConstructHeredoc:      mustVerdict(sh.Heredoc),
		shellparse.ConstructDynamicName:  mustVerdict(sh.DynamicCommandName),
	}
	p.constructs = p.constructResults()
	p.deflt = mustVerdict(r.Default)
	p.unknown = p.deflt
	if sh.UnknownProgram != "" {
		p.unknown = mustVerdict(sh.UnknownProgram)
	}
	p.unknownOption = Ask
	if sh.UnknownOption != "" {
		p.unknownOption = mustVerdict(sh.UnknownOption)
	}
	p.readOnly = r.Sandbox.Mode == "read-only"
	p.confined = r.GrantedReads()
	if p.confined {
		p.home = home
		getenv := opts.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		// Worked out when a command first names a path outside.
		p.readRoots = sync.OnceValue(func() []string { return r.ReadRoots(home, getenv) })
	}
	p.alts = &alternatives{}
	return p, nil
}

// Recipe returns the recipe the policy was compiled from.
func (p *Policy) Recipe() *recipe.Recipe { return p.recipe }

// CommandResult is the decision for one simple command. Via and
// Alternatives are shared with other results: read them only.
type CommandResult struct {
	Text string              `json:"text"`
	Argv []string            `json:"argv"`
	Name string              `json:"name"`
	Via  []string            `json:"via,omitempty"`
	Pos  shellparse.Position `json:"pos"`
	Result
	Alternatives []string `json:"alternatives,omitempty"`
}

// Check is a script-level decision: a construct, a redirect, an analysis
// finding or a when-rule.
type Check struct {
	Kind    string              `json:"kind"` // construct, redirect, finding, rule
	Subject string              `json:"subject"`
	Pos     shellparse.Position `json:"pos"`
	Result
}

// Decision is the verdict on a whole script.
type Decision struct {
	Command  string          `json:"command"`
	Verdict  Verdict         `json:"verdict"`
	Rule     string          `json:"rule"`
	Reason   string          `json:"reason"`
	Commands []CommandResult `json:"commands"`
	Checks   []Check         `json:"checks,omitempty"`
	// Findings are what the analysis noticed, decided or informational.
	Findings     []shellparse.Finding `json:"findings,omitempty"`
	Alternatives []string             `json:"alternatives,omitempty"`
	// Run is the argv to run, when decided with a World: the command's
	// with the exclusions that keep a walking program off secret files.
	Run []string `json:"-"`
	// block is the allocation d lives in, for Release.
	block any
}

// maxReasons is how many distinct reasons a decision gives for its
// verdict.
const maxReasons = 3

// Check vets shell text: Decide with the text as the only fact.
func (p *Policy) Check(text string) *Decision { return p.Decide(Facts{Text: text}) }

// checkText analyses shell text, then decides.
func (p *Policy) checkText(text string) *Decision {
	sc := scratches.Get().(*scratch)
	d := p.decide(sc.analyzer.Analyze(text), &sc.ev, true)
	scratches.Put(sc)
	return d
}

// decideScript returns the decision on an analysed script.
func (p *Policy) decideScript(s *shellparse.Script) *Decision {
	sc := scratches.Get().(*scratch)
	d := p.decide(s, &sc.ev, false)
	scratches.Put(sc)
	return d
}

// decide decides s. With detach, the Decision shares no memory with s
// (whose memory is reused): argv and findings are copied.
func (p *Policy) decide(s *shellparse.Script, ev *evaluation, detach bool) *Decision {
	d, argv := newDecision(s)
	d.Command, d.Findings = s.Text, s.Findings
	if detach {
		d.Findings = slices.Clone(s.Findings)
		if argv == nil {
			n := 0
			for _, c := range s.Commands {
				n += len(c.Argv)
			}
			argv = make([]string, 0, n)
		}
	}
	ev.reset(p, s)
	// The policy for commands in another folder (after cd, env -C); the
	// commands after one cd share it.
	inDir, dirPolicy := "", p
	for i, c := range s.Commands {
		// Filled in place: the result is large, and copying it in whole
		// is a barriered copy while the GC runs (and a stall, reading back
		// a temporary just written).
		d.Commands = d.Commands[:i+1]
		cr := &d.Commands[i]
		cp := p
		if c.Dir != "" {
			if c.Dir != inDir {
				inDir, dirPolicy = c.Dir, p.In(p.folder(c.Dir))
			}
			cp = dirPolicy
		}
		sub := cp.command(c, ev, &cr.Result)
		res := &cr.Result
		cr.Text = c.Text
		cr.Argv = c.Argv
		cr.Name = c.Name
		cr.Pos = c.Pos
		if c.Via != nil {
			cr.Via = c.Via
		}
		if detach {
			j := len(argv)
			argv = append(argv, c.Argv...)
			cr.Argv = argv[j:len(argv):len(argv)]
		}
		if res.Verdict != Allow {
			cr.Alternatives = p.alternatives(c.Name, sub)
		}
	}
	d.Checks = p.scriptChecks(s, ev)
	p.conclude(d)
	return d
}

// newDecision allocates a decision with room for the script's command
// results, and for their argv when that fits: nine scripts in ten (one to
// four commands, up to 8, 15, 17, 19 words in nl2bash) in one allocation,
// taken from what Release gave back when there is some.
func newDecision(s *shellparse.Script) (*Decision, []string) {
	n, argc := len(s.Commands), 0
	for _, c := range s.Commands {
		argc += len(c.Argv)
	}
	switch {
	case n <= 1 && argc <= 8:
		b := blocks[0].Get().(*block[[1]CommandResult, [8]string])
		b.d.block = b
		return room(&b.d, b.c[:0:n], b.argv[:0])
	case n == 2 && argc <= 16:
		b := blocks[1].Get().(*block[[2]CommandResult, [16]string])
		b.d.block = b
		return room(&b.d, b.c[:0], b.argv[:0])
	case n == 3 && argc <= 18:
		b := blocks[2].Get().(*block[[3]CommandResult, [18]string])
		b.d.block = b
		return room(&b.d, b.c[:0], b.argv[:0])
	case n == 4 && argc <= 20:
		b := blocks[3].Get().(*block[[4]CommandResult, [20]string])
		b.d.block = b
		return room(&b.d, b.c[:0], b.argv[:0])
	}
	return &Decision{Commands: make([]CommandResult, 0, n)}, nil
}

// block is a decision and the room for its results and their argv, in one
// allocation.
type block[C, A any] struct {
	d    Decision
	c    C
	argv A
}

var blocks = [...]sync.Pool{
	{New: func() any { return new(block[[1]CommandResult, [8]string]) }},
	{New: func() any { return new(block[[2]CommandResult, [16]string]) }},
	{New: func() any { return new(block[[3]CommandResult, [18]string]) }},
	{New: func() any { return new(block[[4]CommandResult, [20]string]) }},
}

// Release gives a decision's memory back for a later one: for a caller
// that keeps nothing of d, nor of what it holds, once it is done with it
// (bulk rein check, which writes each decision out). d must not be used
// after.
func (p *Policy) Release(d *Decision) {
	switch b := d.block.(type) {
	case *block[[1]CommandResult, [8]string]:
		*b = block[[1]CommandResult, [8]string]{}
		blocks[0].Put(b)
	case *block[[2]CommandResult, [16]string]:
		*b = block[[2]CommandResult, [16]string]{}
		blocks[1].Put(b)
	case *block[[3]CommandResult, [18]string]:
		*b = block[[3]CommandResult, [18]string]{}
		blocks[2].Put(b)
	case *block[[4]CommandResult, [20]string]:
		*b = block[[4]CommandResult, [20]string]{}
		blocks[3].Put(b)
	}
}

// room gives a decision its results list and hands out its argv space.
func room(d *Decision, results []CommandResult, argv []string) (*Decision, []string) {
	d.Commands = results
	return d, argv
}

// allAllowedReason is the reason of a script whose n commands are all
// allowed (written once for the common counts).
func allAllowedReason(n int) string {
	if n < len(allAllowed) && allAllowed[n] != "" {
		return allAllowed[n]
	}
	return "all " + strconv.Itoa(n) + " commands allowed"
}

var allAllowed = [...]string{2: "all 2 commands allowed", 3: "all 3 commands allowed", 4: "all 4 commands allowed",
	5: "all 5 commands allowed", 6: "all 6 commands allowed", 7: "all 7 commands allowed", 8: "all 8 commands allowed"}

// conclude sets the overall verdict: the strictest result, the first one
// of that strictness deciding.
func (p *Policy) conclude(d *Decision) {
	d.Verdict, d.Rule, d.Reason = Allow, "", ""
	var first *Result
	var alternatives []string
	consider := func(r *Result, alts []string) {
		if first == nil || r.Verdict > first.Verdict {
			first = r
			alternatives = alts
		}
	}
	for i := range d.Checks {
		consider(&d.Checks[i].Result, nil)
	}
	for i := range d.Commands {
		consider(&d.Commands[i].Result, d.Commands[i].Alternatives)
	}
	if first == nil {
		d.Rule, d.Reason = "empty", "nothing to run"
		return
	}
	if first.Verdict == Allow {
		if len(d.Commands) == 1 {
			d.Rule, d.Reason = d.Commands[0].Rule, d.Commands[0].Reason
			return
		}
		// The distinct rules that allowed the commands, in order.
		var b strings.Builder
		size := 0
		for i := range d.Commands {
			size += len(d.Commands[i].Rule) + 2
		}
		b.Grow(size)
		for i := range d.Commands {
			if ruleSeen(d.Commands[:i], d.Commands[i].Rule) {
				continue
			}
			if b.Len() > 0 {
				b.WriteString(", ")
			}
			b.WriteString(d.Commands[i].Rule)
		}
		d.Rule, d.Reason = b.String(), allAllowedReason(len(d.Commands))
		return
	}
	d.Verdict, d.Rule, d.Reason = first.Verdict, first.Rule, first.Reason
	d.Alternatives = alternatives
	// Every reason for the verdict, not only the first: a person asked
	// about git reset && git checkout -- . reads what each would do.
	var more []string
	add := func(r *Result) {
		if r.Verdict == first.Verdict && r != first && r.Reason != first.Reason && !slices.Contains(more, r.Reason) && len(more) < maxReasons-1 {
			more = append(more, r.Reason)
		}
	}
	for i := range d.Checks {
		add(&d.Checks[i].Result)
	}
	for i := range d.Commands {
		add(&d.Commands[i].Result)
	}
	if len(more) > 0 {
		d.Reason += "; " + strings.Join(more, "; ")
	}
}

func ruleSeen(results []CommandResult, rule string) bool {
	for i := range results {
		if results[i].Rule == rule {
			return true
		}
	}
	return false
}

// CheckArgv vets one argv as it is about to run (after expansion), with the
// same rules as Check: Decide with the argv and the variables it receives.
func (p *Policy) CheckArgv(argv []string, env map[string]string) *Decision {
	return p.Decide(Facts{Argv: argv, Vars: env})
}

// checkArgv decides one argv, with the rules alone.
func (p *Policy) checkArgv(argv []string, env map[string]string) *Decision {
	return p.decideScript(shellparse.AnalyzeArgv(argv, env))
}
