package policy

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

// ruleGuards are the leading conjuncts of an each expression that Go can
// test without the expr VM: cmd.name == "x" (or in [...]), cmd.sub == "x",
// hasFlag(cmd, ...), len(cmd.positionals) > N and len(cmd.env) > 0. When the
// expression is A && B && rest and A is false, the VM would stop at A and
// return false, so a command failing a leading guard skips the rule without
// running it. Only guards before the first other conjunct count (the VM
// never reached the rest), and only when the whole expression is one
// conjunction: after a top-level ||, or in a ternary, a test guards nothing.
type ruleGuards struct {
	// names, when set, are the only command names the rule can match.
	names map[string]bool
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

var (
	guardName        = regexp.MustCompile(`^cmd\.name\s*==\s*"([^"\\]*)"$`)
	guardNameIn      = regexp.MustCompile(`^cmd\.name\s+in\s*\[([^\]]*)\]$`)
	guardSub         = regexp.MustCompile(`^cmd\.sub\s*==\s*"([^"\\]*)"$`)
	guardEnv         = regexp.MustCompile(`^len\(\s*cmd\.env\s*\)\s*>\s*0$`)
	guardPositionals = regexp.MustCompile(`^len\(\s*cmd\.positionals\s*\)\s*>\s*([0-9]{1,6})$`)
	guardFlag        = regexp.MustCompile(`^hasFlag\(\s*cmd\s*((?:,\s*"[^"\\]*"\s*)+)\)$`)
	quoted           = regexp.MustCompile(`"([^"\\]*)"`)
)

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
		if m := guardName.FindStringSubmatch(c); m != nil && g.names == nil {
			g.names = map[string]bool{m[1]: true}
			continue
		}
		if m := guardNameIn.FindStringSubmatch(c); m != nil && g.names == nil {
			// Only a list of plain strings: anything else (a variable, an
			// expression) might hold other names.
			rest := quoted.ReplaceAllString(m[1], "")
			if strings.Trim(rest, " \t\n,") != "" {
				g.count--
				break
			}
			g.names = map[string]bool{}
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				g.names[q[1]] = true
			}
			continue
		}
		if m := guardSub.FindStringSubmatch(c); m != nil && !g.hasSub {
			g.sub, g.hasSub = m[1], true
			continue
		}
		if guardEnv.MatchString(c) {
			g.env = true
			continue
		}
		if m := guardPositionals.FindStringSubmatch(c); m != nil && g.positionals < 0 {
			g.positionals, _ = strconv.Atoi(m[1])
			continue
		}
		if m := guardFlag.FindStringSubmatch(c); m != nil {
			var flags []string
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				flags = append(flags, q[1])
			}
			g.flags = append(g.flags, flags)
			continue
		}
		g.count--
		break
	}
	return g
}

// pass reports whether a command passes the guards that need no rule view;
// flags are checked by passFlags, once the view is built.
func (g *ruleGuards) pass(c *shellparse.Command, sub string) bool {
	if g.env && len(c.Env) == 0 || g.hasSub && sub != g.sub {
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
			c == 'o' && isWordAt(src, i, "or"):
			return false
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
			if c == '\\' {
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
