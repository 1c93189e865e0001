package runner_test

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
)

// memoryRunner is a readonly runner whose shell may take budget bytes; a
// runaway is recorded instead of ending the test binary.
func memoryRunner(t *testing.T, budget int64) (*runner.Runner, func() string) {
	t.Helper()
	dir := t.TempDir()
	_, p := policytest.Load(t, dir, "readonly")
	var mu sync.Mutex
	var runaway string
	r := runner.New(p, runner.Options{
		Env:         []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")},
		ShellMemory: budget,
		Runaway:     func(m string) { mu.Lock(); runaway = m; mu.Unlock() },
	})
	return r, func() string { mu.Lock(); defer mu.Unlock(); return runaway }
}

// The shell's variables live in rein's process: a script growing them
// without end is stopped, not left to exhaust the machine's memory.
func TestShellMemoryIsBounded(t *testing.T) {
	needUnix(t)
	tests := map[string]string{
		"doubling in a loop":              "x=a; while :; do x=$x$x; done",
		"a command substitution's output": "x=$(cat /dev/zero)",
	}
	for name, script := range tests {
		t.Run(name, func(t *testing.T) {
			r, _ := memoryRunner(t, 16<<20)
			start := time.Now()
			res := r.Run(context.Background(), script, runner.RunOptions{Timeout: time.Minute})
			if res.ExitCode != 125 || res.Stopped != "memory" || !strings.Contains(res.Stderr, "[rein stopped the command: its shell took more than 16 MiB") {
				t.Errorf("result %+v", res)
			}
			if d := time.Since(start); d > 20*time.Second {
				t.Errorf("stopped after %s", d)
			}
		})
	}
}

// One statement that cannot be interrupted (x=${x//?/$x} squares x) and
// goes on growing is a runaway: the runner says so (rein exits).
func TestRunawayStatementReported(t *testing.T) {
	needUnix(t)
	r, runaway := memoryRunner(t, 1<<20)
	// x squared is 64 MiB: long enough to build that the watch sees it
	// pass four times the budget while it grows, even on a loaded machine.
	res := r.Run(context.Background(), "x=$(printf %8192s); x=${x//?/$x}; sleep 5", runner.RunOptions{})
	if res.Stopped != "memory" {
		t.Errorf("result %+v", res)
	}
	if got := runaway(); !strings.Contains(got, "in one statement and could not be stopped") {
		t.Errorf("runaway message %q", got)
	}
}

// Ordinary scripts are not stopped.
func TestShellMemoryLeavesOrdinaryRuns(t *testing.T) {
	needUnix(t)
	r, runaway := memoryRunner(t, 16<<20)
	res := r.Run(context.Background(), "x=; for i in $(seq 200); do x=\"$x $i\"; done; echo ${#x}", runner.RunOptions{})
	if res.ExitCode != 0 || res.Stopped != "" || runaway() != "" || strings.TrimSpace(res.Stdout) != "692" {
		t.Errorf("result %+v, runaway %q", res, runaway())
	}
}
