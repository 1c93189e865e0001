package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/internal/testenv"
)

// A command cannot change the processes outside its sandbox: the user's
// other programs (rein, the agent, their shell) keep their limits and
// priority whatever the command asks (prlimit, renice, taskset, ionice of
// another pid). Its own it may change.
func TestCommandCannotChangeOtherProcesses(t *testing.T) {
	if !sandbox.Probe().Seccomp {
		t.Skip("no seccomp here: the filter that refuses this is not installed")
	}
	for _, tool := range []string{"prlimit", "renice", "taskset", "ionice"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (util-linux)", tool)
		}
	}
	// The canary: a process of the same user, outside the sandbox.
	outside := exec.Command("sleep", "60")
	if err := outside.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { outside.Process.Kill(); outside.Wait() }()
	pid := strconv.Itoa(outside.Process.Pid)
	limitsBefore, _ := os.ReadFile("/proc/" + pid + "/limits")
	statBefore := niceOf(t, pid)
	script := "#!/bin/sh\n" +
		"prlimit --pid " + pid + " --nofile=3:3 && echo CHANGED-LIMITS\n" +
		"renice -n 15 -p " + pid + " >/dev/null && echo CHANGED-NICE\n" +
		"taskset -p 1 " + pid + " >/dev/null && echo CHANGED-CPUS\n" +
		"ionice -c 3 -p " + pid + " && echo CHANGED-IO\n" +
		"ulimit -n 64 && echo OWN-LIMITS\n" +
		"nice -n 1 true && echo OWN-NICE\n"
	r, _ := sandboxed(t, `{ commands: [{ command: './try.sh' }] }`, map[string]string{"try.sh": script})
	res := r.Run(context.Background(), "./try.sh", runner.RunOptions{})
	for _, changed := range []string{"CHANGED-LIMITS", "CHANGED-NICE", "CHANGED-CPUS", "CHANGED-IO"} {
		if strings.Contains(res.Stdout, changed) {
			t.Errorf("the command changed a process outside its sandbox (%s): %q %q", changed, res.Stdout, res.Stderr)
		}
	}
	if limitsAfter, _ := os.ReadFile("/proc/" + pid + "/limits"); string(limitsAfter) != string(limitsBefore) {
		t.Errorf("the outside process's limits changed:\n%s", limitsAfter)
	}
	if n := niceOf(t, pid); n != statBefore {
		t.Errorf("the outside process's nice value went from %s to %s", statBefore, n)
	}
	// Its own, named as the calls name the caller (pid 0), it may change;
	// by its pid it may not: the filter cannot tell that pid from others.
	for _, own := range []string{"OWN-LIMITS", "OWN-NICE"} {
		if !strings.Contains(res.Stdout, own) {
			t.Errorf("the command could not change itself (%s): %q %q", own, res.Stdout, res.Stderr)
		}
	}
}

// niceOf is a process's nice value (/proc/PID/stat's 19th field).
func niceOf(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return f[16]
}

// /dev/shm is the command's own where it has namespaces: what it leaves
// there is gone with it, and it does not see what others left.
func TestSharedMemoryIsTheCommandsOwn(t *testing.T) {
	if !sandbox.Probe().Namespaces {
		t.Skip("no namespaces here: /dev/shm is shared with the machine")
	}
	if st, err := os.Stat("/dev/shm"); err != nil || !st.IsDir() {
		t.Skip("no /dev/shm here")
	}
	theirs := filepath.Join("/dev/shm", "rein-test-theirs-"+strconv.Itoa(os.Getpid()))
	if err := os.WriteFile(theirs, []byte("another program's"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(theirs)
	left := filepath.Join("/dev/shm", "rein-test-left-"+strconv.Itoa(os.Getpid()))
	defer os.Remove(left)
	script := "#!/bin/sh\ncat " + theirs + " 2>/dev/null && echo SAW-THEIRS\necho mine > " + left + " && echo WROTE\n"
	r, _ := sandboxed(t, `{ commands: [{ command: './shm.sh' }] }`, map[string]string{"shm.sh": script})
	res := r.Run(context.Background(), "./shm.sh", runner.RunOptions{})
	if !strings.Contains(res.Stdout, "WROTE") {
		t.Fatalf("the command could not use /dev/shm: %q %q", res.Stdout, res.Stderr)
	}
	if strings.Contains(res.Stdout, "SAW-THEIRS") {
		t.Errorf("the command read what another program left in /dev/shm")
	}
	if _, err := os.Stat(left); err == nil {
		t.Errorf("what the command wrote in /dev/shm outlived it: %s", left)
	}
}

// System V shared memory a command makes, and does not remove, goes with
// it where it has namespaces (an IPC namespace of its own): it would
// otherwise stay in the kernel until the machine restarts.
func TestSystemVMemoryIsTheCommandsOwn(t *testing.T) {
	if !sandbox.Probe().Namespaces {
		t.Skip("no namespaces here: System V IPC is shared with the machine")
	}
	if _, err := exec.LookPath("ipcmk"); err != nil {
		t.Skip("ipcmk is not installed (util-linux)")
	}
	before := segments(t)
	r, _ := sandboxed(t, `{ commands: [{ command: './ipc.sh' }] }`, map[string]string{"ipc.sh": "#!/bin/sh\nipcmk -M 4096 -p 0600 >/dev/null && echo MADE\n"})
	res := r.Run(context.Background(), "./ipc.sh", runner.RunOptions{})
	if !strings.Contains(res.Stdout, "MADE") {
		t.Fatalf("the command could not make a segment: %q %q", res.Stdout, res.Stderr)
	}
	for id := range segments(t) {
		if !before[id] {
			exec.Command("ipcrm", "-m", id).Run()
			t.Errorf("the command's shared memory segment %s outlived it", id)
		}
	}
}

// segments are the ids of the machine's System V shared memory segments.
func segments(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("/proc/sysvipc/shm")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for i, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); i > 0 && len(f) > 1 {
			ids[f[1]] = true
		}
	}
	return ids
}

// A command cannot kill the helper that supervises it: the helper's thread
// that started the program shared the program's Landlock domain, and a
// program that sent it SIGKILL (tgkill, kill or rt_sigqueueinfo by its id,
// a pidfd of it or of its /proc folder, SIGIO) left a process of its own
// running after rein returned, out of reach of the helper's final sweep.
// The supervisor now stays outside the program's domain (Config.Stage).
func TestCommandCannotKillItsSupervisor(t *testing.T) {
	if sandbox.Probe().LandlockABI < 6 {
		t.Skip("Landlock does not scope signals here (ABI 6): nothing keeps a command from its helper")
	}
	needSyscallScript(t)
	const marker = "31.77" // a sleep nobody else runs
	// The helper is the parent of the script's shell.
	// Each way the red teams found to name a thread: tgkill, kill and
	// rt_sigqueueinfo by its id, a pidfd of it (pidfd_open, or its /proc
	// folder), and SIGIO's owner.
	script := "#!/bin/sh\n" +
		"setsid sh -c 'sleep " + marker + "' >/dev/null 2>&1 </dev/null &\n" +
		"python3 - $PPID <<'PY'\n" +
		"import ctypes, os, struct, sys, fcntl\n" +
		"h = int(sys.argv[1]); libc = ctypes.CDLL(None, use_errno=True)\n" +
		"info = ctypes.create_string_buffer(struct.pack('iii', 9, 0, -1) + bytes(116))\n" +
		"for t in map(int, os.listdir('/proc/%d/task' % h)):\n" +
		"    print('tgkill', t, libc.syscall(234, h, t, 9))\n" +
		"    print('kill', t, libc.syscall(62, t, 9))\n" +
		"    print('sigqueue', t, libc.syscall(129, t, 9, info))\n" +
		"    fd = libc.syscall(434, t, 0x80)\n" +
		"    print('pidfd', t, fd, fd >= 0 and libc.syscall(424, fd, 9, None, 0))\n" +
		"    try:\n" +
		"        d = os.open('/proc/%d' % t, os.O_RDONLY | os.O_DIRECTORY)\n" +
		"        print('procfd', t, libc.syscall(424, d, 9, None, 0))\n" +
		"    except OSError as e: print('procfd', t, e)\n" +
		"    r, w = os.pipe()\n" +
		"    print('setsig', t, libc.fcntl(r, 10, 9), libc.fcntl(r, 8, t))\n" +
		"    fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC); os.write(w, b'x')\n" +
		"PY\n" +
		"sleep 1\n"
	r, _ := sandboxed(t, `{ commands: [{ command: './kill.sh' }] }`, map[string]string{"kill.sh": script})
	res := r.Run(context.Background(), "./kill.sh", runner.RunOptions{})
	if res.ExitCode != 0 {
		t.Errorf("the helper did not see the command to its end (exit %d): %q %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	deadline := time.Now().Add(3 * time.Second)
	left := testenv.Sleeps(marker)
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = testenv.Sleeps(marker)
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) > 0 {
		t.Errorf("%d processes outlived the command after it signalled its helper: %q %q", len(left), res.Stdout, res.Stderr)
	}
}

// The kernel's keyrings are out of a command's reach: the session's and
// the user's hold what other programs stored (and outlive the command).
func TestCommandCannotReachKeyrings(t *testing.T) {
	if !sandbox.Probe().Seccomp {
		t.Skip("no seccomp here: the filter that refuses this is not installed")
	}
	needSyscallScript(t)
	// keyctl(KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING / USER, create).
	script := "#!/bin/sh\npython3 -c 'import ctypes; libc=ctypes.CDLL(None, use_errno=True)\n" +
		"for ring in (-3, -4): print(\"RING\", libc.syscall(250, 0, ring, 1), ctypes.get_errno())'\n"
	r, _ := sandboxed(t, `{ commands: [{ command: './keys.sh' }] }`, map[string]string{"keys.sh": script})
	res := r.Run(context.Background(), "./keys.sh", runner.RunOptions{})
	lines := strings.Fields(strings.ReplaceAll(res.Stdout, "RING", "\n"))
	if len(lines) != 4 || lines[0] != "-1" || lines[1] != "1" || lines[2] != "-1" || lines[3] != "1" {
		t.Errorf("keyctl from the command: %q %q, want EPERM (-1 1) for both keyrings", res.Stdout, res.Stderr)
	}
}

// When the helper is killed while its command runs — by the command itself
// on a kernel without Landlock's signal scoping (kill $PPID), here by the
// test — what the command left outside its process group is ended by rein
// from the command's user namespace: it had outlived the helper, whose
// final sweep never came.
func TestHelpersDeathLeavesNothingRunning(t *testing.T) {
	if !sandbox.Probe().Namespaces {
		t.Skip("no namespaces here: the command has no user namespace of its own to find it by")
	}
	const marker = "33.17" // a sleep nobody else runs
	const foreground = "30.17"
	// One left in the command's user namespace, one in a namespace the
	// command made inside it (the second red team's).
	const nested = "33.18"
	script := "#!/bin/sh\nsetsid sh -c 'sleep " + marker + "' >/dev/null 2>&1 </dev/null &\n" +
		"command -v unshare >/dev/null && setsid unshare -U sh -c 'sleep " + nested + "' >/dev/null 2>&1 </dev/null &\n" +
		"sleep " + foreground + "\n"
	r, _ := sandboxed(t, `{ commands: [{ command: './left.sh' }] }`, map[string]string{"left.sh": script})
	done := make(chan *runner.Result, 1)
	go func() { done <- r.Run(context.Background(), "./left.sh", runner.RunOptions{}) }()
	deadline := time.Now().Add(10 * time.Second)
	for len(testenv.Sleeps(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The helper: the parent of the script's shell, which is the parent of
	// its sleep in the foreground.
	helper := 0
	for _, pid := range testenv.Sleeps(foreground) {
		if shell := parentOf(pid); shell > 0 {
			helper = parentOf(shell)
		}
	}
	if helper <= 0 {
		t.Fatal("the helper was not found")
	}
	syscall.Kill(helper, syscall.SIGKILL)
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("rein did not return once its helper was killed")
	}
	deadline = time.Now().Add(3 * time.Second)
	sleeps := func() []int { return append(testenv.Sleeps(marker), testenv.Sleeps(nested)...) }
	left := sleeps()
	for len(left) > 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		left = sleeps()
	}
	for _, pid := range left {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if len(left) > 0 {
		t.Errorf("%d processes outlived the command's helper", len(left))
	}
}

// parentOf is a process's parent (/proc/PID/stat), or 0.
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// needSyscallScript skips a test whose script makes system calls by their
// amd64 numbers through python3's ctypes where it cannot.
func needSyscallScript(t *testing.T) {
	t.Helper()
	if runtime.GOARCH != "amd64" {
		t.Skip("the script calls the system calls by their amd64 numbers")
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
}
