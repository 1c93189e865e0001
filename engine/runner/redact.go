package runner

import (
	"bytes"
	"io"
	"regexp"
	"slices"

	"github.com/reinsh/rein/shellparse"
)

// Commands that print configuration print where credentials live: git
// config, git remote and git var the token a CI checkout leaves as an http
// extraheader (AUTHORIZATION: basic ...) and passwords and tokens in remote
// URLs (https://user:token@host); env, printenv and go env the same in a
// GOPROXY or a database URL passed on; npm and pip config their registries.
// .git/config itself is a secret path; what these print has the
// credentials hidden, line by line, and rein says so. (Not every program's
// output: a file printed with its credentials hidden would be written back
// hidden by whoever edits it.)

// printsConfiguration reports whether argv runs, directly or through
// wrappers, a command that prints configuration values.
func printsConfiguration(argv []string) bool {
	cmds := shellparse.AnalyzeArgv(argv, nil).Commands
	for _, c := range cmds {
		switch c.Name {
		case "git":
			if sub := shellparse.GitSubcommand(c.Argv); sub == "config" || sub == "remote" || sub == "var" {
				return true
			}
		case "printenv":
			return true
		case "env":
			if !slices.ContainsFunc(cmds, func(inner *shellparse.Command) bool { return slices.Contains(inner.Via, "env") }) {
				return true // env running no command prints the environment
			}
		case "go", "npm", "pnpm", "yarn", "pip", "pip3":
			if c.Sub == "env" || c.Sub == "config" {
				return true
			}
		}
	}
	return false
}

var (
	urlUserinfo = regexp.MustCompile(`([a-zA-Z][a-zA-Z0-9+.-]*://)[^/\s@]+@`)
	authHeader  = regexp.MustCompile(`(?i)(authorization:[ \t]*(?:(?:basic|bearer|token|digest)[ \t]+)?)[^\s\x00]+`)
)

// redactCredentials hides URL user information and Authorization header
// values in one line, and reports whether it hid any.
func redactCredentials(line []byte) ([]byte, bool) {
	out := urlUserinfo.ReplaceAll(line, []byte("${1}***@"))
	out = authHeader.ReplaceAll(out, []byte("${1}***"))
	return out, !bytes.Equal(out, line)
}

// redactingWriter passes what is written to w a line at a time, with
// credentials hidden. Close passes on an unfinished last line.
type redactingWriter struct {
	w   io.Writer
	buf []byte
	hid bool // some credential was hidden
}

// maxRedactLine bounds the line kept back: a longer one is passed on in
// pieces (each still redacted).
const maxRedactLine = 64 << 10

func (r *redactingWriter) Write(p []byte) (int, error) {
	r.buf = append(r.buf, p...)
	for {
		i := bytes.IndexByte(r.buf, '\n')
		if i < 0 {
			if len(r.buf) < maxRedactLine {
				return len(p), nil
			}
			i = len(r.buf) - 1
		}
		if err := r.pass(r.buf[:i+1]); err != nil {
			return len(p), err
		}
		r.buf = r.buf[i+1:]
	}
}

func (r *redactingWriter) pass(line []byte) error {
	out, hid := redactCredentials(line)
	r.hid = r.hid || hid
	_, err := r.w.Write(out)
	return err
}

// Close passes on what is left.
func (r *redactingWriter) Close() error {
	if len(r.buf) == 0 {
		return nil
	}
	err := r.pass(r.buf)
	r.buf = nil
	return err
}

// hiddenNote is what rein adds to standard error when it hid credentials.
const hiddenNote = "rein: credentials in the output were hidden (passwords and tokens in URLs, Authorization headers)\n"

// finishRedacting passes on the last lines of standard output and error
// and notes on stderr that credentials were hidden, if they were.
func finishRedacting(rw, re *redactingWriter, stderr io.Writer) {
	rw.Close()
	re.Close()
	if rw.hid || re.hid {
		io.WriteString(stderr, hiddenNote)
	}
}
