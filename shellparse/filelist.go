package shellparse

import (
	"slices"
	"strings"
)

// NameInput is where a program takes the names of the files it reads from
// when they are not in its argv: xargs builds command lines from its input
// (`ls -a | xargs cat`), and sort --files0-from=-, tar -T, rsync
// --files-from, zip -@, cpio -o, parallel and git cat-file --batch read
// what their input names. No check of argv sees those names.
type NameInput struct {
	File    string   // the list is this file; "" is standard input
	Null    bool     // names end at NUL (-0, --files0-from)
	Delim   string   // names end at this separator (xargs -d); "" with Null false: blanks and newlines
	Replace string   // the marker replaced in Command's arguments (xargs -I, parallel {})
	Command []string // the command that gets the names, with its arguments

	// How xargs batches what it reads (xargs.go): lines or arguments per
	// command (-L, -n), an end-of-input word (-E), and whether -s bounds
	// a command's size. Xargs is set for xargs alone.
	Xargs    bool
	MaxLines int
	MaxArgs  int
	Sized    bool
	EOF      string
}

// xargsInput reads xargs's options with the syntax unwrapping uses.
func xargsInput(c *Command) NameInput {
	syn, _ := wrapperSyntax("xargs")
	o := skipOptions(c.Words, *syn, true)
	next, opts := o.next, o.values
	x := NameInput{Command: c.Argv[next:], Xargs: true}
	for opt, value := range opts {
		switch opt {
		case "-L", "--max-lines", "-l":
			x.MaxLines = max(1, atoiOr(value, 1))
		case "-n", "--max-args":
			x.MaxArgs = max(1, atoiOr(value, 1))
		case "-s", "--max-chars":
			x.Sized = true
		case "-E", "-e", "--eof":
			x.EOF = value
		case "-0", "--null":
			x.Null = true
		case "-d", "--delimiter":
			x.Delim = unescapeDelim(value)
		case "-I", "--replace", "-i":
			x.Replace = value
			if x.Replace == "" && opt != "-I" {
				x.Replace = "{}"
			}
		case "-a", "--arg-file":
			x.File = value
		}
	}
	return x
}

// NameInputOf tells whether c takes the names of files it reads from a
// list (standard input or a file) rather than its argv, and how to read it.
func NameInputOf(c *Command) (NameInput, bool) {
	switch c.Name {
	case "xargs":
		return xargsInput(c), true
	case "sort", "wc", "du":
		if f, ok := optionValue(fullOptions(c.Name, c.Argv)[1:], "--files0-from", ""); ok {
			return fileList(f, true), true
		}
	case "tar", "bsdtar", "gtar":
		if f, ok := optionValue(fullOptions(c.Name, c.Argv)[1:], "--files-from", "-T"); ok {
			return fileList(f, false), true
		}
	case "rsync":
		if f, ok := optionValue(c.Argv[1:], "--files-from", ""); ok {
			return fileList(f, false), true
		}
	case "zip":
		if slices.Contains(c.Argv[1:], "-@") {
			return fileList("-", false), true
		}
	case "cpio":
		// cpio -o (--create) archives the files named on its input.
		if slices.ContainsFunc(c.Argv[1:], func(a string) bool {
			return a == "--create" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'o') > 0
		}) {
			return fileList("-", false), true
		}
	case "parallel":
		// Like xargs: a command per input line (or per line of the file
		// after ::::), {} replaced by it; ::: gives them on the command line.
		x := fileList("-", false)
		if k := slices.Index(c.Argv, "::::"); k >= 0 && k+1 < len(c.Argv) {
			x = fileList(c.Argv[k+1], false)
		} else if slices.Contains(c.Argv, ":::") {
			return NameInput{}, false
		}
		x.Replace, x.Command = "{}", c.Argv[1:]
		return x, true
	case "git":
		// Objects named on input: echo HEAD:.env | git cat-file --batch.
		if GitSubcommand(c.Argv) == "cat-file" && slices.ContainsFunc(c.Argv, func(a string) bool { return strings.HasPrefix(a, "--batch") }) {
			return fileList("-", false), true
		}
	}
	return NameInput{}, false
}

// fileList is a list of names read from file ("-": standard input).
func fileList(file string, null bool) NameInput {
	x := NameInput{Null: null}
	if file != "-" {
		x.File = file
	}
	return x
}

// optionValue finds --long=VALUE, --long VALUE or -S VALUE (-SVALUE).
func optionValue(args []string, long, short string) (string, bool) {
	for i, a := range args {
		switch {
		case a == "--":
			return "", false
		case strings.HasPrefix(a, long+"="):
			return a[len(long)+1:], true
		case a == long || short != "" && a == short:
			if i+1 < len(args) {
				return args[i+1], true
			}
		case short != "" && strings.HasPrefix(a, short) && len(a) > len(short):
			return a[len(short):], true
		}
	}
	return "", false
}

func unescapeDelim(d string) string {
	switch d {
	case `\n`:
		return "\n"
	case `\t`:
		return "\t"
	case `\0`:
		return "\x00"
	}
	return d
}

// Words are the candidate arguments xargs may make of its input: split
// every way it might split them, with quotes taken off, and put into the
// command's arguments where -I says.
func (x NameInput) Words(input []byte) []string {
	text := string(input)
	seps := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == 0 }
	var parts []string
	switch {
	case x.Null:
		parts = strings.Split(text, "\x00")
	case x.Delim != "":
		parts = strings.Split(text, x.Delim)
	default:
		parts = strings.FieldsFunc(text, seps)
		parts = append(parts, strings.Split(text, "\n")...) // -I and -L take whole lines
	}
	var out []string
	for _, p := range parts {
		for _, w := range []string{p, strings.Trim(p, `"'`), strings.NewReplacer(`"`, "", `'`, "", `\`, "").Replace(p), strings.TrimSpace(p)} {
			if w == "" {
				continue
			}
			out = append(out, w)
			if x.Replace == "" {
				continue
			}
			for _, arg := range x.Command {
				if strings.Contains(arg, x.Replace) {
					out = append(out, strings.ReplaceAll(arg, x.Replace, w))
				}
			}
		}
	}
	return out
}
