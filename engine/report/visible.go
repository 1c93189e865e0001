package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns text rein did not write itself (a command a model
// proposes, its reason, the model's answer, a command's output) as a
// terminal must show it to a person deciding on it: control characters are
// written out as escapes (\x1b, \r), as are invalid bytes and the invisible
// Unicode marks that reorder text (\u202e). A model, or a file it prints,
// could otherwise move the cursor, clear the line, overwrite the command in
// an approval prompt with a harmless one, set the terminal's title or
// clipboard, or make `rm` read as `git`. Newlines and tabs stay.
func Visible(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if hidden(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case !hidden(r, size):
			b.WriteString(s[i : i+size])
		case size == 1 && r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// Clip is Visible(s) cut to at most n bytes, at a character boundary,
// ending in … when cut: for one-line summaries and table cells.
func Clip(s string, n int) string {
	s = Visible(s)
	if len(s) <= n {
		return s
	}
	cut := max(n-len("…"), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// hidden reports a rune a terminal does not simply show: C0 and C1
// controls but newline and tab, DEL, an invalid byte, and the marks that
// change the direction of text or separate lines without a newline.
func hidden(r rune, size int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r >= 0x7f && r <= 0x9f:
		return true
	case r == utf8.RuneError && size == 1:
		return true
	case r == 0x061c || r == 0x200e || r == 0x200f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}
