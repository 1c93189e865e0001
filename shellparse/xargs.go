package shellparse

import (
	"errors"
	"strconv"
	"strings"
)

// Commands returns the command lines xargs builds from its input, as
// GNU xargs builds them: items split at blanks and newlines with quotes
// and backslashes taken off (or at NUL, or at -d's delimiter, taken as
// they are), up to -E's end word; with -I one command per line, the
// marker replaced; with -L or -n that many lines or items per command.
// exact is false where xargs batches by size (no -L, -n or -I, or -s):
// the caller must then allow for a command starting at any item. err says
// why the input cannot be read as xargs would (an unmatched quote, on
// which xargs stops).
func (x NameInput) Commands(input []byte) (cmds [][]string, exact bool, err error) {
	command := x.Command
	if len(command) == 0 {
		command = []string{"echo"}
	}
	lines, err := x.items(string(input))
	if err != nil {
		return nil, false, err
	}
	build := func(items []string) []string {
		return append(append([]string(nil), command...), items...)
	}
	switch {
	case x.Replace != "":
		for _, line := range lines {
			item := strings.Join(line, " ")
			argv := make([]string, len(command))
			for i, a := range command {
				argv[i] = strings.ReplaceAll(a, x.Replace, item)
			}
			cmds = append(cmds, argv)
		}
		return cmds, true, nil
	case x.MaxLines > 0:
		for i := 0; i < len(lines); i += x.MaxLines {
			var items []string
			for _, line := range lines[i:min(i+x.MaxLines, len(lines))] {
				items = append(items, line...)
			}
			cmds = append(cmds, build(items))
		}
		return cmds, !x.Sized, nil
	}
	var items []string
	for _, line := range lines {
		items = append(items, line...)
	}
	if x.MaxArgs > 0 {
		for i := 0; i < len(items); i += x.MaxArgs {
			cmds = append(cmds, build(items[i:min(i+x.MaxArgs, len(items))]))
		}
		return cmds, !x.Sized, nil
	}
	if len(items) > 0 {
		cmds = append(cmds, build(items))
	}
	return cmds, false, nil
}

var errUnmatchedQuote = errors.New("xargs would stop at an unmatched quote in its input")

// items splits the input into lines of items, as xargs reads them.
func (x NameInput) items(text string) ([][]string, error) {
	if x.Null || x.Delim != "" {
		sep := "\x00"
		if !x.Null {
			sep = x.Delim
		}
		parts := strings.Split(text, sep)
		if len(parts) > 0 && parts[len(parts)-1] == "" {
			parts = parts[:len(parts)-1]
		}
		var lines [][]string
		for _, p := range parts {
			lines = append(lines, []string{p})
		}
		return lines, nil
	}
	lineMode := x.Replace != ""
	var lines [][]string
	var line []string
	var b strings.Builder
	inItem := false
	var quote byte
	end := func() bool {
		if !inItem {
			return false
		}
		item := b.String()
		b.Reset()
		inItem = false
		if x.EOF != "" && item == x.EOF {
			return true
		}
		line = append(line, item)
		return false
	}
	endLine := func() {
		if len(line) > 0 {
			lines = append(lines, line)
			line = nil
		}
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\n' {
				return nil, errUnmatchedQuote
			}
			if c == quote {
				quote = 0
			} else {
				b.WriteByte(c)
			}
		case c == '\'' || c == '"':
			quote, inItem = c, true
		case c == '\\' && i+1 < len(text):
			i++
			b.WriteByte(text[i])
			inItem = true
		case c == '\n':
			// -L: a line whose last item ends in a blank goes on.
			continued := !lineMode && i > 0 && (text[i-1] == ' ' || text[i-1] == '\t')
			if end() {
				endLine()
				return lines, nil
			}
			if !continued {
				endLine()
			}
		case (c == ' ' || c == '\t') && !(lineMode && inItem):
			if lineMode && !inItem {
				continue // -I drops the blanks that start a line
			}
			if end() {
				endLine()
				return lines, nil
			}
		default:
			b.WriteByte(c)
			inItem = true
		}
	}
	if quote != 0 {
		return nil, errUnmatchedQuote
	}
	end()
	endLine()
	return lines, nil
}

// atoiOr is the number s says, or def.
func atoiOr(s string, def int) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return def
}
