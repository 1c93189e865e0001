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

// The runner's tests run again as a user other than root: CI runs as root,
// and a person seldom does. Root's capabilities hid that for any other user
// the namespace's mounts held nothing (the helper lost the right to mount
// when it started), and that a refused fork was not named as
// limits.processes without a pids cgroup to count them.
func TestRunnerAsAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 || os.Getenv("REIN_TEST_AS_USER") != "" {
		t.Skip("not root: this suite runs as another user already")
	}
	here, err := os.Getwd()
	if err != nil || !openToOthers(here) {
		t.Skip("the package folder is not open to other users, who could not read its test data")
	}
	dir, err := os.MkdirTemp("", "rein-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	env := []string{"PATH=" + os.Getenv("PATH"), "REIN_TEST_AS_USER=1"}
	for _, v := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "REIN_CACHE_DIR"} {
		p := filepath.Join(dir, strings.ToLower(v))
		if err := os.Mkdir(p, 0o700); err != nil || os.Chown(p, 65534, 65534) != nil {
			t.Skipf("cannot make a folder for nobody: %v", err)
		}
		env = append(env, v+"="+p)
	}
	os.Chmod(dir, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "runner.test")
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-test.short", "-test.v")
	cmd.Env = env
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.Contains(string(out), "--- FAIL") {
		var failed []string
		for line := range strings.Lines(string(out)) {
			if strings.Contains(line, "--- FAIL") {
				failed = append(failed, strings.TrimSpace(line))
			}
		}
		t.Fatalf("as nobody: %v; failed: %q\n%s", err, failed, out)
	}
	if !strings.Contains(string(out), "--- PASS: TestNamespaceForAnotherUser") && !strings.Contains(string(out), "--- SKIP: TestNamespaceForAnotherUser") {
		t.Errorf("as nobody, the namespace test did not run:\n%s", out)
	}
}

// openToOthers reports whether users other than its owner may enter every
// folder on the way to dir and read dir.
func openToOthers(dir string) bool {
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm()&0o005 != 0o005 {
		return false
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil || st.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}

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
