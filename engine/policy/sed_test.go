package policy_test

import (
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// The readonly preset reads sed scripts with sedScript(cmd); the files a
// script reads or writes are checked as secrets whatever the preset.
func TestSedScripts(t *testing.T) {
	p := presetPolicy(t, "readonly")
	tests := []struct {
		command string
		verdict policy.Verdict
		rule    string
	}{
		{"sed 's/a/b/g' f", policy.Allow, "programs.sed"},
		{"sed '/x/r notes.md' f", policy.Allow, "programs.sed"},
		{"sed -n 's/a/b/w /dev/stdout' f", policy.Allow, "programs.sed"},
		// Computed words: the script is read again at run time, expanded.
		{`sed "s/^/$(hostname): /" f`, policy.Allow, "programs.hostname, programs.sed"},
		{"sed s/.*/id/ep f", policy.Deny, "sed-no-write"},
		{"sed w/tmp/x f", policy.Deny, "sed-no-write"},
		{"sed 'k' f", policy.Deny, "sed-no-write"},
		{"sed 1R.env f", policy.Deny, "paths.deny"},
		{"sed 'w ~/.ssh/authorized_keys' f", policy.Deny, "paths.deny"},
		// GNU sed ends a label at a blank: the e after it runs.
		{"sed ':a e id' f", policy.Deny, "sed-no-write"},
		{"sed 'b end e id' f", policy.Deny, "sed-no-write"},
		{"sed -n ':a;N;$!ba;p' f", policy.Allow, "programs.sed"},
		{"sed -e :top -e 'n;b top' f", policy.Allow, "programs.sed"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			d := p.Check(tt.command)
			if d.Verdict != tt.verdict || d.Rule != tt.rule {
				t.Errorf("%s by %s (%s), want %s by %s", d.Verdict, d.Rule, d.Reason, tt.verdict, tt.rule)
			}
		})
	}
}
