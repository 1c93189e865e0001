package policy

import (
	"strconv"
	"unicode/utf8"

	"github.com/reinsh/rein/shellparse"
)

// AppendJSON appends the decision as encoding/json writes it with HTML
// escaping off (the same fields, order and escapes, compact), without
// reflection: bulk rein check --json writes one per line, and encoding
// them took a quarter of its time. TestAppendJSONIsEncodingJSON holds the
// two to the same bytes.
func (d *Decision) AppendJSON(b []byte) []byte {
	b = append(b, `{"command":`...)
	b = appendString(b, d.Command)
	b = append(b, `,"verdict":`...)
	b = appendString(b, d.Verdict.String())
	b = append(b, `,"rule":`...)
	b = appendString(b, d.Rule)
	b = append(b, `,"reason":`...)
	b = appendString(b, d.Reason)
	b = append(b, `,"commands":`...)
	if d.Commands == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range d.Commands {
			if i > 0 {
				b = append(b, ',')
			}
			b = d.Commands[i].appendJSON(b)
		}
		b = append(b, ']')
	}
	if len(d.Checks) > 0 {
		b = append(b, `,"checks":[`...)
		for i, c := range d.Checks {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = appendString(b, c.Kind)
			b = append(b, `,"subject":`...)
			b = appendString(b, c.Subject)
			b = appendPos(b, c.Pos)
			b = c.Result.appendFields(b)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(d.Findings) > 0 {
		b = append(b, `,"findings":[`...)
		for i, f := range d.Findings {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"kind":`...)
			b = appendString(b, f.Kind)
			b = append(b, `,"message":`...)
			b = appendString(b, f.Message)
			b = appendPos(b, f.Pos)
			if len(f.Via) > 0 {
				b = append(b, `,"via":`...)
				b = appendStrings(b, f.Via)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(d.Alternatives) > 0 {
		b = append(b, `,"alternatives":`...)
		b = appendStrings(b, d.Alternatives)
	}
	return append(b, '}')
}

func (c *CommandResult) appendJSON(b []byte) []byte {
	b = append(b, `{"text":`...)
	b = appendString(b, c.Text)
	b = append(b, `,"argv":`...)
	b = appendStrings(b, c.Argv)
	b = append(b, `,"name":`...)
	b = appendString(b, c.Name)
	if len(c.Via) > 0 {
		b = append(b, `,"via":`...)
		b = appendStrings(b, c.Via)
	}
	b = appendPos(b, c.Pos)
	b = c.Result.appendFields(b)
	if len(c.Alternatives) > 0 {
		b = append(b, `,"alternatives":`...)
		b = appendStrings(b, c.Alternatives)
	}
	return append(b, '}')
}

// appendFields appends a Result's fields, embedded in another object.
func (r *Result) appendFields(b []byte) []byte {
	b = append(b, `,"verdict":`...)
	b = appendString(b, r.Verdict.String())
	b = append(b, `,"rule":`...)
	b = appendString(b, r.Rule)
	b = append(b, `,"reason":`...)
	return appendString(b, r.Reason)
}

func appendPos(b []byte, p shellparse.Position) []byte {
	b = append(b, `,"pos":{"line":`...)
	b = strconv.AppendInt(b, int64(p.Line), 10)
	b = append(b, `,"col":`...)
	b = strconv.AppendInt(b, int64(p.Col), 10)
	b = append(b, `,"offset":`...)
	b = strconv.AppendInt(b, int64(p.Offset), 10)
	return append(b, '}')
}

// appendStrings appends a list of strings; nil is null, as encoding/json
// writes it.
func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, s)
	}
	return append(b, ']')
}

// appendString appends s quoted as encoding/json quotes it with HTML
// escaping off: \" \\ \b \f \n \r \t, other control characters as \u00XX,
// invalid UTF-8 as \ufffd, and U+2028 and U+2029 escaped.
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Most text needs no escape: skip it a byte at a time.
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i == len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			start = i + size
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plainByte are the bytes a JSON string holds as they are: printable ASCII
// but the quote and the backslash.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
