package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"

	"github.com/reinsh/rein/shellparse"
)

// ruleGuards are the leading conjuncts of an each expression that Go can
// test without the expr VM: cmd.name == "x" (or in [...], or matches
// "REGEX"), cmd.sub == "x", hasFlag(cmd, ...), len(cmd.positionals) > N
// and len(cmd.env) > 0. When the expression is A && B && rest and A is
// false, the VM would stop at A and return false, so a command failing a
// leading guard skips the rule without running it. Only guards before the
// first other conjunct count (the VM never reached the rest), and only when
// the whole expression is one conjunction: expr's own parser says so, so
// an || or a ternary at the top leaves the rule unguarded.
//
// The first other conjunct may still tell which subcommands it can hold
// for (subs): cmd.sub == "reset" && ... || cmd.sub in ["clean", "stash"]
// && ... is false for any other subcommand, so a command with another
// skips the rule without compiling it (a rule's expression is compiled
// when a command first gets that far: 0.4 ms of a rein check).
//
// Measured end to end (bulk rein check over the nl2bash corpus): the name
// index the names build saves about 30% of the run, the other guards 4%.
type ruleGuards struct {
	// names, when set, are the only command names the rule can match.
	names map[string]bool
	// namePattern, when set, is a pattern the command name must match.
	namePattern *namePattern
	// env: the command must set environment variables.
	env bool
	// sub, when hasSub, is the subcommand the command must have.
	sub    string
	hasSub bool
	// subs, when set, holds every subcommand the rest can be true for.
	subs map[string]bool
	// flags lists hasFlag guards: each needs one of its flags.
	flags [][]string
	// positionals, when >= 0, is the count the command must exceed.
	positionals int
	// count is how many leading conjuncts are guards, and rest the others
	// joined again: all the VM need evaluate once the guards pass.
	count int
	rest  string
}

// parseGuards reads the guards of an each expression. An expression that
// does not parse has none: compiling it reports the error.
func parseGuards(src string) ruleGuards {
	tree, err := parser.Parse(src)
	if err != nil {
		return ruleGuards{positionals: -1}
	}
	return guardsOf(tree.Node)
}

// guardsOf reads the guards off an each expression's syntax tree.
func guardsOf(root ast.Node) (g ruleGuards) {
	g.positionals = -1
	conjuncts := andOperands(root, nil)
	defer func() {
		if g.count == 0 {
			return // unguarded: the VM runs each itself
		}
		rest := make([]string, 0, len(conjuncts)-g.count)
		for _, c := range conjuncts[g.count:] {
			rest = append(rest, "("+c.String()+")")
		}
		g.rest = strings.Join(rest, " && ")
	}()
	for _, c := range conjuncts {
		g.count++
		if names, ok := nameGuard(c); ok && g.names == nil {
			g.names = names
			continue
		}
		if pat, ok := namePatternGuard(c); ok && g.namePattern == nil {
			g.namePattern = pat
			continue
		}
		if sub, ok := equalsGuard(c, "sub"); ok && !g.hasSub {
			g.sub, g.hasSub = sub, true
			continue
		}
		if n, ok := lenGuard(c, "env"); ok && n == 0 {
			g.env = true
			continue
		}
		if n, ok := lenGuard(c, "positionals"); ok && g.positionals < 0 {
			g.positionals = n
			continue
		}
		if flags, ok := flagGuard(c); ok {
			g.flags = append(g.flags, flags)
			continue
		}
		g.count--
		if !g.hasSub {
			g.subs = subsOf(c)
		}
		break
	}
	return g
}

// andOperands appends to out the operands of n's top-level && (and), in
// order; an expression joined otherwise is one operand.
func andOperands(n ast.Node, out []ast.Node) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
		return andOperands(b.Right, andOperands(b.Left, out))
	}
	return append(out, n)
}

// cmdField reports whether n is cmd.FIELD (not cmd?.FIELD, not a call).
func cmdField(n ast.Node, field string) bool {
	m, ok := n.(*ast.MemberNode)
	if !ok || m.Optional || m.Method {
		return false
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	prop, isString := m.Property.(*ast.StringNode)
	return ok && id.Value == "cmd" && isString && prop.Value == field
}

// stringOf is a string literal's value.
func stringOf(n ast.Node) (string, bool) {
	s, ok := n.(*ast.StringNode)
	if !ok {
		return "", false
	}
	return s.Value, true
}

// nameGuard reads cmd.name == "x" or cmd.name in ["x", "y"].
func nameGuard(c ast.Node) (map[string]bool, bool) {
	if v, ok := equalsGuard(c, "name"); ok {
		return map[string]bool{v: true}, true
	}
	b, ok := c.(*ast.BinaryNode)
	if !ok || b.Operator != "in" || !cmdField(b.Left, "name") {
		return nil, false
	}
	return stringList(b.Right)
}

// namePatternGuard reads cmd.name matches "REGEX", as expr reads it: a
// regular expression found anywhere in the name unless anchored.
func namePatternGuard(c ast.Node) (*namePattern, bool) {
	b, ok := c.(*ast.BinaryNode)
	if !ok || b.Operator != "matches" || !cmdField(b.Left, "name") {
		return nil, false
	}
	v, ok := stringOf(b.Right)
	if !ok {
		return nil, false
	}
	return &namePattern{src: v}, true
}

// equalsGuard reads cmd.FIELD == "x" (either way round).
func equalsGuard(c ast.Node, field string) (string, bool) {
	b, ok := c.(*ast.BinaryNode)
	if !ok || b.Operator != "==" {
		return "", false
	}
	if cmdField(b.Left, field) {
		return stringOf(b.Right)
	}
	if cmdField(b.Right, field) {
		return stringOf(b.Left)
	}
	return "", false
}

// subsOf is the set of subcommands n can be true for, when n says: a
// conjunction with cmd.sub == "x" or cmd.sub in [...] among its operands,
// or a disjunction of such. nil: any subcommand.
func subsOf(n ast.Node) map[string]bool {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "||" || b.Operator == "or") {
		left, right := subsOf(b.Left), subsOf(b.Right)
		if left == nil || right == nil {
			return nil
		}
		for s := range right {
			left[s] = true
		}
		return left
	}
	for _, c := range andOperands(n, nil) {
		if v, ok := equalsGuard(c, "sub"); ok {
			return map[string]bool{v: true}
		}
		if b, ok := c.(*ast.BinaryNode); ok && b.Operator == "in" && cmdField(b.Left, "sub") {
			if list, ok := stringList(b.Right); ok {
				return list
			}
		}
		if b, ok := c.(*ast.BinaryNode); ok && (b.Operator == "||" || b.Operator == "or") {
			if subs := subsOf(c); subs != nil {
				return subs
			}
		}
	}
	return nil
}

// stringList is the set of an array literal's strings (all must be).
func stringList(n ast.Node) (map[string]bool, bool) {
	list, ok := n.(*ast.ArrayNode)
	if !ok || len(list.Nodes) == 0 {
		return nil, false
	}
	set := map[string]bool{}
	for _, n := range list.Nodes {
		v, ok := stringOf(n)
		if !ok {
			return nil, false
		}
		set[v] = true
	}
	return set, true
}

// lenGuard reads len(cmd.FIELD) > N.
func lenGuard(c ast.Node, field string) (int, bool) {
	b, ok := c.(*ast.BinaryNode)
	if !ok || b.Operator != ">" {
		return 0, false
	}
	call, ok := b.Left.(*ast.BuiltinNode)
	if !ok || call.Name != "len" || len(call.Arguments) != 1 || !cmdField(call.Arguments[0], field) {
		return 0, false
	}
	n, ok := b.Right.(*ast.IntegerNode)
	if !ok || n.Value < 0 {
		return 0, false
	}
	return n.Value, true
}

// flagGuard reads hasFlag(cmd, "-a", "--b").
func flagGuard(c ast.Node) ([]string, bool) {
	call, ok := c.(*ast.CallNode)
	if !ok || len(call.Arguments) < 2 {
		return nil, false
	}
	fn, ok := call.Callee.(*ast.IdentifierNode)
	if !ok || fn.Value != "hasFlag" {
		return nil, false
	}
	if id, ok := call.Arguments[0].(*ast.IdentifierNode); !ok || id.Value != "cmd" {
		return nil, false
	}
	flags := make([]string, 0, len(call.Arguments)-1)
	for _, a := range call.Arguments[1:] {
		v, ok := stringOf(a)
		if !ok {
			return nil, false
		}
		flags = append(flags, v)
	}
	return flags, true
}

// decidesAlone reports whether the guards are the whole rule: a command
// that passes them matches.
func (g *ruleGuards) decidesAlone() bool { return g.count > 0 && g.rest == "" }

// pass reports whether a command passes the guards that need no rule view;
// flags are checked by passFlags, once the view is built.
func (g *ruleGuards) pass(c *shellparse.Command, sub string) bool {
	if g.env && len(c.Env) == 0 || g.hasSub && sub != g.sub || g.subs != nil && !g.subs[sub] {
		return false
	}
	if g.namePattern != nil && !g.namePattern.match(c.Name) {
		return false
	}
	if g.positionals >= 0 {
		c.Split()
		if len(c.Positionals) <= g.positionals {
			return false
		}
	}
	return true
}

// passFlags checks the hasFlag guards against the rule view.
func (g *ruleGuards) passFlags(env *CmdEnv) bool {
	for _, flags := range g.flags {
		if !hasFlag(env, flags...) {
			return false
		}
	}
	return true
}

// namePattern is a name guard's regular expression, compiled when a
// command first meets it: policies are built in every rein process, and
// most never run the rule.
type namePattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp // nil: the pattern does not compile
}

// match reports whether the name may match. A pattern that does not
// compile lets every name through, to the rule, whose compile error then
// decides.
func (p *namePattern) match(name string) bool {
	p.once.Do(func() { p.re, _ = regexp.Compile(p.src) })
	return p.re == nil || p.re.MatchString(name)
}

// scriptFieldsOf finds which script fields an expression reads (script.X),
// so that only those are built. Any other use of script builds them all.
func scriptFieldsOf(root ast.Node) scriptFields {
	v := &scriptReads{}
	ast.Walk(&root, v)
	if v.bare > v.members {
		return allScriptFields
	}
	return v.fields
}

type scriptReads struct {
	fields        scriptFields
	members, bare int // script.X reads, and every script identifier
}

func (v *scriptReads) Visit(n *ast.Node) {
	switch n := (*n).(type) {
	case *ast.IdentifierNode:
		if n.Value == "script" {
			v.bare++
		}
	case *ast.MemberNode:
		id, ok := n.Node.(*ast.IdentifierNode)
		if !ok || id.Value != "script" {
			return
		}
		v.members++
		prop, ok := n.Property.(*ast.StringNode)
		if !ok {
			v.fields = allScriptFields
			return
		}
		v.fields |= scriptField(prop.Value)
	}
}

// scriptField is the field set a script.NAME read needs.
func scriptField(name string) scriptFields {
	switch name {
	case "commands":
		return fieldCommands
	case "redirects":
		return fieldRedirects
	case "assignments":
		return fieldAssignments
	case "text", "constructs", "operators", "functions":
		return fieldScalars
	}
	return allScriptFields
}

// anyOver is the list a when-rule of the form any(script.X, ...) ranges
// over (commands, redirects or assignments), or 0: with that list empty
// the rule is false without running it.
func anyOver(root ast.Node) scriptFields {
	call, ok := root.(*ast.BuiltinNode)
	if !ok || call.Name != "any" || len(call.Arguments) == 0 {
		return 0
	}
	m, ok := call.Arguments[0].(*ast.MemberNode)
	if !ok || m.Optional {
		return 0
	}
	id, ok := m.Node.(*ast.IdentifierNode)
	prop, isString := m.Property.(*ast.StringNode)
	if !ok || id.Value != "script" || !isString {
		return 0
	}
	switch f := scriptField(prop.Value); f {
	case fieldCommands, fieldRedirects, fieldAssignments:
		return f
	}
	return 0
}
