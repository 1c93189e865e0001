package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// smallHelper builds cmd/rein-sandbox, the helper that links only the
// sandbox package, without a release stamp: like this test binary, so that
// the two speak the same protocol.
func smallHelper(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cmd/rein-sandbox")
	}
	path := filepath.Join(t.TempDir(), sandbox.SiblingHelper)
	out, err := exec.Command("go", "build", "-buildvcs=false", "-o", path, "github.com/reinsh/rein/cmd/rein-sandbox").CombinedOutput()
	if err != nil {
		t.Fatalf("go build cmd/rein-sandbox: %v\n%s", err, out)
	}
	return path
}

// The small helper applies the same sandbox as rein itself: the secret
// folder is hidden (through a link too), the rest of the home folder
// readable, nothing outside the workspace writable.
func TestSmallHelperConfines(t *testing.T) {
	helper := smallHelper(t)
	home := homeWithKey(t)
	r, dir := sandboxedWith(t, `{ commands: [{ command: './peek.sh' }], sandbox+: { mode: 'workspace-write' }, paths: { scope: 'anywhere' } }`, map[string]string{
		"peek.sh": "#!/bin/sh\ncat \"$1/notes.txt\"; echo; cat \"$1/.ssh/id_test\"; cat \"$1/keys/id_test\"; echo x > \"$1/planted\"; echo y > here.txt\n",
	}, func(o *runner.Options) { o.Helper = helper })
	res := r.Run(context.Background(), "./peek.sh "+home, runner.RunOptions{})
	if strings.Contains(res.Stdout, "PRIVATE KEY") {
		t.Fatalf("a secret was read: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "public notes") || !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "planted")); err == nil {
		t.Error("a file was written outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(dir, "here.txt")); err != nil {
		t.Errorf("the workspace was not writable: %v (%s)", err, res.Stderr)
	}
}

// A helper refuses a configuration written by another build (a stale
// rein-sandbox beside a newer rein): it runs nothing, and says what to do.
func TestSmallHelperRefusesAnotherBuild(t *testing.T) {
	helper := smallHelper(t)
	canary := filepath.Join(t.TempDir(), "ran")
	cfg, _ := json.Marshal(map[string]any{"mode": "off", "workspace": t.TempDir(), "protocol": "example.com/other@v0.0.1/0123456789abcdef"})
	cmd := exec.Command(helper, sandbox.HelperArg, string(cfg), "/usr/bin/touch", "touch", canary)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 126 || !strings.Contains(string(out), "built from other sources") {
		t.Errorf("exit %v, output %q", err, out)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("the program ran")
	}
}
