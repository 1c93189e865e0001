package shellparse

import "strings"

// Most commands a model proposes are one program and a few plain words, or
// a pipeline of them: git status, go test ./..., grep -rn 'func main' . |
// head. The shell gives such a text one meaning — split at pipes, then at
// blanks, each word itself once its quotes are taken off — so the analysis
// reads it off the text instead of building a syntax tree for it, the
// largest part of vetting's cost. The shape is kept narrow on purpose: a
// byte outside plainByte (or, in double quotes, one that expands), or a
// first word the parser treats specially, sends the text to the parser.
// TestPlainAgreesWithParser and FuzzPlain hold the two ways to the same
// Script, and the runner re-checks every argv it is about to run whichever
// way it was vetted.

// plainByte marks the bytes an unquoted plain word is made of: none
// expands, globs, redirects, separates, escapes or comments (find's {} and
// \; are words of their own, read as such by the lexer). Left out are
// ';', '&', '<', '>', '(', ')', '$', '`', '\\', '*', '?', '[', '{', '}',
// '~', '#', '!', control bytes and every byte above 0x7f; '|' and the
// quotes are the lexer's.
var plainByte = func() (t [256]bool) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for _, c := range "_./-+=:,%@" {
		t[c] = true
	}
	return
}()

// plainQuotedByte marks the bytes quotes may hold in a plain word: every
// printable ASCII byte but the quote itself and, in double quotes, those
// that still expand or escape there ('$', '`', '\\').
func plainQuotedByte(c, quote byte) bool {
	if c < ' ' && c != '\t' || c > '~' || c == quote {
		return false
	}
	return quote == '\'' || c != '$' && c != '`' && c != '\\'
}

// A plainLexer reads a plain pipeline one token at a time.
type plainLexer struct {
	text string
	i    int
}

// plain token kinds.
const (
	plainEnd = iota
	plainWord
	plainPipe
	plainBad // not a plain text
)

// next returns the next token; for a word, where it starts and ends in
// the text and whether any of it is quoted.
func (l *plainLexer) next() (kind, start, end int, quoted bool) {
	for l.i < len(l.text) && (l.text[l.i] == ' ' || l.text[l.i] == '\t') {
		l.i++
	}
	start = l.i
	switch {
	case l.i == len(l.text):
		return plainEnd, start, start, false
	case l.text[l.i] == '|':
		l.i++
		return plainPipe, start, l.i, false
	}
	if rest := l.text[l.i:]; strings.HasPrefix(rest, "{}") || strings.HasPrefix(rest, `\;`) {
		// find's {} and \; as whole words: literal to bash too.
		if len(rest) == 2 || rest[2] == ' ' || rest[2] == '\t' || rest[2] == '|' {
			l.i += 2
			return plainWord, start, l.i, false
		}
		return plainBad, start, l.i, false
	}
	for l.i < len(l.text) {
		switch c := l.text[l.i]; {
		case c == ' ' || c == '\t' || c == '|':
			return plainWord, start, l.i, quoted
		case c == '\'' || c == '"':
			l.i++
			for l.i < len(l.text) && plainQuotedByte(l.text[l.i], c) {
				l.i++
			}
			if l.i == len(l.text) || l.text[l.i] != c {
				return plainBad, start, l.i, quoted
			}
			quoted = true
		case !plainByte[c]:
			return plainBad, start, l.i, quoted
		}
		l.i++
	}
	return plainWord, start, l.i, quoted
}

// isPlain reports whether text is a plain pipeline: simple commands of
// plain words joined by single pipes, each first word naming a program.
func isPlain(text string) bool {
	l := plainLexer{text: text}
	first := true // the next word names a program
	for {
		kind, start, end, _ := l.next()
		switch kind {
		case plainWord:
			if first && !plainName(text[start:end]) {
				return false
			}
			first = false
		case plainPipe:
			if first {
				return false // "| a", "a || b": a pipe without a command before it
			}
			first = true
		case plainEnd:
			return !first
		default:
			return false
		}
	}
}

// plainName reports whether a first word is a program's name to the
// parser: not an assignment (x=1 ls), not a keyword (if, time, !) and not
// a builtin it parses itself (declare, export, let). Quotes make a keyword
// a name ('if'), but not an assignment ('x=1' ls is one to bash's eye when
// expanded by declare); both are left to the parser.
func plainName(w string) bool {
	if strings.IndexByte(w, '=') >= 0 {
		return false
	}
	switch w {
	case "{}", `\;`, "if", "then", "elif", "else", "fi", "while", "until", "for", "in", "do", "done",
		"case", "esac", "select", "function", "time", "coproc",
		"let", "declare", "local", "export", "readonly", "typeset", "nameref":
		return false
	}
	return true
}

// plain analyses a text isPlain accepted as the parser's tree would be:
// for a | b | c, the pipe, a, the pipe, b, c.
func (a *analyzer) plain(text string, ctx context) {
	ctx.src = text
	l := plainLexer{text: text}
	words := a.mem.wordList(strings.Count(text, " ") + strings.Count(text, "\t") + strings.Count(text, "|") + 1)
	from, first, last := 0, -1, 0 // the command's words in words; its span in text
	for {
		kind, start, end, quoted := l.next()
		if kind == plainWord {
			if first < 0 {
				first = start
			}
			last = end
			words = appendPlainWord(words, text[start:end], quoted)
			continue
		}
		if first < 0 {
			return // not after isPlain: no command here
		}
		if kind == plainPipe {
			a.script.addConstruct(ConstructPipeline)
			a.script.addOperator("|")
		}
		pos, source := ctx.at, ""
		if !ctx.nested {
			pos, source = Position{Line: 1, Col: first + 1, Offset: first}, text[first:last]
		}
		a.simple(words[from:len(words):len(words)], nil, ctx, pos, source)
		if kind != plainPipe {
			return
		}
		from, first = len(words), -1
	}
}

// appendPlainWord appends a plain word as appendWord does the parser's.
func appendPlainWord(dst []Word, raw string, quoted bool) []Word {
	switch raw {
	case "{}":
		return appendPlain(dst, raw)
	case `\;`:
		return appendPlain(dst, ";")
	}
	if !quoted {
		_, bare := scanLiteral(raw)
		dst = appendPlain(dst, raw)
		dst[len(dst)-1].shape = shapeNotBare
		if bare {
			dst[len(dst)-1].shape = shapeBare
		}
		return dst
	}
	if q := raw[0]; (q == '\'' || q == '"') && strings.IndexByte(raw[1:], q) == len(raw)-2 {
		return appendPlain(dst, raw[1:len(raw)-1]) // one quoted part: 'x' or "x"
	}
	var b strings.Builder
	b.Grow(len(raw))
	for i := 0; i < len(raw); i++ {
		if q := raw[i]; q == '\'' || q == '"' {
			end := i + 1 + strings.IndexByte(raw[i+1:], q)
			b.WriteString(raw[i+1 : end])
			i = end
			continue
		}
		b.WriteByte(raw[i])
	}
	return appendPlain(dst, b.String())
}
