package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// A program that takes file names from a list (shellparse.NameInput) reads
// files no check of its argv saw. So before it runs, rein reads the list,
// refuses it when a word in it names a secret (or reaches one through a
// link), and hands the program the same bytes.

// maxNameInput bounds what rein reads ahead.
const maxNameInput = 16 << 20

// findNameInput returns the name input of the program argv runs, directly
// or through wrappers (nice xargs cat), the program, and whether it takes one.
func findNameInput(argv []string) (shellparse.NameInput, string, bool) {
	for _, c := range shellparse.AnalyzeArgv(argv, nil).Commands {
		if x, ok := shellparse.NameInputOf(c); ok {
			return x, c.Name, true
		}
	}
	return shellparse.NameInput{}, "", false
}

// guardNameInput reads ahead the name input of the program argv runs. It
// returns the reader the program should get instead of stdin (nil when it
// takes no names from stdin), or a denial when the input names a secret.
func (r *Runner) guardNameInput(ctx context.Context, argv, original []string, dir string, stdin io.Reader) (io.Reader, *policy.Decision, error) {
	x, program, ok := findNameInput(argv)
	if !ok {
		return nil, nil, nil
	}
	var input []byte
	var err error
	switch {
	case x.File != "":
		input, err = readFile(resolveIn(x.File, dir))
	case stdin != nil:
		input, err = readBounded(stdin)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot check the file names %s reads: %w", program, err)
	}
	p := r.policy.In(dir)
	words := x.Words(input)
	if why := secretAmong(p, words, dir); why != "" {
		return nil, pathsDenial(argv, "the file list given to %s names %s", program, why), nil
	}
	if x.Xargs {
		if ox, _, ok := findNameInput(original); ok && ox.Xargs {
			x = ox
		}
		if d := r.vetXargs(x, input, argv, dir); d != nil {
			return nil, d, nil
		}
	}
	// Object ids on the input: git cat-file --batch, xargs git show. (The
	// words hold each name in several readings: one of each will do.)
	if program == "git" || slices.ContainsFunc(x.Command, func(a string) bool { return strings.TrimSuffix(filepath.Base(a), ".exe") == "git" }) {
		words = slices.Compact(slices.Sorted(slices.Values(words)))
		receiver, names := x.Command, []string(nil)
		if program == "git" {
			receiver, names = argv, words
		} else {
			receiver = append(receiver[:len(receiver):len(receiver)], words...)
		}
		if d := r.guardGitObjects(ctx, receiver, dir, names); d != nil {
			d.Command = shellparse.JoinArgv(argv)
			return nil, d, nil
		}
	}
	if x.File != "" || stdin == nil {
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
		return nil, fmt.Errorf("the list is longer than %d MiB (rein reads it ahead to check it for secrets); give the names in smaller batches", maxNameInput>>20)
	}
	return b, nil
}

// secretAmong returns why one of words names a secret, as a path from dir
// or through a symbolic link ("", when none does).
func secretAmong(p *policy.Policy, words []string, dir string) string {
	for _, w := range words {
		if pat, ok := p.SecretWord(w); ok {
			return fmt.Sprintf("%s, which matches the secret path %s", w, pat)
		}
		if _, err := os.Lstat(resolveIn(w, dir)); err != nil {
			continue
		}
		if real, linked := throughLinks(w, dir); linked {
			if pat, ok := p.SecretWord(real); ok {
				return fmt.Sprintf("%s, which leads to %s, matching the secret path %s", w, real, pat)
			}
		}
	}
	return ""
}

// maxResponseFiles bounds how many response files one command may name,
// nested ones included.
const maxResponseFiles = 32

// guardResponseFiles refuses a command whose response files (strings
// @FILE: shellparse.ResponseFiles) name a secret, directly or in a nested
// @FILE. A response file that cannot be read is left to the program.
func (r *Runner) guardResponseFiles(argv []string, dir string) *policy.Decision {
	p := r.policy.In(dir)
	for _, c := range shellparse.AnalyzeArgv(argv, nil).Commands {
		files := shellparse.ResponseFiles(c)
		for i := 0; i < len(files); i++ {
			if i == maxResponseFiles {
				return pathsDenial(argv, "%s names more than %d response files (@FILE) for rein to check", c.Name, maxResponseFiles)
			}
			if why := secretAmong(p, files[i:i+1], dir); why != "" {
				return pathsDenial(argv, "%s reads the response file @%s", c.Name, why)
			}
			input, err := readFile(resolveIn(files[i], dir))
			if err != nil {
				continue
			}
			words := shellparse.NameInput{}.Words(input)
			if why := secretAmong(p, words, dir); why != "" {
				return pathsDenial(argv, "the response file @%s given to %s names %s", files[i], c.Name, why)
			}
			for _, w := range words {
				if len(w) > 1 && w[0] == '@' {
					files = append(files, w[1:])
				}
			}
		}
	}
	return nil
}

// pathsDenial is the decision of a run-time guard that refuses argv for
// what it would read (rule paths.deny, as vetting names it).
func pathsDenial(argv []string, format string, args ...any) *policy.Decision {
	return &policy.Decision{Command: shellparse.JoinArgv(argv), Verdict: policy.Deny, Rule: "paths.deny", Reason: fmt.Sprintf(format, args...)}
}

// maxDashItems bounds the items that look like options in xargs's input
// when its batches are not known (each is vetted as starting one).
const maxDashItems = 64

// vetXargs vets the commands xargs will build from its input, each with
// the full policy: the items become arguments (printf -- '-i s/x/y/ f' |
// xargs sed is sed -i), options included. Where xargs batches by size, an
// item may start a command, so each that looks like an option is vetted
// as starting one too.
func (r *Runner) vetXargs(x shellparse.NameInput, input []byte, argv []string, dir string) *policy.Decision {
	cmds, exact, err := x.Commands(input)
	if err != nil {
		return &policy.Decision{Command: shellparse.JoinArgv(argv), Verdict: policy.Deny, Rule: "xargs.input", Reason: err.Error() + "; quote the names with -0 or -d '\\n'"}
	}
	if !exact && len(cmds) == 1 {
		items := cmds[0][max(len(x.Command), 1):]
		dashes := 0
		for k, item := range items {
			if k == 0 || !strings.HasPrefix(item, "-") {
				continue
			}
			if dashes++; dashes > maxDashItems {
				return &policy.Decision{Command: shellparse.JoinArgv(argv), Verdict: policy.Deny, Rule: "xargs.input",
					Reason: fmt.Sprintf("xargs's input has more than %d words that look like options, and xargs may start a command at any of them; give them to the command directly, after --", maxDashItems)}
			}
			cmds = append(cmds, append(cmds[0][:len(cmds[0])-len(items):len(cmds[0])-len(items)], items[k:]...))
		}
	}
	for _, cmd := range cmds {
		d := r.checkArgv(cmd, nil, dir)
		if d.Verdict == policy.Allow {
			continue
		}
		out := *d
		out.Command = shellparse.JoinArgv(argv)
		out.Verdict = policy.Deny
		out.Reason = fmt.Sprintf("with its input, xargs would run %s: %s", shellparse.JoinArgv(cmd), d.Reason)
		return &out
	}
	return nil
}
