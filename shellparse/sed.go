package shellparse

import (
	"fmt"
	"slices"
	"strings"
)

// SedScript is what a sed command's script does besides editing the stream
// to standard output: the files it reads and writes, and whether it runs
// commands. sed is a language, and a few of its commands do all three
// (r FILE, w FILE, e CMD, s/a/b/w FILE, s/a/b/e); they may be written
// without a space (w/tmp/x) and the s flags combined (s/a/b/gew x), so
// only reading the script as sed does tells them apart from text.
type SedScript struct {
	Reads  []string // r and R files, and -f script files
	Writes []string // w and W files and the s command's w flag, but /dev/stdout and /dev/stderr (sed's own outputs)
	Runs   bool     // e, or the s command's e flag, runs a shell command
	// Err, when set, says why the script could not be read (a command sed
	// does not have, a script in a file, an option rein does not know):
	// what it does is then unknown.
	Err string
	// Dynamic: a word of the command is computed at run time, and the
	// script is read then, from the expanded argv (nothing else is set).
	Dynamic bool
}

// sedOptions are GNU sed's options (BSD sed's short ones are among them).
var sedOptions = optionSyntax{shortValue: "efl", optValue: "iI",
	longValue: []string{"--expression", "--file", "--line-length"},
	longOther: []string{"--quiet", "--silent", "--debug", "--sandbox", "--follow-symlinks", "--in-place", "--null-data", "--zero-terminated",
		"--posix", "--regexp-extended", "--separate", "--unbuffered", "--binary", "--help", "--version"}}

// Sed reads the script of a sed command line (argv[0] is sed): from -e and
// --expression, or its first operand; a -f script file is listed in Reads
// and leaves the script unknown.
func Sed(argv []string) SedScript {
	var out SedScript
	var script []string
	given := false // -e or -f: every operand is a file
	var operands []string
	take := func(option, value string) {
		switch option {
		case "-e", "--expression":
			script, given = append(script, value), true
		case "-f", "--file":
			out.Reads, given = append(out.Reads, value), true
		}
	}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case a == "--":
			operands = append(operands, argv[i+1:]...)
			i = len(argv)
		case strings.HasPrefix(a, "--"):
			written, value, has := strings.Cut(a, "=")
			name, ok := sedOptions.longOption(written)
			if !ok {
				out.Err = fmt.Sprintf("sed option %s is not one rein knows, or is short for several", a)
				return out
			}
			if !has && slices.Contains(sedOptions.longValue, name) && i+1 < len(argv) {
				i++
				value = argv[i]
			}
			take(name, value)
		case len(a) > 1 && a[0] == '-':
			for j := 1; j < len(a); j++ {
				c := a[j]
				if strings.IndexByte(sedOptions.optValue, c) >= 0 {
					break // -i.bak: the rest is the suffix
				}
				if strings.IndexByte(sedOptions.shortValue, c) < 0 {
					continue
				}
				value := a[j+1:]
				if value == "" && i+1 < len(argv) {
					i++
					value = argv[i]
				}
				take("-"+string(c), value)
				break
			}
		default:
			operands = append(operands, a)
		}
	}
	if !given {
		if len(operands) == 0 {
			return out // sed prints its usage
		}
		script = operands[:1]
	}
	if len(out.Reads) > 0 {
		out.Err = fmt.Sprintf("the script is read from %s, which rein does not read", strings.Join(out.Reads, ", "))
	}
	// -e fragments are joined by newlines, as sed joins them.
	r := sedReader{text: strings.Join(script, "\n"), out: &out}
	if err := r.read(); err != "" && out.Err == "" {
		out.Err = err
	}
	return out
}

// SedOf is Sed for an analysed command, whose words may be computed at run
// time. A word that is only a glob pattern (s/.*/x/e, unquoted) is read as
// written, which it stays unless it names files; runners read the
// expanded argv again.
func SedOf(c *Command) SedScript {
	argv, copied := c.Argv, false
	for i, w := range c.Words {
		switch {
		case w.Dynamic && !w.onlyGlob:
			return SedScript{Dynamic: true}
		case w.onlyGlob && i < len(argv) && argv[i] != w.Value:
			if !copied {
				argv, copied = slices.Clone(argv), true
			}
			argv[i] = w.Value
		}
	}
	return Sed(argv)
}

// sedReader reads a sed script as GNU sed compiles it (sed/compile.c).
type sedReader struct {
	text string
	pos  int
	out  *SedScript
}

func (r *sedReader) eof() bool { return r.pos >= len(r.text) }

func (r *sedReader) peek() byte {
	if r.eof() {
		return 0
	}
	return r.text[r.pos]
}

func (r *sedReader) skipBlanks() {
	for !r.eof() && (r.peek() == ' ' || r.peek() == '\t') {
		r.pos++
	}
}

// restOfLine is a file name or command: the rest of the line, after blanks.
func (r *sedReader) restOfLine() string {
	r.skipBlanks()
	end := strings.IndexByte(r.text[r.pos:], '\n')
	if end < 0 {
		end = len(r.text) - r.pos
	}
	s := r.text[r.pos : r.pos+end]
	r.pos += end
	return s
}

func (r *sedReader) read() string {
	for {
		for !r.eof() && strings.IndexByte(" \t\n;", r.peek()) >= 0 {
			r.pos++
		}
		if r.eof() {
			return ""
		}
		if r.peek() == '#' {
			r.restOfLine()
			continue
		}
		if err := r.addresses(); err != "" {
			return err
		}
		r.skipBlanks()
		for r.peek() == '!' {
			r.pos++
			r.skipBlanks()
		}
		if r.eof() {
			return "missing command"
		}
		if err := r.command(); err != "" {
			return err
		}
	}
}

// addresses skips up to two addresses (1, $, /re/I, \cREc, 1~2, +3, ~4).
func (r *sedReader) addresses() string {
	for n := 0; n < 2; n++ {
		switch c := r.peek(); {
		case c >= '0' && c <= '9' || c == '+' || c == '~' && n == 1:
			r.pos++
			for !r.eof() && (r.peek() >= '0' && r.peek() <= '9' || r.peek() == '~') {
				r.pos++
			}
		case c == '$':
			r.pos++
		case c == '/' || c == '\\':
			if c == '\\' {
				r.pos++
			}
			if r.eof() || r.peek() == '\n' {
				return "unterminated address"
			}
			delim := r.peek()
			r.pos++
			if !r.untilRegex(delim) {
				return "unterminated address regex"
			}
			for r.peek() == 'I' || r.peek() == 'M' {
				r.pos++
			}
		default:
			if n == 1 {
				return "unexpected ','"
			}
			return ""
		}
		r.skipBlanks()
		if n == 1 || r.peek() != ',' {
			return ""
		}
		r.pos++
		r.skipBlanks()
	}
	return ""
}

// until moves past the next unescaped delim; false at the end of the text.
func (r *sedReader) until(delim byte) bool {
	return r.scan(delim, false)
}

// untilRegex is until for a regular expression, where the delimiter stands
// for itself inside a bracket expression (s/[/]/x/), as GNU and BSD sed read it.
func (r *sedReader) untilRegex(delim byte) bool {
	return r.scan(delim, true)
}

func (r *sedReader) scan(delim byte, regex bool) bool {
	for !r.eof() {
		c := r.peek()
		r.pos++
		switch {
		case c == '\\' && !r.eof():
			r.pos++
		case c == delim:
			return true
		case c == '\n' && delim != '\n':
			return false
		case c == '[' && regex:
			if !r.bracket() {
				return false
			}
		}
	}
	return false
}

// bracket moves past a bracket expression whose [ was just read: a ] first
// (after ^) is literal, and [:class:], [=e=] and [.c.] may hold one.
func (r *sedReader) bracket() bool {
	t, j := r.text, r.pos
	if j < len(t) && t[j] == '^' {
		j++
	}
	if j < len(t) && t[j] == ']' {
		j++
	}
	for j < len(t) && t[j] != ']' {
		if t[j] == '\n' {
			return false
		}
		if t[j] == '[' && j+1 < len(t) && strings.IndexByte(":=.", t[j+1]) >= 0 {
			if end := strings.Index(t[j+2:], string(t[j+1])+"]"); end >= 0 {
				j += 2 + end + 2
				continue
			}
		}
		j++
	}
	if j >= len(t) {
		return false
	}
	r.pos = j + 1
	return true
}

func (r *sedReader) command() string {
	c := r.peek()
	r.pos++
	switch c {
	case '{', '}', '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
	case 'l', 'L', 'q', 'Q':
		r.skipBlanks()
		for r.peek() >= '0' && r.peek() <= '9' {
			r.pos++
		}
	case ':', 'b', 't', 'T', 'v':
		// GNU sed ends a label at a blank as well as at ; and a newline:
		// in ':a e id' the e command runs id. (BSD sed reads to the
		// newline; the shorter reading finds every command either runs.)
		r.skipBlanks()
		for !r.eof() && r.peek() != '\n' && r.peek() != ';' && r.peek() != ' ' && r.peek() != '\t' {
			r.pos++
		}
	case 'a', 'i', 'c':
		r.skipText()
	case 'r', 'R':
		if f := r.restOfLine(); f != "" {
			r.out.Reads = append(r.out.Reads, f)
		} else {
			return fmt.Sprintf("%c needs a file name", c)
		}
	case 'w', 'W':
		if f := r.restOfLine(); f != "" {
			r.write(f)
		} else {
			return fmt.Sprintf("%c needs a file name", c)
		}
	case 'e':
		r.restOfLine()
		r.out.Runs = true
	case 's':
		return r.substitute()
	case 'y':
		if r.eof() || r.peek() == '\n' || r.peek() == '\\' {
			return "y needs a delimiter"
		}
		delim := r.peek()
		r.pos++
		for part := 0; part < 2; part++ { // y/SOURCE/DEST/
			if !r.until(delim) {
				return "unterminated y command"
			}
		}
	default:
		return fmt.Sprintf("unknown command %q", c)
	}
	return ""
}

// skipText skips the text of a, i and c: to the end of the line, a line
// ending in a backslash going on to the next.
func (r *sedReader) skipText() {
	for !r.eof() {
		c := r.peek()
		r.pos++
		if c == '\\' && !r.eof() {
			r.pos++
			continue
		}
		if c == '\n' {
			return
		}
	}
}

func (r *sedReader) substitute() string {
	if r.eof() || r.peek() == '\n' || r.peek() == '\\' {
		return "s needs a delimiter"
	}
	delim := r.peek()
	r.pos++
	if !r.untilRegex(delim) {
		return "unterminated s command"
	}
	// The replacement (which spans lines only with backslash-newline).
	if !r.until(delim) {
		return "unterminated s command"
	}
	for !r.eof() {
		switch c := r.peek(); {
		case c == 'g' || c == 'p' || c == 'i' || c == 'I' || c == 'm' || c == 'M' || c >= '0' && c <= '9':
			r.pos++
		case c == 'e':
			r.pos++
			r.out.Runs = true
		case c == 'w':
			r.pos++
			f := r.restOfLine()
			if f == "" {
				return "the w flag needs a file name"
			}
			r.write(f)
			return ""
		case c == ';' || c == '\n' || c == '}' || c == '#' || c == ' ' || c == '\t':
			return ""
		default:
			return fmt.Sprintf("unknown option to s: %q", c)
		}
	}
	return ""
}

func (r *sedReader) write(f string) {
	if f == "/dev/stdout" || f == "/dev/stderr" {
		return // sed's own outputs, not files
	}
	r.out.Writes = append(r.out.Writes, f)
}
