//go:build linux

// Package nobody runs a package's tests again as the user nobody, from a
// test run as root: CI runs as root, and a person seldom does. Root's
// capabilities hide what only another user meets (rein's sandbox helper
// lost the right to mount, for one).
package nobody

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Env is set in the tests' environment when they run as nobody.
const Env = "REIN_TEST_AS_USER"

// Rerun runs the test binary's short suite (or the tests flags choose,
// "-test.run=^TestX$") again as nobody (uid 65534), from a copy of the
// binary, in the package folder, with a home, temp, configuration and cache
// folder of that user's own, and fails t with the tests that failed. It
// skips where the caller is not root, runs as nobody already, or the
// package folder is closed to other users.
func Rerun(t *testing.T, flags ...string) {
	t.Helper()
	if os.Geteuid() != 0 || os.Getenv(Env) != "" {
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
	env := []string{"PATH=" + os.Getenv("PATH"), Env + "=1"}
	for _, v := range []string{"HOME", "TMPDIR", "XDG_CONFIG_HOME", "REIN_CACHE_DIR"} {
		p := filepath.Join(dir, strings.ToLower(v))
		if err := os.Mkdir(p, 0o700); err != nil || os.Chown(p, 65534, 65534) != nil {
			t.Fatalf("cannot make a folder for nobody: %v", err)
		}
		env = append(env, v+"="+p)
	}
	os.Chmod(dir, 0o755)
	self, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, filepath.Base(os.Args[0]))
	if err := os.WriteFile(bin, self, 0o755); err != nil {
		t.Fatal(err)
	}
	if len(flags) == 0 {
		flags = []string{"-test.short"}
	}
	cmd := exec.Command(bin, append(flags, "-test.v")...)
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
	if !strings.Contains(string(out), "--- PASS: ") {
		t.Fatalf("as nobody, no test passed:\n%s", out)
	}
	t.Log("as nobody: " + summary(string(out)))
}

// summary counts a -test.v run's results and lists its skips with their
// reasons (the line a skip prints comes just before its --- SKIP).
func summary(out string) string {
	var passed, skipped int
	var skips []string
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "--- PASS: "):
			passed++
		case strings.HasPrefix(trimmed, "--- SKIP: "):
			skipped++
			name := strings.Fields(strings.TrimPrefix(trimmed, "--- SKIP: "))[0]
			reason := ""
			if i > 0 && !strings.HasPrefix(strings.TrimSpace(lines[i-1]), "=== ") {
				reason = strings.TrimSpace(lines[i-1])
			}
			skips = append(skips, name+" ("+reason+")")
		}
	}
	s := fmt.Sprintf("%d passed, %d skipped", passed, skipped)
	if len(skips) > 0 {
		s += ": " + strings.Join(skips, "; ")
	}
	return s
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
