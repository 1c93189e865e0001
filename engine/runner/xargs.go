package runner

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// xargs builds command lines from its input, which no check of its argv
// sees: `ls -a | xargs cat` reads .env, and the commands it starts are its
// children, not the shell's. So before xargs runs, rein reads that input,
// refuses it when a word in it names a secret (or reaches one through a
// link), and hands xargs the same bytes.

// maxXargsInput bounds what rein reads ahead for xargs.
const maxXargsInput = 16 << 20

// xargsSpec is what of xargs's options matters for finding its words.
type xargsSpec struct {
	delim   string   // -d: the one separator; "" splits at blanks and newlines
	null    bool     // -0
	replace string   // -I: the marker replaced in the command's arguments
	file    string   // -a: input from this file instead of standard input
	command []string // the command xargs runs, with its arguments
}

// findXargs returns the spec of the xargs that argv runs, directly or
// through wrappers (nice xargs cat), and whether it runs one.
func findXargs(argv []string) (xargsSpec, bool) {
	s := shellparse.AnalyzeArgv(argv, nil)
	for _, c := range s.Commands {
		if c.Name == "xargs" {
			return parseXargs(c.Argv[1:]), true
		}
	}
	return xargsSpec{}, false
}

func parseXargs(args []string) xargsSpec {
	var x xargsSpec
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
func (x xargsSpec) words(input []byte) []string {
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

// guardXargs reads ahead the input of an xargs that argv runs. It returns
// the reader xargs should get instead of stdin (nil when argv runs no xargs
// or xargs reads a file), or a denial when the input names a secret.
func (r *Runner) guardXargs(argv []string, dir string, stdin io.Reader) (io.Reader, *policy.Decision, error) {
	x, ok := findXargs(argv)
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
			return nil, deny(fmt.Sprintf("xargs was given %s, which matches the secret path %s", w, pat)), nil
		}
		if _, err := os.Lstat(resolveIn(w, dir)); err != nil {
			continue
		}
		if real, linked := throughLinks(w, dir); linked {
			if pat, ok := p.SecretWord(real); ok {
				return nil, deny(fmt.Sprintf("xargs was given %s, which leads to %s, matching the secret path %s", w, real, pat)), nil
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

// readBounded reads all of rd, refusing input longer than maxXargsInput.
func readBounded(rd io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(rd, maxXargsInput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxXargsInput {
		return nil, fmt.Errorf("xargs input is longer than %d MiB; rein reads it ahead to check it for secret file names", maxXargsInput>>20)
	}
	return b, nil
}
