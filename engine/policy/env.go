package policy

import (
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/suggest"
	"reflect"
	"regexp"
	"strings"
	"sync"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

// CmdEnv is a simple command as `each` rules see it (cmd.name, cmd.argv, ...).
type CmdEnv struct {
	Name        string            `expr:"name"`
	Path        string            `expr:"path"`
	Argv        []string          `expr:"argv"`
	Args        []string          `expr:"args"`
	Sub         string            `expr:"sub"`
	Flags       []string          `expr:"flags"`
	Positionals []string          `expr:"positionals"`
	Env         map[string]string `expr:"env"`
	Dynamic     bool              `expr:"dynamic"`
	Via         []string          `expr:"via"`
	Text        string            `expr:"text"`

	raw []string // flag tokens as written, for hasFlag("-exec")
	// src, when known, is the analysed command (which words are computed
	// at run time).
	src *shellparse.Command
	// pol and cwd, when known, are the policy deciding the command and the
	// folder it runs in: what absPath and mayWrite read paths against.
	pol *Policy
	cwd string
}

// RedirectEnv is a redirect as `when` rules see it.
type RedirectEnv struct {
	Op      string `expr:"op"`
	Fd      string `expr:"fd"`
	Target  string `expr:"target"`
	Dynamic bool   `expr:"dynamic"`
	Write   bool   `expr:"write"`
	Read    bool   `expr:"read"`
}

// AssignmentEnv is a shell variable assignment as `when` rules see it.
type AssignmentEnv struct {
	Name    string `expr:"name"`
	Value   string `expr:"value"`
	Dynamic bool   `expr:"dynamic"`
}

// ScriptEnv is the whole script as `when` rules see it.
type ScriptEnv struct {
	Text        string          `expr:"text"`
	Commands    []*CmdEnv       `expr:"commands"`
	Constructs  []string        `expr:"constructs"`
	Operators   []string        `expr:"operators"`
	Redirects   []RedirectEnv   `expr:"redirects"`
	Assignments []AssignmentEnv `expr:"assignments"`
	Functions   []string        `expr:"functions"`
}

// SedEnv is what sedScript(cmd) gives a rule: what the sed script of the
// command does besides editing its input to standard output
// (shellparse.Sed).
type SedEnv struct {
	Reads  []string `expr:"reads"`  // r and R files, -f script files
	Writes []string `expr:"writes"` // w and W files, the s command's w flag
	Runs   bool     `expr:"runs"`   // e, or the s command's e flag
	Error  string   `expr:"error"`  // why the script could not be read, or ""
	// Dynamic: the command has words computed at run time; the script is
	// read again then, from the expanded argv.
	Dynamic bool `expr:"dynamic"`
}

func sedScript(c *CmdEnv) SedEnv {
	if c == nil {
		return SedEnv{}
	}
	s := shellparse.Sed(c.Argv)
	if c.src != nil {
		s = shellparse.SedOf(c.src)
	}
	return SedEnv{Reads: s.Reads, Writes: s.Writes, Runs: s.Runs, Error: s.Err, Dynamic: s.Dynamic}
}

// AwkEnv is what awkProgram(cmd) gives a rule: what the command's awk
// program does besides reading its input and printing (shellparse.Awk).
type AwkEnv struct {
	Runs   bool   `expr:"runs"`   // system(), pipes, gawk's @
	Writes bool   `expr:"writes"` // print > FILE, close(), fflush()
	Reads  bool   `expr:"reads"`  // getline, ARGV
	Error  string `expr:"error"`  // why the program could not be read, or ""
	// Dynamic: the command has words computed at run time; the program is
	// read again then, from the expanded argv.
	Dynamic bool `expr:"dynamic"`
}

// awkProgram reads the program of an awk command: its first operand, as
// the program table reads awk's options. A program in a file (-f) or an
// option (-e) is not read: the table refuses those options.
func awkProgram(c *CmdEnv) AwkEnv {
	if c == nil || len(c.Argv) == 0 {
		return AwkEnv{}
	}
	if c.src != nil && c.src.Dynamic {
		return AwkEnv{Dynamic: true}
	}
	parsed := programs.Lookup("awk").Parse(c.Argv[1:])
	if parsed.Has("-f", "-e", "-E") {
		return AwkEnv{}
	}
	if len(parsed.Operands) == 0 {
		return AwkEnv{Error: "no program given"}
	}
	a := shellparse.Awk(parsed.Operands[0].Value)
	return AwkEnv{Runs: a.Runs, Writes: a.Writes, Reads: a.Reads, Error: a.Err}
}

// operands are the command's operands as the program table reads its
// options (python3 -X importtime x.py: x.py; -X's value is not one); for
// a program the table does not know, its positionals.
func operands(c *CmdEnv) []string {
	if c == nil || len(c.Argv) == 0 {
		return nil
	}
	spec := programs.Lookup(c.Name)
	if spec == nil {
		return c.Positionals
	}
	parsed := spec.Parse(c.Argv[1:])
	out := make([]string, 0, len(parsed.Operands))
	for _, o := range parsed.Operands {
		out = append(out, o.Value)
	}
	return out
}

// RuleEnv is the environment of every expr rule.
type RuleEnv struct {
	Cmd       *CmdEnv    `expr:"cmd"`
	Script    *ScriptEnv `expr:"script"`
	Workspace string     `expr:"workspace"`
	Cwd       string     `expr:"cwd"`
	Tool      string     `expr:"tool"`
}

// hasFlag reports whether the command is given one of the flags, however
// a program would read it: in a cluster (-rf has -f), with =VALUE, as an
// abbreviation of a --name (--recur for --recursive, as GNU getopt_long and
// git read it) or, for a -name, as --name (as Go's flag package reads it).
func hasFlag(c *CmdEnv, names ...string) bool {
	if c == nil {
		return false
	}
	for _, n := range names {
		for _, f := range c.Flags {
			if f == n {
				return true
			}
		}
		for _, r := range c.raw {
			if r == n || strings.HasPrefix(r, n+"=") || spells(r, n) {
				return true
			}
		}
	}
	return false
}

// spells reports whether the flag token tok is another spelling of the flag
// name: an abbreviation of a --name, or --name for a -name.
func spells(tok, name string) bool {
	if !strings.HasPrefix(tok, "--") || len(tok) <= 2 {
		return false
	}
	written, _, _ := strings.Cut(tok, "=")
	if strings.HasPrefix(name, "--") {
		return len(name) > len(written) && strings.HasPrefix(name, written)
	}
	return len(name) > 2 && name[0] == '-' && written[1:] == name
}

var exprOptions = []expr.Option{
	expr.Env(RuleEnv{}),
	expr.AsBool(),
	expr.Function("glob", func(p ...any) (any, error) { return Glob(p[0].(string), p[1].(string)), nil }, new(func(string, string) bool)),
	expr.Function("hasFlag", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		for _, n := range p[1:] {
			if hasFlag(c, n.(string)) {
				return true, nil
			}
		}
		return false, nil
	}, new(func(*CmdEnv, ...string) bool)),
	expr.Function("inside", func(p ...any) (any, error) { return Inside(p[0].(string), p[1].(string)), nil }, new(func(string, string) bool)),
	expr.Function("isPath", func(p ...any) (any, error) { return IsPath(p[0].(string)), nil }, new(func(string) bool)),
	expr.Function("flagValues", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		names := make([]string, len(p)-1)
		for i, n := range p[1:] {
			names[i] = n.(string)
		}
		return flagValues(c, names...), nil
	}, new(func(*CmdEnv, ...string) []string)),
	expr.Function("absPath", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return absPath(c, p[1].(string)), nil
	}, new(func(*CmdEnv, string) string)),
	expr.Function("mayWrite", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return mayWrite(c, p[1].(string)), nil
	}, new(func(*CmdEnv, string) bool)),
	expr.Function("operands", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return operands(c), nil
	}, new(func(*CmdEnv) []string)),
	expr.Function("localBin", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return localBin(c, p[1].(string)), nil
	}, new(func(*CmdEnv, string) bool)),
	expr.Function("tracked", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		if c == nil || c.pol == nil || c.pol.tracked == nil {
			return false, nil
		}
		return c.pol.tracked(absPath(c, p[1].(string))), nil
	}, new(func(*CmdEnv, string) bool)),
	expr.Function("packageScript", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return packageScript(c, p[1].(string)), nil
	}, new(func(*CmdEnv, string) bool)),
	expr.Function("awkProgram", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return awkProgram(c), nil
	}, new(func(*CmdEnv) AwkEnv)),
	expr.Function("sedScript", func(p ...any) (any, error) {
		c, _ := p[0].(*CmdEnv)
		return sedScript(c), nil
	}, new(func(*CmdEnv) SedEnv)),
}

// compiledRule is an expr rule ready to run. Its expressions are compiled
// by compile, at once or (for a recipe whose rules are known to compile)
// when the rule is first needed.
type compiledRule struct {
	recipe.Rule
	verdict Verdict
	locate  func(string) string

	once       sync.Once
	each       *vm.Program
	when       *vm.Program
	compileErr error
	// eachRest is each without its guards, which run in Go first,
	// compiled when first run (validating a recipe needs only each).
	restOnce sync.Once
	eachRest *vm.Program
	// guards are the tests of the each expression that commands failing
	// them skip it by, without running the VM.
	guards ruleGuards
	// scriptFields are the script fields the rule reads.
	scriptFields scriptFields
	// anyOf, when set, is the list a when-rule of the form any(script.X, …)
	// ranges over: with X empty the rule is false without running it.
	anyOf scriptFields
}

// RuleError is an expr rule that does not compile.
type RuleError struct {
	Rule     string
	Field    string // each or when
	Where    string // file:line:col of the rule in the recipe, when found
	Line     int    // position inside the expression
	Col      int
	Message  string
	Snippet  string
	Expr     string
	Decision string
}

func (e *RuleError) Error() string {
	where := e.Where
	if where != "" {
		where += ": "
	}
	s := fmt.Sprintf("%srule %q: %s:%d:%d: %s", where, e.Rule, e.Field, e.Line, e.Col, e.Message)
	if e.Snippet != "" {
		s += "\n" + strings.TrimRight(e.Snippet, "\n")
	} else if e.Expr != "" {
		s += "\n  " + e.Expr
	}
	return s
}

// newRule reads a rule's decision and guards; compile does the expressions.
func newRule(r recipe.Rule, locate func(string) string) (*compiledRule, error) {
	cr, err := ruleOf(r, locate)
	if err == nil {
		cr.readGuards()
	}
	return cr, err
}

// ruleOf is a rule with its decision read, not yet its guards.
func ruleOf(r recipe.Rule, locate func(string) string) (*compiledRule, error) {
	v, err := ParseVerdict(r.Decision)
	if err != nil {
		return nil, &RuleError{Rule: r.Name, Field: "decision", Where: locate(r.Name), Line: 1, Col: 1, Message: err.Error()}
	}
	return &compiledRule{Rule: r, verdict: v, locate: locate}, nil
}

// readGuards reads the rule's guards: one parse of each expression, by expr
// itself, gives them and the script fields the rule reads; compiling waits
// for first use.
func (cr *compiledRule) readGuards() {
	r := cr.Rule
	cr.guards.positionals = -1
	for i, src := range []string{r.Each, r.When} {
		if src == "" {
			continue
		}
		tree, err := parser.Parse(src)
		if err != nil {
			cr.scriptFields = allScriptFields
			continue
		}
		cr.scriptFields |= scriptFieldsOf(tree.Node)
		if i == 0 {
			cr.guards = guardsOf(tree.Node)
		} else {
			cr.anyOf = anyOver(tree.Node)
		}
	}
}

// compile compiles the rule's expressions once; the error is a *RuleError.
func (r *compiledRule) compile() error {
	r.once.Do(func() {
		if r.Each != "" {
			if r.each, r.compileErr = r.compileField("each", r.Each); r.compileErr != nil {
				return
			}
		}
		if r.When != "" {
			r.when, r.compileErr = r.compileField("when", r.When)
		}
	})
	return r.compileErr
}

// rest is the program the VM runs once the guards have passed: each
// without them, or each itself when the rest does not compile alone.
func (r *compiledRule) rest() *vm.Program {
	r.restOnce.Do(func() {
		r.eachRest = r.each
		if r.guards.count > 0 && r.guards.rest != "" {
			if rest, err := expr.Compile(r.guards.rest, exprOptions...); err == nil {
				r.eachRest = rest
			}
		}
	})
	return r.eachRest
}

func (r *compiledRule) compileField(field, src string) (*vm.Program, error) {
	prog, err := expr.Compile(src, exprOptions...)
	if err == nil {
		return prog, nil
	}
	re := &RuleError{Rule: r.Name, Field: field, Where: r.locate(r.Name), Line: 1, Col: 1, Message: err.Error(), Expr: src}
	var fe *file.Error
	if errors.As(err, &fe) {
		re.Line, re.Col, re.Message, re.Snippet = fe.Line, fe.Column+1, fe.Message, fe.Snippet
	}
	re.Message += fieldHint(re.Message)
	return nil, re
}

var noField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`type policy\.(\w+) has no field (\w+)`) })

// ruleTypes are the types rules see, for naming their fields.
var ruleTypes = map[string]reflect.Type{"CmdEnv": reflect.TypeFor[CmdEnv](), "ScriptEnv": reflect.TypeFor[ScriptEnv](),
	"RuleEnv": reflect.TypeFor[RuleEnv](), "RedirectEnv": reflect.TypeFor[RedirectEnv](), "AssignmentEnv": reflect.TypeFor[AssignmentEnv](),
	"SedEnv": reflect.TypeFor[SedEnv](), "AwkEnv": reflect.TypeFor[AwkEnv]()}

// fieldHint suggests the field a rule meant (cmd.arg: did you mean args?)
// and lists the fields there are.
func fieldHint(msg string) string {
	m := noField().FindStringSubmatch(msg)
	if m == nil || ruleTypes[m[1]] == nil {
		return ""
	}
	var fields []string
	typ := ruleTypes[m[1]]
	for i := range typ.NumField() {
		if name := typ.Field(i).Tag.Get("expr"); name != "" && name != "-" {
			fields = append(fields, name)
		}
	}
	return suggest.DidYouMean(m[2], fields) + "; the fields are " + strings.Join(fields, ", ")
}

// CheckRules compiles every expr rule of a recipe and returns the first
// that does not compile (a *RuleError), as New would.
func CheckRules(r *recipe.Recipe) error {
	for _, rule := range r.Rules {
		cr, err := newRule(rule, r.Locate)
		if err == nil {
			err = cr.compile()
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// scriptFields is a set of ScriptEnv fields.
type scriptFields uint8

const (
	fieldCommands scriptFields = 1 << iota
	fieldRedirects
	fieldAssignments
	fieldScalars // text, constructs, operators, functions

	allScriptFields = fieldCommands | fieldRedirects | fieldAssignments | fieldScalars
)

// fillCmdEnv fills env in place, reusing its flag buffers. p decides the
// command, in the folder cwd.
func fillCmdEnv(env *CmdEnv, c *shellparse.Command, sub string, p *Policy, cwd string) {
	c.Split()
	flags, raw := env.Flags[:0], env.raw[:0]
	*env = CmdEnv{
		Name: c.Name, Path: c.Path, Argv: c.Argv, Args: c.Args, Sub: sub,
		Positionals: c.Positionals, Env: c.Env, Dynamic: c.Dynamic, Via: c.Via, Text: c.Text, src: c,
		pol: p, cwd: cwd,
	}
	last := -1
	for _, f := range c.Flags {
		flags = append(flags, f.Name)
		if f.Arg != last {
			raw = append(raw, f.Raw)
			last = f.Arg
		}
	}
	env.Flags, env.raw = flags, raw
}

// fillScriptEnv fills the requested fields of a script view; p decides
// the script.
func fillScriptEnv(env *ScriptEnv, s *shellparse.Script, f scriptFields, p *Policy) {
	if f&fieldScalars != 0 {
		env.Text, env.Constructs, env.Operators, env.Functions = s.Text, s.Constructs, s.Operators, s.Functions
	}
	if f&fieldCommands != 0 {
		for _, c := range s.Commands {
			cmd := &CmdEnv{}
			fillCmdEnv(cmd, c, c.Sub, p, p.folder(c.Dir))
			env.Commands = append(env.Commands, cmd)
		}
	}
	if f&fieldRedirects != 0 {
		for _, r := range s.Redirects {
			env.Redirects = append(env.Redirects, RedirectEnv{Op: r.Op, Fd: r.Fd, Target: r.Target, Dynamic: r.Dynamic, Write: r.Write, Read: r.Read})
		}
	}
	if f&fieldAssignments != 0 {
		for _, a := range s.Assignments {
			env.Assignments = append(env.Assignments, AssignmentEnv{Name: a.Name, Value: a.Value, Dynamic: a.Dynamic})
		}
	}
}

// emptyList reports whether the script list a when-rule ranges over is empty.
func emptyList(s *shellparse.Script, f scriptFields) bool {
	switch f {
	case fieldCommands:
		return len(s.Commands) == 0
	case fieldRedirects:
		return len(s.Redirects) == 0
	case fieldAssignments:
		return len(s.Assignments) == 0
	}
	return false
}
