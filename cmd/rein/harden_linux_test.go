package main

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A command rein runs must not read rein's own environment, where the
// model's API key lives, even when it finds /proc/PID/environ by itself
// (the path rules refuse it when named). Both processes run as one user
// without the superuser's powers: the test drops to nobody when it is root.
func TestOwnEnvironmentUnreadable(t *testing.T) {
	dir, err := os.MkdirTemp("", "rein-harden")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o777)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "rein")
	if err := copyFile(self, bin); err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	run := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_CACHE_HOME=" + dir,
			"REIN_DB=" + filepath.Join(dir, "rein.db"), "REIN_TEST_MAIN=1", "FAKE_API_KEY=sk-harden-test-secret"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd
	}
	const marker = "5.37" // a sleep nobody else runs
	rein := run(bin, "--preset", "readonly", "exec", "sleep "+marker)
	rein.Stdout, rein.Stderr = io.Discard, io.Discard
	if err := rein.Start(); err != nil {
		t.Fatalf("cannot start rein as another user: %v", err)
	}
	defer func() { rein.Process.Kill(); rein.Wait() }()
	environ := "/proc/" + strconv.Itoa(rein.Process.Pid) + "/environ"
	// Wait until the command runs: rein hardened itself first thing.
	deadline := time.Now().Add(10 * time.Second)
	for len(sleepers(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	out, err := run("cat", environ).CombinedOutput()
	if strings.Contains(string(out), "sk-harden-test-secret") {
		t.Fatalf("a process of the same user read rein's environment: %s", out)
	}
	if err == nil {
		t.Errorf("reading %s succeeded: %q", environ, out)
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
