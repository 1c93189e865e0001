package shellparse

import "strings"

// AwkProgram is what an awk program does besides reading its input and
// printing: whether it runs commands, writes files or reads files it was
// not given. awk is a language, and the same characters mean different
// things in it: > is a comparison in '$3 > 100' and an output redirection
// in 'print > "f"', | is a pipe except in ||, and / starts a regular
// expression or divides. Only reading the program as awk does tells them
// apart.
type AwkProgram struct {
	// Runs: system(), a pipe to or from a command (print | "cmd",
	// "cmd" | getline, gawk's |&), or gawk's @ (indirect calls, @include,
	// @load).
	Runs bool
	// Writes: print or printf redirected to a file (> or >>), or
	// close()/fflush(), which only matter to files and commands it opened.
	Writes bool
	// Reads: getline (from a file or a command), or ARGV, which changes
	// which files are read.
	Reads bool
	// Err says why the program could not be read (an unterminated string
	// or regular expression): what it does is then unknown.
	Err string
}

// Awk reads an awk program's text.
func Awk(text string) AwkProgram {
	budget := 64
	return awkRead(text, 0, awkState{printDepth: -1}, &budget)
}

// awkRead reads the program from i on. Where the text reads two ways it
// reads both: what either does counts, and a reading awk would refuse to
// compile (an error) counts only if both are refused.
func awkRead(text string, i int, st awkState, budget *int) AwkProgram {
	r := awkReader{text: text, budget: budget}
	r.scan(i, st)
	out := r.out
	for _, alt := range r.alts {
		switch {
		case alt.Err != "":
		case out.Err != "":
			out = alt
		default:
			out.Runs, out.Writes, out.Reads = out.Runs || alt.Runs, out.Writes || alt.Writes, out.Reads || alt.Reads
		}
	}
	return out
}

// awkReader reads one reading of a program.
type awkReader struct {
	text   string
	out    AwkProgram
	alts   []AwkProgram // the other readings, from where the text forked
	budget *int         // readings left to start
}

type awkState struct {
	// print and printf redirect at their own parenthesis depth, up to the
	// end of the statement; a > inside parentheses there is a comparison.
	printDepth int
	depth      int
	operand    bool // the last token ends an operand: a / after it divides
	closed     bool // ... and it was a ): awk's grammar may still want a regex
}

func (r *awkReader) scan(i int, st awkState) {
	text, out := r.text, &r.out
	for ; i < len(text) && out.Err == ""; i++ {
		c := text[i]
		closed := st.closed
		st.closed = false
		switch {
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
			i--
		case c == '"':
			j, ok := awkString(text, i)
			if !ok {
				out.Err = "a string is not closed"
				return
			}
			i, st.operand = j, true
		case c == '/' && st.operand && closed:
			// After if (x), awk reads /re/ as a pattern; after (a + b)
			// it divides. Both readings count.
			if *r.budget--; *r.budget < 0 {
				out.Err = "the program reads too many ways"
				return
			}
			if j, ok := awkRegex(text, i); ok {
				alt := st
				alt.operand = true
				a := awkRead(text, j+1, alt, r.budget)
				// What the reading did before the fork, it did too.
				a.Runs, a.Writes, a.Reads = a.Runs || out.Runs, a.Writes || out.Writes, a.Reads || out.Reads
				r.alts = append(r.alts, a)
			}
			st.operand = false
		case c == '/' && !st.operand:
			j, ok := awkRegex(text, i)
			if !ok {
				out.Err = "a regular expression is not closed"
				return
			}
			i, st.operand = j, true
		case c == '\\' && i+1 < len(text) && text[i+1] == '\n':
			i++ // a line continued
		case isAwkWordStart(c):
			j := i
			for j < len(text) && isAwkWord(text[j]) {
				j++
			}
			word := text[i:j]
			switch word {
			case "system":
				out.Runs = true
			case "getline", "ARGV", "ARGC":
				out.Reads = true
			case "close", "fflush":
				out.Writes = true
			case "print", "printf":
				if st.printDepth < 0 {
					st.printDepth = st.depth
				}
			}
			i, st.operand = j-1, !awkKeyword(word)
		case c >= '0' && c <= '9' || c == '.':
			for i+1 < len(text) && (isAwkWord(text[i+1]) || text[i+1] == '.') {
				i++
			}
			st.operand = true
		case c == '@':
			out.Runs = true
		case c == '|':
			if i+1 < len(text) && text[i+1] == '|' {
				i++
			} else {
				out.Runs = true
			}
			st.operand = false
		case c == '>':
			if st.printDepth >= 0 && st.depth == st.printDepth {
				out.Writes = true
			}
			if i+1 < len(text) && (text[i+1] == '>' || text[i+1] == '=') {
				i++
			}
			st.operand = false
		case c == '(' || c == '[':
			st.depth++
			st.operand = false
		case c == ')' || c == ']':
			st.depth--
			st.operand, st.closed = true, c == ')'
		case c == '\n' && awkContinues(text[:i]):
			// A line that ends in , && || { continues the statement.
		case c == ';' || c == '\n' || c == '{' || c == '}':
			if c != '\n' || st.depth <= st.printDepth {
				st.printDepth = -1
			}
			if c == '{' || c == '}' {
				st.depth = 0
			}
			st.operand = false
		case c == ' ' || c == '\t' || c == '\r':
			st.closed = closed
		default:
			st.operand = false // $ too: $/x/ is not a field
		}
	}
}

// awkContinues reports whether a line ending the text goes on in the next:
// it ends in a comma, && or ||.
func awkContinues(text string) bool {
	text = strings.TrimRight(text, " \t\r")
	return strings.HasSuffix(text, ",") || strings.HasSuffix(text, "&&") || strings.HasSuffix(text, "||")
}

// awkString returns the index of the quote that ends the string at i.
func awkString(text string, i int) (int, bool) {
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '"':
			return j, true
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

// awkRegex returns the index of the slash that ends the regular expression
// at i (a / inside brackets does not end it).
func awkRegex(text string, i int) (int, bool) {
	bracket := false
	for j := i + 1; j < len(text); j++ {
		switch text[j] {
		case '\\':
			j++
		case '[':
			bracket = true
		case ']':
			bracket = false
		case '/':
			if !bracket {
				return j, true
			}
		case '\n':
			return 0, false
		}
	}
	return 0, false
}

func isAwkWordStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isAwkWord(c byte) bool { return isAwkWordStart(c) || c >= '0' && c <= '9' }

// awkKeyword reports whether a word is a keyword after which an operand
// starts (so a / after it begins a regular expression).
func awkKeyword(w string) bool {
	switch w {
	case "print", "printf", "return", "in", "if", "while", "for", "do", "else", "case", "delete", "getline", "BEGIN", "END", "BEGINFILE", "ENDFILE":
		return true
	}
	return strings.HasPrefix(w, "func")
}
