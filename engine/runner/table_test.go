package runner_test

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// The program table is held to the programs installed here, option by
// option: each option the table lists must be one the program takes, and
// take a value exactly when the table says it does. A table that reads
// -T as a flag where sort takes a value would read the word after it as an
// option (or not) where sort does the other. The programs answer in the
// sandbox; options that write, run or read code are not asked.
func TestTableAgreesWithPrograms(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("asks the real programs (and not under the race detector, which finds nothing here)")
	}
	if st := sandbox.Probe(); !st.Available() {
		t.Skip("asks programs only under the sandbox")
	}
	// GNU getopt_long programs, whose messages say what an option is.
	progs := []string{"ls", "cat", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "nl", "tac", "paste", "comm", "join", "fold",
		"md5sum", "sha1sum", "sha256sum", "cksum", "od", "stat", "du", "df", "basename", "dirname", "realpath", "readlink", "whoami",
		"id", "uname", "nproc", "printenv", "seq", "grep", "sed", "diff", "cmp", "file", "strings", "hexdump", "column", "rev", "env", "nice", "xargs"}
	r, _ := sandboxed(t, `{ allow: ['*'], shell: { unknown_option: 'allow', redirect_write: 'allow', redirect_read: 'allow' } }`, nil)
	asked := 0
	for _, name := range progs {
		if _, err := exec.LookPath(name); err != nil {
			continue
		}
		spec := programs.Lookup(name)
		if spec == nil {
			t.Errorf("%s is not in the table", name)
			continue
		}
		type probe struct {
			word string
			opt  *programs.Option
			with bool // the word gives a value (--name=x)
		}
		var probes []probe
		for _, o := range spec.Options {
			if o.Effect&^programs.Reads != 0 {
				continue
			}
			for _, n := range o.Names {
				if n == "--help" || n == "--version" || n == "-h" || n == "-V" || n == "-v" && o.Name() == "--version" {
					continue
				}
				probes = append(probes, probe{n, o, false})
				if strings.HasPrefix(n, "--") && o.Arity != programs.Required {
					probes = append(probes, probe{n + "=x", o, true})
				}
			}
		}
		var script strings.Builder
		for _, p := range probes {
			fmt.Fprintf(&script, "LC_ALL=C timeout 3 %s %s </dev/null 2>&1; echo @@\n", name, p.word) // tail -f waits
		}
		res := r.Run(context.Background(), script.String(), runner.RunOptions{Timeout: 2 * time.Minute, Approved: true})
		if res.DeniedBy != "" || res.Error != "" {
			t.Fatalf("%s: %s %s", name, res.DeniedBy, res.Error)
		}
		answers := strings.Split(res.Stdout, "@@\n")
		for i, p := range probes {
			if i >= len(answers) {
				t.Errorf("%s %s: no answer", name, p.word)
				continue
			}
			asked++
			a := answers[i]
			switch {
			case strings.Contains(a, "invalid option") || strings.Contains(a, "unrecognized option") || strings.Contains(a, "unknown option"):
				t.Errorf("%s %s: the table lists it, %s does not take it: %q", name, p.word, name, firstLine(a))
			case p.with && p.opt.Arity == programs.NoValue && !strings.Contains(a, "doesn't allow an argument"):
				t.Errorf("%s %s: the table says it takes no value, %s takes one: %q", name, p.word, name, firstLine(a))
			case p.with && p.opt.Arity == programs.Optional && strings.Contains(a, "doesn't allow an argument"):
				t.Errorf("%s %s: the table says it takes a value, %s takes none", name, p.word, name)
			case !p.with && p.opt.Arity == programs.Required && !strings.Contains(a, "requires an argument"):
				t.Errorf("%s %s: the table says it needs a value, %s runs without one: %q", name, p.word, name, firstLine(a))
			case !p.with && p.opt.Arity != programs.Required && strings.Contains(a, "requires an argument"):
				t.Errorf("%s %s: %s needs a value the table does not give it", name, p.word, name)
			}
		}
	}
	t.Logf("%d options asked", asked)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
