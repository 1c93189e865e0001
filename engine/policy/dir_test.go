package policy_test

import (
	"os/user"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// A command's relative paths are checked from the folder it runs in:
// after a cd, or in the folder of env -C. Each of the denied ones was
// allowed before (the kernel sandbox, where there is one, stopped the
// read).
func TestPathsFromTheCommandsFolder(t *testing.T) {
	wantVerdicts(t, presetPolicy(t, "readonly"), map[string]policy.Verdict{
		"cd ~ && cat .aws/credentials":  policy.Deny,
		"cd; cat .ssh/id_ed25519.pub":   policy.Deny,
		"cd ~; cat < .aws/config":       policy.Deny,
		"env -C ~ cat .aws/credentials": policy.Deny,
		"env --chdir=/ cat etc/shadow":  policy.Deny,
		"cd / && cat etc/shadow":        policy.Deny,
		"cd ~ && grep -r token .":       policy.Deny,
		"cd src && cat main.go":         policy.Allow,
		"(cd /usr) && cat notes.txt":    policy.Allow,
		"cd docs && grep -rn TODO .":    policy.Allow,
	})
}

// ~NAME is another user's home folder, as the shell expands it.
func TestOtherUsersHome(t *testing.T) {
	u, err := user.Lookup("root")
	if err != nil || u.HomeDir != "/root" {
		t.Skip("no root user with home /root here")
	}
	wantVerdicts(t, presetPolicy(t, "readonly"), map[string]policy.Verdict{
		"cat ~root/.aws/credentials": policy.Deny, "ls ~root/.ssh": policy.Deny, "grep -r x ~root": policy.Deny,
		"cat ~nosuchuser/.aws/credentials": policy.Allow, // left as written by the shell: a relative path
	})
}
