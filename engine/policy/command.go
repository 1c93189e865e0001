package policy

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/expr-lang/expr/vm"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/shellparse"
)

// alternatives are what the catalog allows instead of a denied command.
type alternatives struct {
	once    sync.Once
	catalog []string
	bySub   map[string][]string // program -> its allowed subcommands
}

// evaluation carries per-Decide state: the lazily built script view, the
// results of when-rules, and a VM reused across Decide calls.
type evaluation struct {
	p        *Policy
	script   *shellparse.Script
	scriptEv *ScriptEnv
	fields   scriptFields
	vm       vm.VM
	whenDone map[*compiledRule]bool
	// parsed is the program table's reading of the command being decided.
	parsed programs.Parsed
	// env and cmd are reused for every rule run of this evaluation.
	env RuleEnv
	cmd CmdEnv
}

func (ev *evaluation) reset(p *Policy, s *shellparse.Script) {
	ev.p, ev.script = p, s
	if ev.fields != 0 {
		*ev.scriptEv = ScriptEnv{Commands: ev.scriptEv.Commands[:0], Redirects: ev.scriptEv.Redirects[:0], Assignments: ev.scriptEv.Assignments[:0]}
		ev.fields = 0
	}
	if len(ev.whenDone) > 0 {
		clear(ev.whenDone)
	}
}

// scriptEnv returns the script view with at least the fields a rule uses.
func (ev *evaluation) scriptEnv(need scriptFields) *ScriptEnv {
	if ev.scriptEv == nil {
		ev.scriptEv = &ScriptEnv{}
	}
	if missing := need &^ ev.fields; missing != 0 {
		fillScriptEnv(ev.scriptEv, ev.script, missing, ev.p)
		ev.fields |= missing
	}
	return ev.scriptEv
}

func (ev *evaluation) run(prog *vm.Program, env *RuleEnv) (bool, error) {
	out, err := ev.vm.Run(prog, env)
	if err != nil {
		return false, err
	}
	b, _ := out.(bool)
	return b, nil
}

func (ev *evaluation) when(r *compiledRule) (bool, error) {
	if r.anyOf != 0 && emptyList(ev.script, r.anyOf) {
		// Cheaper to see again than to remember.
		return false, nil
	}
	if ev.whenDone == nil {
		ev.whenDone = map[*compiledRule]bool{}
	}
	if v, ok := ev.whenDone[r]; ok {
		return v, nil
	}
	if err := r.compile(); err != nil {
		return false, err
	}
	ev.env = RuleEnv{Script: ev.scriptEnv(r.scriptFields), Workspace: ev.p.workspace, Cwd: ev.p.cwd, Tool: ev.p.tool}
	v, err := ev.run(r.when, &ev.env)
	ev.whenDone[r] = v
	return v, err
}

// command decides one simple command into out. It returns the subcommand the
// program rules found, for alternatives.
func (p *Policy) command(c *shellparse.Command, ev *evaluation, out *Result) string {
	if c.DynamicName {
		v := p.shell[shellparse.ConstructDynamicName]
		reason := fmt.Sprintf("the command name %s is computed at run time; write the program name literally", c.Path)
		if v != Deny {
			reason = fmt.Sprintf("the command name %s is computed at run time; it is checked again when it runs", c.Path)
		}
		*out = Result{v, "shell.dynamic_command_name", reason}
		return ""
	}
	if c.Function {
		*out = Result{p.shell[shellparse.ConstructFunction], "shell.function", fmt.Sprintf("%s calls a function declared in this script", c.Name)}
		return ""
	}
	name := c.Name
	e := p.names.get(name)
	prog, known := e.compiled(name)
	// The program table's reading of the command, once for every check
	// that needs it, into the evaluation's reused lists.
	var parsed *programs.Parsed
	if spec := programs.Lookup(name); spec != nil && len(c.Argv) > 0 {
		spec.ParseInto(c.Argv[1:], &ev.parsed)
		parsed = &ev.parsed
	}
	var pm programMatch
	if known {
		p.matchProgram(name, prog, c, parsed, &pm)
	}
	sub := pm.sub
	if !known || !prog.takesSubcommands() {
		sub = c.Sub // the first positional, for rules' cmd.sub
	}
	// Field by field: a composite literal here was built aside and copied,
	// and the copy stalled on reading back what had just been written.
	var cc commandCheck
	cc.p, cc.ev, cc.c, cc.sub, cc.rules = p, ev, c, sub, e.each
	if p.unguarded {
		cc.rules = p.each
	}
	entries := e.catalog
	if c.Path != name {
		entries = p.catalog[c.Path]
	}
	listed := len(entries) > 0
	argv := ""
	byPathGlob := false
	if len(p.allow)+len(p.ask)+len(p.deny)+len(p.only)+len(p.granted) > 0 {
		argv = strings.Join(c.Argv, " ")
		if strings.ContainsAny(c.Path, `/\`) && len(c.Argv) > 0 {
			// A glob whose first word is this script's path (written
			// however: ./scripts/x.sh, scripts/x.sh) matches it.
			if spelled := p.globSpelling(c); spelled != "" {
				argv, byPathGlob = spelled+argv[len(c.Argv[0]):], true
			}
		}
	}

	// Deny.
	if pat, ok := p.deny.match(argv); ok && argv != "" {
		*out = Result{Deny, "deny: " + pat, fmt.Sprintf("%s matches the deny pattern %q", shellparse.JoinArgv(c.Argv), pat)}
		return sub
	}
	if _, ok := p.granted.match(argv); ok && argv != "" {
		cc.granted = true
	}
	if _, ok := p.only.match(argv); len(p.only) > 0 && !ok {
		*out = Result{Deny, "--command-allow", fmt.Sprintf("%s matches none of this run's --command-allow patterns (%s)", shellparse.JoinArgv(c.Argv), p.only.patterns())}
		return sub
	}
	if pm.deny != nil {
		*out = *pm.deny
		return sub
	}
	if r := p.secretArg(c); r != nil {
		*out = *r
		return sub
	}
	if r := p.secretFolder(c, ev); r != nil {
		*out = *r
		return sub
	}
	if r := cc.each(Deny); r != nil {
		*out = *r
		return sub
	}
	if r := p.scopeArg(c, parsed); r != nil {
		*out = *r
		return sub
	}
	// The program table: what its options do.
	optDeny, optUnknown := p.optionChecks(c, parsed)
	if optDeny != nil {
		*out = *optDeny
		return sub
	}
	if optUnknown != nil {
		// What would be allowed is not, with an option rein does not know.
		defer func() {
			if out.Verdict == Allow {
				*out = *optUnknown
			}
		}()
	}
	if c.Path != name && strings.ContainsAny(c.Path, `/\`) && !listed && !byPathGlob && !systemPath(c.Path) {
		// A script run by path is no program of the catalog: only a rule
		// about it (project-script) or the verdict for unknown programs.
		if r := cc.each(Ask); r != nil {
			*out = *r
			return sub
		}
		if r := cc.each(Allow); r != nil {
			*out = *r
			return sub
		}
		*out = Result{p.unknown, "shell.unknown_program", fmt.Sprintf("%s is run by path, and no entry of this recipe's catalog names it (rules for %s apply only to the program found on PATH); list it with rein.command('%s')", c.Path, name, c.Path)}
		return sub
	}

	// Ask.
	if pat, ok := p.ask.match(argv); ok && argv != "" {
		*out = Result{Ask, "ask: " + pat, fmt.Sprintf("%s matches the ask pattern %q", shellparse.JoinArgv(c.Argv), pat)}
		return sub
	}
	if pm.ask != nil && pm.allowed {
		*out = *pm.ask
		return sub
	}
	if r := cc.each(Ask); r != nil {
		*out = *r
		return sub
	}

	// Allow, unless running it would refuse the walk it makes (xargs git
	// show, git stash show -p): only what may be allowed is asked.
	if e.walks && !c.Dynamic {
		if err := shellparse.WalkRefusal(c.Argv, p.secretNames); err != nil {
			*out = Result{Deny, "paths.deny", err.Error()}
			return sub
		}
	}
	for _, e := range entries {
		if matchPrefix(e.tokens, c.Argv) {
			*out = Result{Allow, e.rule, "listed in the catalog"}
			return sub
		}
	}
	if pm.allowed {
		*out = Result{Allow, prog.rule, "allowed by the program's rules"}
		return sub
	}
	if pat, ok := p.allow.match(argv); ok && argv != "" {
		*out = Result{Allow, "allow: " + pat, fmt.Sprintf("matches the allow pattern %q", pat)}
		return sub
	}
	if r := cc.each(Allow); r != nil {
		*out = *r
		return sub
	}

	// Nothing decided.
	if known {
		*out = Result{p.deflt, "default", pm.why}
		return sub
	}
	if listed {
		*out = Result{p.deflt, "default", fmt.Sprintf("%s does not match a catalog entry for %s", shellparse.JoinArgv(c.Argv), name)}
		return sub
	}
	*out = Result{p.unknown, "shell.unknown_program", name + " is not in this recipe's catalog"}
	return sub
}

// globSpelling is the first word of an allow, ask or deny glob that names
// the same file as the command's path (both read from the workspace, the
// command's from the folder it runs in), or "".
func (p *Policy) globSpelling(c *shellparse.Command) string {
	abs := p.secret.resolve(c.Path, p.folder(c.Dir))
	for _, list := range [][]string{p.recipe.Deny, p.recipe.Ask, p.recipe.Allow} {
		for _, g := range list {
			first, _, _ := strings.Cut(g, " ")
			if !strings.ContainsAny(first, `/\`) || strings.ContainsAny(first, "*?[") {
				continue
			}
			if p.secret.resolve(first, p.workspace) == abs {
				return first
			}
		}
	}
	return ""
}

// systemPath reports whether a program path names a standard system folder,
// where running /usr/bin/ls is the same as running ls.
func systemPath(path string) bool {
	for _, dir := range []string{"/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/", "/opt/homebrew/bin/"} {
		if strings.HasPrefix(path, dir) && !strings.Contains(path[len(dir):], "/") {
			return true
		}
	}
	return false
}

// commandCheck evaluates each-rules for one simple command, building the
// rule view of the command only if a rule needs it.
type commandCheck struct {
	p     *Policy
	ev    *evaluation
	c     *shellparse.Command
	sub   string
	rules []*compiledRule // the each-rules that may match c
	built bool
	// granted: a task's own allow list names the command (Options.Granted),
	// so the named dangers (danger-* rules) it knows it runs do not refuse it.
	granted bool
}

// ruleEnv returns the rule view of the command, in the evaluation's reused
// environment (rules run one at a time).
func (cc *commandCheck) ruleEnv() *RuleEnv {
	ev := cc.ev
	if !cc.built {
		fillCmdEnv(&ev.cmd, cc.c, cc.sub, cc.p, cc.p.cwd)
		cc.built = true
	}
	ev.env = RuleEnv{Cmd: &ev.cmd, Script: ev.scriptEv, Workspace: cc.p.workspace, Cwd: cc.p.cwd, Tool: cc.p.tool}
	return &ev.env
}

// each returns the first each-rule of verdict v that matches.
func (cc *commandCheck) each(v Verdict) *Result {
	for _, r := range cc.rules {
		if r.verdict != v || !cc.p.unguarded && !r.guards.pass(cc.c, cc.sub) || cc.granted && strings.HasPrefix(r.Name, "danger-") {
			continue
		}
		if r.When != "" {
			ok, err := cc.ev.when(r)
			if err != nil {
				return &Result{Deny, r.Name, fmt.Sprintf("rule failed at run time: %v", err)}
			}
			if !ok {
				continue
			}
		}
		if err := r.compile(); err != nil {
			return &Result{Deny, r.Name, fmt.Sprintf("rule does not compile: %v", err)}
		}
		ok, err := cc.matches(r)
		if err != nil {
			return &Result{Deny, r.Name, fmt.Sprintf("rule failed at run time: %v", err)}
		}
		if ok {
			return &Result{v, r.Name, r.Reason}
		}
	}
	return nil
}

// matches runs one each-rule on the command: its guards in Go, then what
// they leave in the VM (the whole rule, when the policy is unguarded).
func (cc *commandCheck) matches(r *compiledRule) (bool, error) {
	if cc.p.unguarded {
		return cc.ev.run(r.each, cc.ruleEnv())
	}
	g := &r.guards
	if len(g.flags) > 0 && !g.passFlags(cc.ruleEnv().Cmd) {
		return false, nil
	}
	if g.decidesAlone() {
		return true, nil
	}
	return cc.ev.run(r.rest(), cc.ruleEnv())
}

// placeholder is a catalog command's word to fill in: <rev>, <path>.
var placeholder = regexp.MustCompile(`<[^<>\s]+>`)

// maxAlternatives is how many a denial offers: a handful a model (or a
// person reading the line) can act on, not the whole catalog.
const maxAlternatives = 6

// compute lists, for each program with subcommands, the subcommands the
// policy allows, and for the rest the catalog's commands and programs.
// Each is vetted by the policy itself, so a rule added later (ask's
// --command-deny, a deny glob) keeps it out: a denial never offers what
// the same policy would refuse.
func (a *alternatives) compute(p *Policy) {
	r := p.recipe
	// The vetting copy offers no alternatives of its own.
	vet := *p
	vet.alts = &alternatives{}
	vet.alts.once.Do(func() {})
	// A catalog command's placeholders (git show <rev>) are vetted as a
	// plain word stands in for them.
	allowed := func(text string) bool { return vet.Check(placeholder.ReplaceAllString(text, "x")).Verdict == Allow }
	a.bySub = map[string][]string{}
	for name, prog := range r.Programs {
		for _, s := range offered(name, slices.Sorted(maps.Keys(prog.Subcommands))) {
			if len(a.bySub[name]) == maxAlternatives {
				break
			}
			if !prog.Subcommands[s].Ask && !slices.Contains(prog.DenySubcommands, s) && allowed(name+" "+s) {
				a.bySub[name] = append(a.bySub[name], name+" "+s)
			}
		}
	}
	var out []string
	for _, c := range r.Commands {
		first := strings.Fields(c.Command)
		if len(out) < maxAlternatives && len(first) > 0 && r.Available(first[0]) && allowed(c.Command) {
			out = append(out, c.Command)
		}
	}
	for _, n := range slices.Sorted(maps.Keys(r.Programs)) {
		if len(out) >= maxAlternatives {
			break
		}
		if isWord(n) && r.Available(n) && !slices.Contains(out, n) && allowed(n) {
			out = append(out, n)
		}
	}
	a.catalog = out
}

// offered orders a program's subcommands as a refusal offers them: the
// program table's common ones first, most used first, then the rest.
func offered(name string, subs []string) []string {
	spec := programs.Lookup(name)
	if spec == nil {
		return subs
	}
	out := make([]string, 0, len(subs))
	for _, c := range spec.Common {
		if slices.Contains(subs, c) {
			out = append(out, c)
		}
	}
	for _, s := range subs {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// alternatives lists what the catalog allows instead, for a model to act on.
// The slices are shared: callers must not modify them.
func (p *Policy) alternatives(name, sub string) []string {
	p.alts.once.Do(func() { p.alts.compute(p) })
	if alts, ok := p.alts.bySub[name]; ok {
		return alts
	}
	return p.alts.catalog
}

// isWord reports whether a program name is worth suggesting (not "[" or ":").
func isWord(s string) bool {
	return s != "" && (s[0] >= 'a' && s[0] <= 'z' || s[0] >= 'A' && s[0] <= 'Z')
}
