package policy_test

import (
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// A command's relative paths are checked from the folder it runs in:
// after a cd, or in the folder of env -C. Each of the denied ones was
// allowed before (the kernel sandbox, where there is one, stopped the
// read).
func TestPathsFromTheCommandsFolder(t *testing.T) {
	p := presetPolicy(t, "readonly")
	tests := []struct {
		command string
		verdict policy.Verdict
	}{
		{"cd ~ && cat .aws/credentials", policy.Deny},
		{"cd; cat .ssh/id_ed25519.pub", policy.Deny},
		{"cd ~; cat < .aws/config", policy.Deny},
		{"env -C ~ cat .aws/credentials", policy.Deny},
		{"env --chdir=/ cat etc/shadow", policy.Deny},
		{"cd / && cat etc/shadow", policy.Deny},
		{"cd ~ && grep -r token .", policy.Deny},
		{"cd src && cat main.go", policy.Allow},
		{"(cd ~) && cat notes.txt", policy.Allow},
		{"cd docs && grep -rn TODO .", policy.Allow},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			if d := p.Check(tt.command); d.Verdict != tt.verdict {
				t.Errorf("%s by %s (%s), want %s", d.Verdict, d.Rule, d.Reason, tt.verdict)
			}
		})
	}
}
