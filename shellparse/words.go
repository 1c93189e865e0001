package shellparse

import (
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// staticConfig is a configuration that expands words with no environment,
// no globbing and no command substitution: only what can be known without
// running anything. Each call gets its own: expand writes to the one it is
// given (and to a shared one when given nil), which raced when analyses ran
// concurrently.
func staticConfig() *expand.Config { return &expand.Config{} }

// appendWord appends the fields of one shell word to dst.
func appendWord(dst []Word, src string, w *syntax.Word) []Word {
	// Fast path: a plain literal with nothing to interpret.
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if plain, bare := scanLiteral(p.Value); plain {
				dst = appendPlain(dst, p.Value)
				dst[len(dst)-1].shape = shapeNotBare
				if bare {
					dst[len(dst)-1].shape = shapeBare
				}
				return dst
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return appendPlain(dst, p.Value)
			}
		case *syntax.DblQuoted:
			// "text" with nothing to expand or unescape.
			if !p.Dollar && len(p.Parts) == 1 {
				if lit, ok := p.Parts[0].(*syntax.Lit); ok && strings.IndexByte(lit.Value, '\\') < 0 {
					return appendPlain(dst, lit.Value)
				}
			}
			if !p.Dollar && len(p.Parts) == 0 {
				return appendPlain(dst, "")
			}
		}
	}
	return appendResolved(dst, src, w)
}

// appendPlain appends a static word. It writes the value into the new
// slot rather than appending a Word built aside: copying that 40-byte
// temporary stalled on store forwarding, the most costly line of analysis.
func appendPlain(dst []Word, value string) []Word {
	dst = append(dst, Word{})
	dst[len(dst)-1].Value = value
	return dst
}

// appendResolved appends to dst the fields the shell would pass for one
// word. Brace expansion may turn one word into several fields.
func appendResolved(dst []Word, src string, w *syntax.Word) []Word {
	dynamic, glob, braces, tilde, special := classify(w)
	if dynamic || glob {
		return append(dst, Word{Value: literalParts(w), Raw: sourceOf(src, w), Dynamic: true, Glob: glob, onlyGlob: glob && !dynamic})
	}
	if tilde {
		// Keep "~" as written: what it means depends on HOME, which a policy
		// resolves itself for path checks.
		return append(dst, Word{Value: literalParts(w), Tilde: true})
	}
	if !braces && !special {
		return append(dst, Word{Value: literalParts(w)})
	}
	if braces && braceFields(w) > maxBraceFields {
		// The shell would produce more words than any real command needs;
		// expanding them here would cost unbounded time and memory.
		return append(dst, Word{Value: literalParts(w), Raw: sourceOf(src, w), Dynamic: true})
	}
	fields, err := expand.Fields(staticConfig(), w)
	if err != nil {
		return append(dst, Word{Value: literalParts(w), Raw: sourceOf(src, w), Dynamic: true})
	}
	// A word that expands to nothing (e.g. an empty brace element) occupies
	// no argv slot, as in the shell.
	for _, f := range fields {
		dst = append(dst, Word{Value: f})
	}
	return dst
}

// maxBraceFields bounds static brace expansion.
const maxBraceFields = 4096

// braceFields estimates how many fields brace expansion makes of a word,
// saturating above maxBraceFields.
func braceFields(w *syntax.Word) int {
	cp := *w
	cp.Parts = append([]syntax.WordPart(nil), w.Parts...)
	if !syntax.SplitBraces(&cp) {
		return 1
	}
	return wordFields(&cp)
}

func wordFields(w *syntax.Word) int {
	n := 1
	for _, part := range w.Parts {
		b, ok := part.(*syntax.BraceExp)
		if !ok {
			continue
		}
		n = satMul(n, braceExpFields(b))
	}
	return n
}

func braceExpFields(b *syntax.BraceExp) int {
	if b.Sequence {
		if len(b.Elems) < 2 {
			return 1
		}
		from, to := b.Elems[0].Lit(), b.Elems[1].Lit()
		var span int
		if x, ok := atoi(from); ok {
			if y, ok := atoi(to); ok {
				span = abs(y-x) + 1
			}
		} else if len(from) == 1 && len(to) == 1 {
			span = abs(int(to[0])-int(from[0])) + 1
		}
		if span <= 0 {
			return maxBraceFields + 1 // unknown: refuse to expand
		}
		return min(span, maxBraceFields+1)
	}
	n := 0
	for _, e := range b.Elems {
		n += wordFields(e)
		if n > maxBraceFields {
			return maxBraceFields + 1
		}
	}
	return n
}

func satMul(a, b int) int {
	if a > maxBraceFields || b > maxBraceFields || a*b > maxBraceFields {
		return maxBraceFields + 1
	}
	return a * b
}

func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	neg := s[0] == '-'
	if neg || s[0] == '+' {
		s = s[1:]
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		n = -n
	}
	return n, s != ""
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// scanLiteral reports whether an unquoted literal means exactly itself
// (plain) and, in the same pass, whether it is then a bare name
// (IsBareName; false when not plain).
func scanLiteral(s string) (plain, bare bool) {
	var seen uint8
	for i := 0; i < len(s); i++ {
		c := literalClass[s[i]]
		if c&classSpecial != 0 {
			return false, false
		}
		seen |= c
	}
	return true, bareWith(s, seen)
}

// bareWith is IsBareName of s, given the classes of its bytes.
func bareWith(s string, seen uint8) bool {
	return s != "" && seen&classBreak == 0 && (seen&classDot == 0 || !strings.Contains(s, ".."))
}

// IsBareName reports whether a word is a file name in the working folder
// and nothing more: not empty, no folder, no ~, no colon (REV:PATH,
// HOST:PATH), no "..". Policies need check such a name against base-name
// rules only.
func IsBareName(s string) bool {
	var seen uint8
	for i := 0; i < len(s); i++ {
		seen |= literalClass[s[i]]
	}
	return bareWith(s, seen)
}

// BareName is IsBareName of the word's value, known from analysis for most
// static words.
func (w *Word) BareName() bool {
	switch w.shape {
	case shapeBare:
		return true
	case shapeNotBare:
		return false
	}
	return IsBareName(w.Value)
}

// Word shapes, found while resolving the word (zero: not known).
const (
	shapeBare uint8 = 1 + iota
	shapeNotBare
)

// literalClass classifies bytes: classSpecial gives an unquoted literal a
// meaning beyond itself (escapes, braces, globs, ~, line breaks);
// classBreak takes a word out of the bare names; classDot is '.'.
var literalClass = func() (t [256]uint8) {
	for _, c := range "\\{*?[~\n" {
		t[c] |= classSpecial
	}
	for _, c := range "/\\~:" {
		t[c] |= classBreak
	}
	t['.'] |= classDot
	return
}()

const (
	classSpecial uint8 = 1 << iota
	classBreak
	classDot
)

// classify walks a word's parts once and reports what kind of word it is.
//   - dynamic: parameter expansion, command/process substitution, arithmetic
//   - glob: unquoted glob characters or an extended glob
//   - braces: unquoted '{' that may start a brace expansion
//   - tilde: a leading unquoted '~'
//   - special: something expand must interpret ($'...', $"...")
func classify(w *syntax.Word) (dynamic, glob, braces, tilde, special bool) {
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				tilde = true
			}
			if hasGlob(p.Value) {
				glob = true
			}
			if mayBrace(p.Value) {
				braces = true
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				special = true
			}
		case *syntax.DblQuoted:
			if p.Dollar {
				special = true
			}
			for _, inner := range p.Parts {
				if _, ok := inner.(*syntax.Lit); !ok {
					dynamic = true
				}
			}
		case *syntax.ExtGlob:
			glob = true
		default: // ParamExp, CmdSubst, ArithmExp, ProcSubst
			dynamic = true
		}
	}
	return
}

// mayBrace reports whether an unquoted literal may hold a brace expansion:
// a '{' with a later ',' or ".." and '}' ("{}" alone, as in find -exec, is
// literal).
func mayBrace(s string) bool {
	open := strings.IndexByte(s, '{')
	if open < 0 {
		return false
	}
	rest := s[open+1:]
	end := strings.LastIndexByte(rest, '}')
	if end < 0 {
		return false
	}
	inner := rest[:end]
	return strings.IndexByte(inner, ',') >= 0 || strings.Contains(inner, "..")
}

// hasGlob reports unescaped glob metacharacters in an unquoted literal. A '['
// only counts when a ']' follows it, as in the shell ("[" alone is the test
// builtin).
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if strings.IndexByte(s[i+1:], ']') >= 0 {
				return true
			}
		}
	}
	return false
}

// literalParts concatenates the literal (quoted or unquoted) parts of a word,
// with escapes removed, skipping dynamic parts.
func literalParts(w *syntax.Word) string {
	if len(w.Parts) == 1 {
		// One part needs no joining (and no copy).
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			return unescapeUnquoted(p.Value)
		case *syntax.SglQuoted:
			if !p.Dollar {
				return p.Value
			}
		}
	}
	var b strings.Builder
	b.Grow(int(w.End().Offset() - w.Pos().Offset()))
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeUnquoted(p.Value))
		case *syntax.SglQuoted:
			if p.Dollar {
				if s, err := expand.Literal(staticConfig(), &syntax.Word{Parts: []syntax.WordPart{p}}); err == nil {
					b.WriteString(s)
				}
				continue
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, inner := range p.Parts {
				if lit, ok := inner.(*syntax.Lit); ok {
					b.WriteString(unescapeDouble(lit.Value))
				}
			}
		}
	}
	return b.String()
}

func unescapeUnquoted(s string) string {
	i := strings.IndexByte(s, '\\')
	if i < 0 {
		return s
	}
	if i == 0 && len(s) > 1 && s[1] != '\n' && strings.IndexByte(s[2:], '\\') < 0 {
		return s[1:] // \; \( \!: the escape leads, the rest is as written
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func unescapeDouble(s string) string {
	if strings.IndexByte(s, '\\') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func sourceOf(src string, n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(src) || start > end {
		return ""
	}
	return src[start:end]
}

func position(p syntax.Pos) Position {
	return Position{Line: int(p.Line()), Col: int(p.Col()), Offset: int(p.Offset())}
}

// Quote renders an argv element so that a person can paste it into a shell.
func Quote(s string) string {
	if !needsQuotes(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// plainChars are the bytes that never need quoting.
var plainChars = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "-_./=:,+@%^" {
		t[c] = true
	}
	return
}()

func needsQuotes(s string) bool {
	if s == "" {
		return true
	}
	for i := 0; i < len(s); i++ {
		if !plainChars[s[i]] {
			return true
		}
	}
	return false
}

// JoinArgv renders an argv for display.
func JoinArgv(argv []string) string {
	if len(argv) == 1 && !needsQuotes(argv[0]) {
		return argv[0]
	}
	size := len(argv)
	for _, a := range argv {
		size += len(a) + 2 // room for quotes
	}
	var b strings.Builder
	b.Grow(size)
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case !needsQuotes(a):
			b.WriteString(a)
		case strings.IndexByte(a, '\'') < 0:
			b.WriteByte('\'') // quoted in place: no string built for it
			b.WriteString(a)
			b.WriteByte('\'')
		default:
			b.WriteString(Quote(a))
		}
	}
	return b.String()
}
