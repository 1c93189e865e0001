package policy_test

import (
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// A denied flag is denied however the program would read it. Each attack
// here ran before the fix: sed --in-pl edited a file in place under
// readonly, sort --outp wrote one, git grep --open-files=CMD ran CMD, go
// test --exec=CMD ran CMD.
func TestDeniedFlagSpellings(t *testing.T) {
	tests := []struct {
		name, preset, command, rule string
	}{
		{"GNU abbreviation of --in-place", "readonly", "sed --in-pl s/a/b/ f", "programs.sed.deny_flags"},
		{"shortest abbreviation", "readonly", "sed --in s/a/b/ f", "programs.sed.deny_flags"},
		{"abbreviation with a value", "readonly", "sed --fil=x.sed f", "programs.sed.deny_flags"},
		{"abbreviation of --output", "readonly", "sort --outp=x f", "programs.sort.deny_flags"},
		{"abbreviation of --compress-program", "readonly", "sort --compress-prog=sh f", "programs.sort.deny_flags"},
		{"value attached in a cluster", "readonly", "sort -no=x f", "programs.sort.deny_flags"},
		{"abbreviation of date --set", "readonly", "date --se=2020-01-01", "programs.date.deny_flags"},
		{"git parse-options abbreviation", "readonly", "git grep --open-files=id x", "programs.git.deny_flags"},
		{"git abbreviation without =", "readonly", "git grep --open x", "programs.git.deny_flags"},
		{"abbreviation of env --split-string", "readonly", "env --split 'ls -la'", "programs.env.deny_flags"},
		{"Go reads --exec as -exec", "go", "go test --exec=sh ./...", "programs.go.deny_flags"},
		{"Go --toolexec", "go", "go build --toolexec x .", "programs.go.deny_flags"},
		{"Go -vettool", "go", "go vet -vettool=x .", "programs.go.deny_flags"},
		{"Go reads --o= as -o", "go", "go test -c --o=/tmp/x .", "go-writes-outside"},
		{"find primary with two dashes", "readonly", "find . --fprint x", "programs.find.deny_flags"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := presetPolicy(t, tt.preset).Check(tt.command)
			if d.Verdict != policy.Deny || d.Rule != tt.rule {
				t.Errorf("%s: %s by %s (%s), want deny by %s", tt.command, d.Verdict, d.Rule, d.Reason, tt.rule)
			}
		})
	}
}

// Flags that are not another spelling of a denied one stay allowed; in
// particular a Go program's -count is one flag, not the cluster -c -o ...
// (go test -count=1 was denied as -o).
func TestFlagSpellingsAllowed(t *testing.T) {
	wantVerdicts(t, presetPolicy(t, "readonly"), map[string]policy.Verdict{
		"sort -n f": policy.Allow, "sort --numeric-sort f": policy.Allow, "sed -n p f": policy.Allow,
		"git log --oneline": policy.Allow, "find . -name x -print": policy.Allow,
	})
	wantVerdicts(t, presetPolicy(t, "go"), map[string]policy.Verdict{
		"go test -count=1 ./...": policy.Allow, "go test -cover -json ./...": policy.Allow, "go test --run=X ./...": policy.Allow,
	})
}

// hasFlag in rules reads the same spellings.
func TestHasFlagSpellings(t *testing.T) {
	p := recipePolicy(t, `local rein = import 'rein.libsonnet';
{
  programs: { grep: rein.program('search'), tool: rein.program('a Go-style tool') },
  rules: [
    rein.rule('no-recursive', 'deny', 'no recursion', each='cmd.name == "grep" && hasFlag(cmd, "-r", "--recursive")'),
    rein.rule('no-exec', 'deny', 'no exec', each='cmd.name == "tool" && hasFlag(cmd, "-exec")'),
  ],
}`)
	for command, denied := range map[string]bool{
		"grep --recursive x .": true, "grep --recur x .": true, "grep --rec=yes x .": true, "grep -rn x .": true,
		"grep --regexp x f": false, "grep -n x f": false,
		"tool -exec x": true, "tool --exec=x": true, "tool -execute": false,
	} {
		d := p.Check(command)
		if got := d.Verdict == policy.Deny && strings.HasPrefix(d.Rule, "no-"); got != denied {
			t.Errorf("%s: %s by %s, want denied=%v", command, d.Verdict, d.Rule, denied)
		}
	}
}

// findstr /S walks folders and cannot skip secrets: readonly on Windows
// denies it, and allows findstr on named files.
func TestFindstrRecursion(t *testing.T) {
	wantVerdicts(t, presetPolicyFor(t, "readonly", "windows"), map[string]policy.Verdict{
		"findstr /S /I password *": policy.Deny, "findstr /si password *.*": policy.Deny, "findstr -s x *": policy.Deny,
		"findstr /I /C:search notes.txt": policy.Allow, "findstr /N TODO main.go": policy.Allow,
	})
}
