//go:build linux

package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// A user other than root has the same namespace (CI runs as root, and a
// person seldom does): run as one, the helper still mounts the read-only
// places (it keeps the right to mount through its own start), and the
// program it starts has no capabilities. Run as root, the test runs itself
// again as nobody.
func TestNamespaceForAnotherUser(t *testing.T) {
	if os.Geteuid() == 0 && os.Getenv("REIN_TEST_AS_USER") == "" {
		asNobody(t, "TestNamespaceForAnotherUser")
		return
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

// asNobody runs the test named again, as the user nobody (65534), from a
// copy of the test binary in a folder that user may use.
func asNobody(t *testing.T, name string) {
	dir, err := os.MkdirTemp("", "rein-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o777)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "runner.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.v")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "TMPDIR=" + dir, "XDG_CONFIG_HOME=" + dir, "REIN_CACHE_DIR=" + dir, "REIN_TEST_AS_USER=1"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	switch {
	case strings.Contains(string(out), "--- SKIP: "+name):
		t.Skipf("as nobody: %s", out)
	case err != nil || !strings.Contains(string(out), "--- PASS: "+name):
		t.Fatalf("as nobody: %v\n%s", err, out)
	}
}
