package policy

import (
	"regexp"
	"strings"
	"sync"

	"github.com/reinsh/rein/shellparse"
)

// ruleGuards are the leading conjuncts of an each expression that Go can
// test without the expr VM: cmd.name == "x" (or in [...], or matches
// "REGEX"), cmd.sub == "x", hasFlag(cmd, ...), len(cmd.positionals) > N
// and len(cmd.env) > 0. When the expression is A && B && rest and A is
// false, the VM would stop at A and return false, so a command failing a
// leading guard skips the rule without running it. Only guards before the
// first other conjunct count (the VM never reached the rest), and only when
// the whole expression is one conjunction: after a top-level ||, or in a
// ternary, a test guards nothing.
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
	// flags lists hasFlag guards: each needs one of its flags.
	flags [][]string
	// positionals, when >= 0, is the count the command must exceed.
	positionals int
	// count is how many leading conjuncts are guards, and rest the others
	// joined again: all the VM need evaluate once the guards pass.
	count int
	rest  string
}

// parseGuards reads the guards of an each expression.
func parseGuards(src string) (g ruleGuards) {
	g.positionals = -1
	conjuncts, ok := topLevelConjuncts(src)
	if !ok {
		return g
	}
	defer func() { g.rest = strings.Join(conjuncts[g.count:], " && ") }()
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
		if sub, ok := equalsGuard(c, "cmd.sub"); ok && !g.hasSub {
			g.sub, g.hasSub = sub, true
			continue
		}
		if n, ok := lenGuard(c, "cmd.env"); ok && n == 0 {
			g.env = true
			continue
		}
		if n, ok := lenGuard(c, "cmd.positionals"); ok && g.positionals < 0 {
			g.positionals = n
			continue
		}
		if flags, ok := flagGuard(c); ok {
			g.flags = append(g.flags, flags)
			continue
		}
		g.count--
		break
	}
	return g
}

// decidesAlone reports whether the guards are the whole rule: a command
// that passes them matches.
func (g *ruleGuards) decidesAlone() bool { return g.count > 0 && g.rest == "" }

// pass reports whether a command passes the guards that need no rule view;
// flags are checked by passFlags, once the view is built.
func (g *ruleGuards) pass(c *shellparse.Command, sub string) bool {
	if g.env && len(c.Env) == 0 || g.hasSub && sub != g.sub {
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

// topLevelConjuncts splits an expression at its top-level && (or "and"),
// trimmed. ok is false when anything at the top level joins otherwise: ||,
// "or", a pipe, ?? or a ternary.
func topLevelConjuncts(src string) (conjuncts []string, ok bool) {
	start := 0
	ok = scanTopLevel(src, func(i int, c byte) bool {
		switch {
		case c == '|', // || and the pipe, which binds looser still
			c == '?' && (i+1 >= len(src) || src[i+1] != '.'),
			c == 'o' && isWordAt(src, i, "or"),
			// A sequence (a; b, let x = a; b) is worth its last
			// expression: a conjunct before the ; guards nothing.
			c == ';':
			return false
		case c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*'):
			return false // a comment may hold what the split would misread
		case c == '&' && i+1 < len(src) && src[i+1] == '&':
			conjuncts = append(conjuncts, strings.TrimSpace(src[start:i]))
			start = i + 2
		case c == 'a' && isWordAt(src, i, "and"):
			conjuncts = append(conjuncts, strings.TrimSpace(src[start:i]))
			start = i + 3
		}
		return true
	})
	if !ok {
		return nil, false
	}
	return append(conjuncts, strings.TrimSpace(src[start:])), true
}

// isWordAt reports whether word stands alone at src[i:].
func isWordAt(src string, i int, word string) bool {
	if !strings.HasPrefix(src[i:], word) {
		return false
	}
	isIdent := func(c byte) bool {
		return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '$' || c == '#'
	}
	return (i == 0 || !isIdent(src[i-1])) && (i+len(word) == len(src) || !isIdent(src[i+len(word)]))
}

// scanTopLevel calls visit for each byte of src outside string literals
// and brackets, with the depth it closes to reported through a visit at
// depth 0 of the closing byte; it stops (false) when visit does.
func scanTopLevel(src string, visit func(i int, c byte) bool) bool {
	depth, inString := 0, byte(0)
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inString != 0:
			if c == '\\' && inString != '`' { // raw strings have no escapes
				i++
			} else if c == inString {
				inString = 0
			}
		case c == '"' || c == '\'' || c == '`':
			inString = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
			if depth == 0 && !visit(i, c) {
				return false
			}
		case depth == 0:
			if !visit(i, c) {
				return false
			}
		}
	}
	return true
}

// The guard forms are read by a small scanner (no regular expressions:
// policies are built in every rein process).

// nameGuard reads cmd.name == "x" or cmd.name in ["x", "y"].
func nameGuard(c string) (map[string]bool, bool) {
	if v, ok := equalsGuard(c, "cmd.name"); ok {
		return map[string]bool{v: true}, true
	}
	sc := exprScanner{c}
	if !sc.lit("cmd.name") || !sc.space() || !sc.lit("in") || !sc.lit("[") {
		return nil, false
	}
	names := map[string]bool{}
	for {
		v, ok := sc.str()
		if !ok {
			return nil, false
		}
		names[v] = true
		if sc.lit("]") {
			return names, sc.end()
		}
		if !sc.lit(",") {
			return nil, false
		}
	}
}

// namePatternGuard reads cmd.name matches "REGEX" (a pattern without
// backslashes), as expr reads it: a regular expression found anywhere in
// the name unless anchored.
func namePatternGuard(c string) (*namePattern, bool) {
	sc := exprScanner{c}
	if !sc.lit("cmd.name") || !sc.space() || !sc.lit("matches") {
		return nil, false
	}
	v, ok := sc.str()
	if !ok || !sc.end() {
		return nil, false
	}
	return &namePattern{src: v}, true
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

// equalsGuard reads FIELD == "x".
func equalsGuard(c, field string) (string, bool) {
	sc := exprScanner{c}
	if !sc.lit(field) || !sc.lit("==") {
		return "", false
	}
	v, ok := sc.str()
	return v, ok && sc.end()
}

// lenGuard reads len(FIELD) > N.
func lenGuard(c, field string) (int, bool) {
	sc := exprScanner{c}
	if !sc.lit("len") || !sc.lit("(") || !sc.lit(field) || !sc.lit(")") || !sc.lit(">") {
		return 0, false
	}
	n, ok := sc.num()
	return n, ok && sc.end()
}

// flagGuard reads hasFlag(cmd, "-a", "--b").
func flagGuard(c string) ([]string, bool) {
	sc := exprScanner{c}
	if !sc.lit("hasFlag") || !sc.lit("(") || !sc.lit("cmd") {
		return nil, false
	}
	var flags []string
	for sc.lit(",") {
		v, ok := sc.str()
		if !ok {
			return nil, false
		}
		flags = append(flags, v)
	}
	return flags, len(flags) > 0 && sc.lit(")") && sc.end()
}

// exprScanner reads tokens of an expr expression, skipping white space.
type exprScanner struct{ s string }

func (sc *exprScanner) skip() { sc.s = strings.TrimLeft(sc.s, " \t\r\n") }

// space reports whether white space comes next (and skips it).
func (sc *exprScanner) space() bool {
	n := len(sc.s)
	sc.skip()
	return len(sc.s) < n
}

// lit reads the literal text t. A word must not run on into a longer
// identifier (cmd.name is not cmd.names).
func (sc *exprScanner) lit(t string) bool {
	sc.skip()
	if !strings.HasPrefix(sc.s, t) {
		return false
	}
	rest := sc.s[len(t):]
	if last := t[len(t)-1]; isIdentByte(last) && rest != "" && isIdentByte(rest[0]) {
		return false
	}
	sc.s = rest
	return true
}

// str reads a double-quoted string without escapes.
func (sc *exprScanner) str() (string, bool) {
	sc.skip()
	if !strings.HasPrefix(sc.s, `"`) {
		return "", false
	}
	end := strings.IndexAny(sc.s[1:], `"\\`)
	if end < 0 || sc.s[1+end] != '"' {
		return "", false
	}
	v := sc.s[1 : 1+end]
	sc.s = sc.s[2+end:]
	return v, true
}

// num reads a decimal number of up to six digits.
func (sc *exprScanner) num() (int, bool) {
	sc.skip()
	n, i := 0, 0
	for ; i < len(sc.s) && i < 7 && sc.s[i] >= '0' && sc.s[i] <= '9'; i++ {
		n = n*10 + int(sc.s[i]-'0')
	}
	if i == 0 || i > 6 || i < len(sc.s) && isIdentByte(sc.s[i]) {
		return 0, false
	}
	sc.s = sc.s[i:]
	return n, true
}

func (sc *exprScanner) end() bool {
	sc.skip()
	return sc.s == ""
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
