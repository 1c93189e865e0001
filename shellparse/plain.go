package shellparse

import "strings"

// Most commands a model proposes are one program and a few plain words,
// or a pipeline of them: git status, go test ./..., git log | head. The
// shell gives such a text one meaning — split at pipes, then at blanks,
// every word itself — so the analysis reads it off the text instead of
// building a syntax tree for it, the largest part of vetting's cost. The shape is kept narrow on purpose: a byte outside
// plainWordByte, or a first word the parser treats specially, sends the
// text to the parser. TestPlainAgreesWithParser and FuzzPlain hold the
// two ways to the same Script, and the runner re-checks every argv it is
// about to run whichever way it was vetted.

// plainWordByte marks the bytes a plain word is made of: none quotes,
// expands, globs, redirects, separates or comments (';', '&', '|', '<',
// '>', '(', ')', '$', '`', quotes, '\\', '*', '?', '[', '{', '}', '~',
// '#', '!' and every byte above 0x7f are left out).
var plainWordByte = func() (t [256]bool) {
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

// isPlain reports whether text is a plain pipeline: plain simple commands
// (plainWords) joined by single pipes.
func isPlain(text string) bool {
	for {
		i := strings.IndexByte(text, '|')
		if i < 0 {
			_, ok := plainWords(text)
			return ok
		}
		if _, ok := plainWords(text[:i]); !ok {
			return false // also "a || b" and "a |": an empty command
		}
		text = text[i+1:]
	}
}

// plainWords counts the words of text when it is a plain simple command:
// words of plainWordByte separated by spaces and tabs, the first naming a
// program (no assignment, no word the parser reads as a keyword or a
// declaration). ok is false for every other text.
func plainWords(text string) (n int, ok bool) {
	inWord := false
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == ' ' || c == '\t':
			inWord = false
		case !plainWordByte[c]:
			return 0, false
		case !inWord:
			inWord = true
			n++
		}
	}
	if n == 0 {
		return 0, false
	}
	first := strings.TrimLeft(text, " \t")
	if end := strings.IndexAny(first, " \t"); end >= 0 {
		first = first[:end]
	}
	return n, plainName(first)
}

// plainName reports whether a first word is a program's name to the
// parser: not an assignment (x=1 ls), not a keyword (if, time, !) and not
// a builtin it parses itself (declare, export, let).
func plainName(w string) bool {
	if strings.IndexByte(w, '=') >= 0 {
		return false
	}
	switch w {
	case "if", "then", "elif", "else", "fi", "while", "until", "for", "in", "do", "done",
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
	for from := 0; ; {
		end := strings.IndexByte(text[from:], '|')
		if end < 0 {
			a.plainCommand(text, from, len(text), ctx)
			return
		}
		end += from
		a.script.addConstruct(ConstructPipeline)
		a.script.addOperator("|")
		a.plainCommand(text, from, end, ctx)
		from = end + 1
	}
}

// plainCommand analyses the plain simple command text[from:to], as call
// does the one the parser finds there.
func (a *analyzer) plainCommand(text string, from, to int, ctx context) {
	n, _ := plainWords(text[from:to])
	words := a.mem.wordList(n)
	first, last := -1, 0
	for i := from; i < to; {
		if c := text[i]; c == ' ' || c == '\t' {
			i++
			continue
		}
		j := i
		for j < to && text[j] != ' ' && text[j] != '\t' {
			j++
		}
		if first < 0 {
			first = i
		}
		last = j
		_, bare := scanLiteral(text[i:j])
		words = appendPlain(words, text[i:j])
		words[len(words)-1].shape = shapeNotBare
		if bare {
			words[len(words)-1].shape = shapeBare
		}
		i = j
	}
	pos, source := ctx.at, ""
	if !ctx.nested {
		pos, source = Position{Line: 1, Col: first + 1, Offset: first}, text[first:last]
	}
	a.simple(words, nil, ctx, pos, source)
}
