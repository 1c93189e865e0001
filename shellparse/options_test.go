package shellparse

import (
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/programs"
)

// Wrappers read their long options as getopt_long does: an abbreviation is
// the option it is short for, so the command the wrapper runs is found
// after that option's value. Each case is checked against the program's
// real behaviour (coreutils 9.1, findutils 4.9, util-linux 2.38, procps 4.0).
func TestWrapperLongOptions(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // the command the wrapper runs, as cmdSummary gives it
	}{
		{"env abbreviated --unset takes a value", "env --uns ls rm -rf x", "rm -rf x [via env]"},
		{"env --unset in full", "env --unset ls rm -rf x", "rm -rf x [via env]"},
		{"env abbreviated --split-string", "env --split-str='rm -rf x'", "rm -rf x [via env -S]"},
		{"env abbreviated --chdir", "env --ch src rm x", "rm x [via env]"},
		{"env flag abbreviated", "env --null rm x", "rm x [via env]"},
		{"env - is env -i", "env - PATH=/bin rm x", "rm x [via env]"},
		{"nice abbreviated --adjustment", "nice --adj 5 rm x", "rm x [via nice]"},
		{"timeout abbreviated --signal", "timeout --sig KILL 5 rm x", "rm x [via timeout]"},
		{"timeout abbreviated --kill-after", "timeout --k 1 5 rm x", "rm x [via timeout]"},
		{"stdbuf abbreviated --output", "stdbuf --out L rm x", "rm x [via stdbuf]"},
		{"xargs abbreviated --arg-file", "xargs --arg-f list rm x", "rm x [via xargs]"},
		{"xargs abbreviated --delimiter", "xargs --del , rm", "rm [via xargs]"},
		{"xargs --replace takes its value only after =", "xargs --replace rm {}", "rm {} [via xargs]"},
		{"sudo abbreviated --user", "sudo --us root rm x", "rm x [via sudo]"},
		{"sudo -k still runs the command", "sudo -k rm x", "rm x [via sudo]"},
		{"time abbreviated --output", "command time --out f rm x", "rm x [via command → time]"},
		{"flock --command after the lock file", "flock lock --command 'rm x'", "rm x [via flock -c]"},
		{"flock abbreviated --timeout", "flock --time 5 lock rm x", "rm x [via flock]"},
		{"flock -c attached", "flock -c'rm x' lock", "rm x [via flock -c]"},
		{"watch abbreviated --interval", "watch --int 1 'rm x'", "rm x [via watch]"},
		{"watch abbreviated --exec", "watch --ex rm x", "rm x [via watch -x]"},
		{"watch -n value in the cluster", "watch -n1x 'rm x'", "rm x [via watch]"},
		{"parallel abbreviated --tmpdir", "parallel --tmpd /tmp rm ::: a", "rm [via parallel]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			var got []string
			for _, c := range s.Commands {
				got = append(got, cmdSummary(c))
			}
			norm := strings.NewReplacer(`'`, "", `"`, "")
			if len(got) == 0 || norm.Replace(got[len(got)-1]) != norm.Replace(tt.want) {
				t.Errorf("commands = %q, want the last to be %q (findings %+v)", got, tt.want, s.Findings)
			}
			for _, f := range s.Findings {
				if f.Kind == FindingUnknownOption {
					t.Errorf("unexpected finding: %s", f.Message)
				}
			}
		})
	}
}

// An option rein cannot read leaves the wrapped command unknown: a finding,
// which policies deny, and no guess at the command.
func TestWrapperUnknownOptions(t *testing.T) {
	tests := []struct {
		name, in, message string
	}{
		{"not an option of env", "env --bogus ls", "not an option rein knows env to have"},
		{"short for several", "env --i ls", "short for several of its options (--ignore-environment, --ignore-signal)"},
		{"computed option", `env "--$Z" ls`, "computed at run time"},
		{"computed option name", "env --u$Y ls", "computed at run time"},
		{"nice has one long option", "nice --bogus 5 ls", "not an option rein knows nice to have"},
		{"ssh has no long options", "ssh --foo host ls", "not an option rein knows ssh to have"},
		{"command has no long options", "command --foo ls", "not an option rein knows command to have"},
		{"flock", "flock --bogus lock ls", "not an option rein knows flock to have"},
		{"flock --command before the lock file is no option", "flock --comm 'rm -rf x' ls", "not an option rein knows flock to have"},
		{"watch", "watch --bogus ls", "not an option rein knows watch to have"},
		{"parallel option rein does not read", "parallel --semaphore rm ::: a", "not an option rein knows parallel to have"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			for _, f := range s.Findings {
				if f.Kind == FindingUnknownOption && strings.Contains(f.Message, tt.message) {
					if len(s.Commands) != 1 {
						t.Errorf("commands = %d, want only the wrapper", len(s.Commands))
					}
					return
				}
			}
			t.Errorf("findings = %+v, want %s: %q", s.Findings, FindingUnknownOption, tt.message)
		})
	}
}

func TestStaticOption(t *testing.T) {
	for raw, want := range map[string]bool{"--unset=$X": true, "--u$Y": false, `"--$Z"`: false, "--unset": false, "-u$X": false, "--a'b'=c": false} {
		if got := staticOption(raw); got != want {
			t.Errorf("staticOption(%q) = %v, want %v", raw, got, want)
		}
	}
}

// Every wrapper the program table knows takes its options from the table,
// and lists none of its own (refine panics otherwise).
func TestWrappersTakeTheirOptionsFromTheTable(t *testing.T) {
	for name := range wrappers {
		syn, ok := wrapperSyntax(name)
		if !ok || syn == nil {
			t.Fatalf("%s: no syntax", name)
		}
		if programs.Lookup(name) != nil && !syn.known {
			t.Errorf("%s: the table knows it, its syntax does not", name)
		}
	}
}
