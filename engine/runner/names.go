package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// Some programs take the names of the files they read from their input, not
// their argv: xargs builds command lines from it (`ls -a | xargs cat` reads
// .env, and the commands it starts are its children, not the shell's), and
// sort --files0-from=-, tar -T, rsync --files-from, zip -@ and cpio read the
// files it names. No check of argv sees those names. So before such a
// program runs, rein reads its input, refuses it when a word in it names a
// secret (or reaches one through a link), and hands the program the same
// bytes.

// maxNameInput bounds what rein reads ahead.
const maxNameInput = 16 << 20

// nameInput is where a program takes file names from and how it splits
// them (for xargs: what of its options matters for finding its words).
type nameInput struct {
	program string
	delim   string   // -d: the one separator; "" splits at blanks and newlines
	null    bool     // -0
	replace string   // -I: the marker replaced in the command's arguments
	file    string   // -a: input from this file instead of standard input
	command []string // the command xargs runs, with its arguments
}

// findNameInput returns the name input of the program argv runs, directly
// or through wrappers (nice xargs cat), and whether it takes one.
func findNameInput(argv []string) (nameInput, bool) {
	s := shellparse.AnalyzeArgv(argv, nil)
	for _, c := range s.Commands {
		x, ok := nameInputOf(c)
		if ok {
			x.program = c.Name
			return x, true
		}
	}
	return nameInput{}, false
}

func nameInputOf(c *shellparse.Command) (nameInput, bool) {
	switch c.Name {
	case "xargs":
		return parseXargs(c.Argv[1:]), true
	case "sort", "wc", "du":
		if f, ok := optionValue(c.Argv[1:], "--files0-from", ""); ok {
			return fileList(f, true), true
		}
	case "tar", "bsdtar", "gtar":
		if f, ok := optionValue(c.Argv[1:], "--files-from", "-T"); ok {
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
			return nameInput{}, false
		}
		x.replace, x.command = "{}", c.Argv[1:]
		return x, true
	case "git":
		// Objects named on input: echo HEAD:.env | git cat-file --batch.
		if c.Sub == "cat-file" && slices.ContainsFunc(c.Argv, func(a string) bool { return strings.HasPrefix(a, "--batch") }) {
			return fileList("-", false), true
		}
	}
	return nameInput{}, false
}

// fileList is a list of names read from file ("-": standard input).
func fileList(file string, null bool) nameInput {
	x := nameInput{null: null}
	if file != "-" {
		x.file = file
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

func parseXargs(args []string) nameInput {
	var x nameInput
	valued := "dIaLnsPE" // short options whose value may be the next word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			x.command = args[i+1:]
			return x
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			x.command = args[i:]
			return x
		}
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "--") {
			switch name {
			case "--delimiter":
				x.delim = unescapeDelim(value)
			case "--replace":
				x.replace = value
			case "--arg-file":
				x.file = value
			}
			continue
		}
		switch a {
		case "--null":
			x.null = true
			continue
		case "--replace":
			x.replace = "{}"
			continue
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		for j := 1; j < len(a); j++ {
			flag := a[j]
			switch {
			case flag == '0':
				x.null = true
			case flag == 'i':
				x.replace = "{}"
				if j+1 < len(a) {
					x.replace = a[j+1:]
				}
				j = len(a)
			case flag == 'e' || flag == 'l':
				j = len(a) // an optional value, attached
			case strings.IndexByte(valued, flag) >= 0:
				value := a[j+1:]
				if value == "" && i+1 < len(args) {
					i++
					value = args[i]
				}
				switch flag {
				case 'd':
					x.delim = unescapeDelim(value)
				case 'I':
					x.replace = value
				case 'a':
					x.file = value
				}
				j = len(a)
			}
		}
	}
	return x
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

// words are the candidate arguments xargs may make of its input: split
// every way it might split them, with quotes taken off, and put into the
// command's arguments where -I says.
func (x nameInput) words(input []byte) []string {
	text := string(input)
	seps := func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == 0 }
	var parts []string
	switch {
	case x.null:
		parts = strings.Split(text, "\x00")
	case x.delim != "":
		parts = strings.Split(text, x.delim)
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
			if x.replace == "" {
				continue
			}
			for _, arg := range x.command {
				if strings.Contains(arg, x.replace) {
					out = append(out, strings.ReplaceAll(arg, x.replace, w))
				}
			}
		}
	}
	return out
}

// guardNameInput reads ahead the name input of the program argv runs. It
// returns the reader the program should get instead of stdin (nil when it
// takes no names from stdin), or a denial when the input names a secret.
func (r *Runner) guardNameInput(argv []string, dir string, stdin io.Reader) (io.Reader, *policy.Decision, error) {
	x, ok := findNameInput(argv)
	if !ok {
		return nil, nil, nil
	}
	var input []byte
	var err error
	switch {
	case x.file != "":
		input, err = readFile(resolveIn(x.file, dir))
	case stdin != nil:
		input, err = readBounded(stdin)
	}
	if err != nil {
		return nil, nil, err
	}
	p := r.policy.In(dir)
	deny := func(reason string) *policy.Decision {
		return &policy.Decision{Command: shellparse.JoinArgv(argv), Verdict: policy.Deny, Rule: "paths.deny", Reason: reason}
	}
	for _, w := range x.words(input) {
		if pat, ok := p.SecretWord(w); ok {
			return nil, deny(fmt.Sprintf("the file list given to %s names %s, which matches the secret path %s", x.program, w, pat)), nil
		}
		if _, err := os.Lstat(resolveIn(w, dir)); err != nil {
			continue
		}
		if real, linked := throughLinks(w, dir); linked {
			if pat, ok := p.SecretWord(real); ok {
				return nil, deny(fmt.Sprintf("the file list given to %s names %s, which leads to %s, matching the secret path %s", x.program, w, real, pat)), nil
			}
		}
	}
	if x.file != "" || stdin == nil {
		return nil, nil, nil
	}
	return bytes.NewReader(input), nil, nil
}

func readFile(path string) ([]byte, error) {
	f, err := os.Open(filepath.Clean(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readBounded(f)
}

// readBounded reads all of rd, refusing input longer than maxNameInput.
func readBounded(rd io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxNameInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxNameInput {
		return nil, fmt.Errorf("a file list longer than %d MiB; rein reads lists of file names ahead to check them for secrets", maxNameInput>>20)
	}
	return b, nil
}
