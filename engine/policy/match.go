package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/shellparse"
)

// catalogEntry is a commands entry split into tokens.
type catalogEntry struct {
	command string
	rule    string
	tokens  []token
}

type token struct {
	text        string
	placeholder bool // <name>: any one argument
	optional    bool // [tok]
}

// parseEntry splits a catalog command into tokens, honouring quotes.
func parseEntry(s string) []token {
	var toks []token
	for _, f := range splitQuoted(s) {
		t := token{text: f}
		if strings.HasPrefix(f, "[") && strings.HasSuffix(f, "]") && len(f) > 2 {
			t.optional, t.text = true, f[1:len(f)-1]
		}
		if strings.HasPrefix(t.text, "<") && strings.HasSuffix(t.text, ">") && len(t.text) > 2 {
			t.placeholder = true
		}
		toks = append(toks, t)
	}
	return toks
}

func splitQuoted(s string) []string {
	var out []string
	var b strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, b.String())
				b.Reset()
				in = false
			}
		default:
			b.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// matchPrefix reports whether argv begins with the entry's tokens.
func matchPrefix(toks []token, argv []string) bool {
	if len(toks) == 0 {
		return true
	}
	t := toks[0]
	if t.optional && matchPrefix(toks[1:], argv) {
		return true
	}
	if len(argv) == 0 {
		return false
	}
	if !t.placeholder && t.text != argv[0] {
		return false
	}
	return matchPrefix(toks[1:], argv[1:])
}

// programMatch is what a program's rules say about one simple command.
type programMatch struct {
	sub     string // the subcommand, found after the global flags
	deny    *Result
	ask     *Result
	allowed bool
	why     string // why it is not allowed, when it is not
}

// flagTokens returns, for each argument, whether it is a flag.
func isFlagToken(s string) bool { return len(s) > 1 && s[0] == '-' }

// matchProgram applies a program's rules to a simple command, into a zero
// m (in place: a returned copy stalled on reading back what was written).
func (p *Policy) matchProgram(name string, prog *program, c *shellparse.Command, parsed *programs.Parsed, m *programMatch) {
	words := c.Words[1:]
	i := 0
	// Global flags (only meaningful when the program has subcommands).
	if prog.takesSubcommands() {
		for i < len(words) && isFlagToken(words[i].Value) && words[i].Value != "--" {
			w := words[i].Value
			fname, _, hasValue := strings.Cut(w, "=")
			gf, known := prog.GlobalFlags[fname]
			if !known {
				m.why = fmt.Sprintf("%s %s is not an allowed option before the subcommand%s", name, w, prog.allowedGlobals)
				break
			}
			if gf.Value && !hasValue {
				i++
			}
			i++
		}
		if m.why == "" && i < len(words) {
			m.sub = words[i].Value
			if words[i].Dynamic {
				m.why = fmt.Sprintf("the %s subcommand is computed at run time (%s)", name, words[i].Raw)
				m.sub = ""
			}
			i++
		}
	}
	rest := words[min(i, len(words)):]
	var sub *subcommand
	if m.sub != "" {
		sub = prog.subs[m.sub]
	}

	// Deny: the subcommand's flags (the most precise reason: git rebase
	// --exec is rebase's, not an abbreviation of git's --exec-path), flags
	// anywhere, then the subcommand.
	rule := prog.rule
	if sub != nil {
		if f, pat, ok := deniedFlag(rest, sub.deny); ok {
			m.deny = &Result{Deny, rule + ".subcommands." + m.sub + ".deny_flags", fmt.Sprintf("%s %s %s is denied (matches %s)", name, m.sub, f, pat)}
			return
		}
	}
	if f, pat, ok := deniedFlag(c.Words[1:], prog.deny); ok {
		m.deny = &Result{Deny, rule + ".deny_flags", fmt.Sprintf("%s %s is denied (matches %s)", name, f, pat)}
		return
	}
	if m.sub != "" && slices.Contains(prog.DenySubcommands, m.sub) {
		m.deny = &Result{Deny, rule + ".deny_subcommands", fmt.Sprintf("%s %s is denied", name, m.sub)}
		return
	}
	if m.why != "" {
		return
	}

	// Ask.
	if m.sub != "" && (slices.Contains(prog.AskSubcommands, m.sub) || sub != nil && sub.Ask) {
		m.ask = &Result{Ask, rule + ".subcommands." + m.sub, fmt.Sprintf("%s %s needs confirmation", name, m.sub)}
	}

	// Allow: subcommand known, every flag and argument allowed.
	flags, args := prog.flags, prog.Args
	scope := argScope{name: name}
	if len(prog.Subcommands) > 0 {
		if m.sub == "" && len(rest) == 0 {
			if i > 0 {
				// Global flags alone (npm --version, git -P): the
				// program reports and ends; each flag was allowed.
				m.allowed = true
				return
			}
			m.why = fmt.Sprintf("%s needs a subcommand%s", name, prog.allowedSubs)
			return
		}
		if sub == nil && !slices.Contains(prog.AskSubcommands, m.sub) {
			m.why = fmt.Sprintf("%s %s is not an allowed subcommand%s", name, m.sub, prog.allowedSubs)
			return
		}
		scope.sub = m.sub
		if sub != nil && sub.flags != nil {
			flags = sub.flags
		}
		if sub != nil && sub.Args != nil {
			args = sub.Args
		}
	}
	if why := p.checkArgs(scope, rest, flags, args, c, parsed, len(words)-len(rest)); why != "" {
		m.why = why
		return
	}
	m.allowed = true
}

// argScope is the program, and its subcommand if any, whose arguments are
// checked: it names them in messages, which few checks write.
type argScope struct{ name, sub string }

func (s argScope) String() string {
	if s.sub == "" {
		return s.name
	}
	return s.name + " " + s.sub
}

// checkArgs checks flags against an allow list (nil = any) and positionals
// against argument patterns (nil = any).
func (p *Policy) checkArgs(scope argScope, words []shellparse.Word, flags *flagSet, args []string, c *shellparse.Command, parsed *programs.Parsed, offset int) string {
	endOfFlags := false
	for i := range words {
		w := &words[i]
		v := w.Value
		if separateValue(parsed, offset+i) {
			continue // an option's value (git branch --merged main), not an argument
		}
		if !endOfFlags && v == "--" {
			endOfFlags = true
			continue
		}
		if !endOfFlags && isFlagToken(v) {
			if flags == nil {
				continue
			}
			if w.Dynamic {
				return fmt.Sprintf("%s: the option %s is computed at run time", scope, w.Raw)
			}
			if !flags.allows(v) {
				return fmt.Sprintf("%s %s is not an allowed option%s", scope, v, flags.allowed)
			}
			continue
		}
		if args == nil {
			continue
		}
		if len(args) == 0 {
			return fmt.Sprintf("%s takes no arguments here (got %s)", scope, shellparse.Quote(w.Text()))
		}
		if !p.argAllowed(*w, args, c) {
			return fmt.Sprintf("%s: argument %s does not match %s", scope, shellparse.Quote(w.Text()), strings.Join(args, ", "))
		}
	}
	return ""
}

func (p *Policy) argAllowed(w shellparse.Word, patterns []string, c *shellparse.Command) bool {
	for _, pat := range patterns {
		if g, ok := strings.CutPrefix(pat, "path:"); ok {
			if w.Dynamic {
				continue
			}
			abs := p.read.resolve(w.Value, p.cwd)
			if Inside(abs, p.workspace) && matchSegments(splitPath(g), splitPath(relTo(abs, p.workspace))) {
				return true
			}
			continue
		}
		if Glob(pat, w.Text()) {
			return true
		}
	}
	return false
}

// separateValue reports whether the word at index i of a command's
// arguments is the value of an option given as the word before it, as the
// program table reads the command (parsed; nil: a program it does not know).
func separateValue(parsed *programs.Parsed, i int) bool {
	if parsed == nil {
		return false
	}
	for k := range parsed.Options {
		if g := &parsed.Options[k]; g.Next && g.At+1 == i {
			return true
		}
	}
	return false
}

// deniedFlag finds a flag token (before any --) that the set denies.
func deniedFlag(words []shellparse.Word, denied *flagSet) (tok, pattern string, ok bool) {
	if denied == nil || len(denied.list) == 0 {
		return "", "", false
	}
	for i := range words {
		v := words[i].Value
		if v == "--" {
			break
		}
		if !isFlagToken(v) {
			continue
		}
		if pat, ok := denied.denies(v); ok {
			return v, pat, true
		}
	}
	return "", "", false
}

func listOf(prefix string, items []string) string {
	if len(items) == 0 {
		return ""
	}
	const max = 12
	if len(items) > max {
		return prefix + strings.Join(items[:max], ", ") + fmt.Sprintf(", … (%d more)", len(items)-max)
	}
	return prefix + strings.Join(items, ", ")
}

func splitPath(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }

func relTo(abs, dir string) string {
	return strings.TrimPrefix(strings.TrimPrefix(abs, strings.TrimSuffix(dir, "/")), "/")
}
