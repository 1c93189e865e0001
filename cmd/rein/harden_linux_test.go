package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/resident"
)

// A command rein runs must not read rein's own environment, where the
// model's API key lives, even when it finds /proc/PID/environ by itself
// (the path rules refuse it when named) — whether rein runs the command
// itself or hands it to a resident engine, whose caller waits meanwhile.
// Both processes run as one user without the superuser's powers: the test
// drops to nobody when it is root.
func TestOwnEnvironmentUnreadable(t *testing.T) {
	for _, mode := range []string{resident.Off, resident.Require} {
		t.Run("REIN_RESIDENT="+mode, func(t *testing.T) { ownEnvironmentUnreadable(t, mode) })
	}
}

func ownEnvironmentUnreadable(t *testing.T, mode string) {
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
	// The engine's socket in a short folder: its path holds 107 bytes.
	tmp, err := os.MkdirTemp("/tmp", "rr")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	os.Chmod(tmp, 0o777)
	run := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_CACHE_HOME=" + dir,
			"TMPDIR=" + tmp, "REIN_RESIDENT=" + mode, "REIN_RESIDENT_IDLE=30s",
			"REIN_DB=" + filepath.Join(dir, "rein.db"), "REIN_TEST_MAIN=1", "FAKE_API_KEY=sk-harden-test-secret"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		return cmd
	}
	if mode == resident.Require {
		// The first command starts the engine (and, required, fails).
		if err := run(bin, "--preset", "readonly", "check", "true").Run(); err != nil && !isExit(err) {
			t.Skipf("cannot start rein as another user: %v", err)
		}
		defer exec.Command("pkill", "-f", bin+" "+resident.ServeArg).Run()
		for i := 0; ; i++ {
			if out, _ := run(bin, "--preset", "readonly", "check", "true").CombinedOutput(); strings.HasPrefix(string(out), "allow") {
				break
			}
			if i == 250 {
				t.Fatal("no resident engine started")
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	const marker = "4.71" // a sleep nobody else runs
	rein := run(bin, "--preset", "readonly", "exec", "sleep "+marker)
	rein.Stdout, rein.Stderr = io.Discard, io.Discard
	if err := rein.Start(); err != nil {
		t.Skipf("cannot start rein as another user: %v", err)
	}
	defer func() { rein.Process.Kill(); rein.Wait() }()
	// Wait until the command runs (rein hardens itself first thing; a
	// served caller once the engine has checked it).
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && len(sleepers(marker)) == 0 {
		time.Sleep(20 * time.Millisecond)
	}
	if len(sleepers(marker)) == 0 {
		t.Fatal("the command did not start")
	}
	pids := []int{rein.Process.Pid}
	if mode == resident.Require {
		// An engine started as the first one came up ends at once.
		var out []byte
		for i := 0; i < 100; i++ {
			if out, _ = exec.Command("pgrep", "-f", bin+" "+resident.ServeArg).Output(); len(strings.Fields(string(out))) == 1 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		for _, f := range strings.Fields(string(out)) {
			pid, _ := strconv.Atoi(f)
			pids = append(pids, pid)
		}
		if len(pids) != 2 {
			t.Fatalf("the engine's pid: %q", out)
		}
	}
	for _, pid := range pids {
		environ := "/proc/" + strconv.Itoa(pid) + "/environ"
		out, err := run("cat", environ).CombinedOutput()
		if strings.Contains(string(out), "sk-harden-test-secret") {
			t.Fatalf("a process of the same user read rein's environment (%s): %s", environ, out)
		}
		if err == nil {
			t.Errorf("reading %s succeeded: %q", environ, out)
		}
	}
}

func isExit(err error) bool {
	var ee *exec.ExitError
	return errors.As(err, &ee)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o755)
}
