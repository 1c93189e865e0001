//go:build linux

package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/internal/nobody"
)

// The runner's tests run again as a user other than root. Root's
// capabilities hid that for any other user the namespace's mounts held
// nothing (the helper lost the right to mount when it started), and that a
// refused fork was not named as limits.processes without a pids cgroup.
func TestRunnerAsAnotherUser(t *testing.T) { nobody.Rerun(t) }

// A user other than root has the same namespace: run as one (by
// TestRunnerAsAnotherUser, in CI), the helper still mounts the read-only
// places (it keeps the right to mount through its own start), and the
// program it starts has no capabilities.
func TestNamespaceForAnotherUser(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("as root: TestRunnerAsAnotherUser runs this as nobody")
	}
	r, dir := namespaced(t, `{ commands: [{ command: './change.sh' }, { command: './caps.sh' }] }`, map[string]string{
		"change.sh": "#!/bin/sh\necho id >> .git/hooks/pre-push\necho '{}' > rein.jsonnet\necho work > notes.txt\n",
		"caps.sh":   "#!/bin/sh\ngrep -E '^Cap(Eff|Prm|Amb)' /proc/self/status\n",
	})
	res := r.Run(context.Background(), "./change.sh", runner.RunOptions{})
	if got := strings.Count(res.Stderr, "Read-only file system"); got != 2 {
		t.Errorf("want the kernel to refuse both writes, stderr:\n%s", res.Stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "work\n" {
		t.Errorf("the workspace was not writable: notes.txt %q", b)
	}
	res = r.Run(context.Background(), "./caps.sh", runner.RunOptions{})
	for _, line := range strings.Split(strings.TrimSpace(res.Stdout), "\n") {
		if f := strings.Fields(line); len(f) != 2 || strings.Trim(f[1], "0") != "" {
			t.Errorf("the program has capabilities: %q (stderr %q)", line, res.Stderr)
		}
	}
}
