package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
)

// holdRecipe allows a script that leaves a mark, and redirections into
// the workspace.
const holdRecipe = `{ commands: [{ command: './mark.sh' }, { command: 'echo' }], shell: { redirect_write: 'workspace' } }`

var holdScripts = map[string]string{"mark.sh": "#!/bin/sh\necho ran > mark\n"}

// plainRunner is a runner without the sandbox, for a workspace holding
// holdRecipe and holdScripts.
func plainRunner(t *testing.T) (*runner.Runner, string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the script is a shell script")
	}
	dir := t.TempDir()
	for name, body := range holdScripts {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(holdRecipe), 0o644)
	_, p := policytest.Load(t, dir, "")
	return runner.New(p, runner.Options{Env: []string{"PATH=" + os.Getenv("PATH")}}), dir
}

// A run given Proceed has no effect before it is closed: the program does
// not start (the sandbox helper, already started, waits for rein's word)
// and the shell opens no file for writing. Then it runs as usual.
func TestProceedHoldsEffects(t *testing.T) {
	sandboxedRunner := func(t *testing.T) (*runner.Runner, string) { return sandboxed(t, holdRecipe, holdScripts) }
	for _, tt := range []struct {
		name, command, mark string
		runner              func(*testing.T) (*runner.Runner, string)
	}{
		{"sandboxed program", "./mark.sh", "mark", sandboxedRunner},
		{"program", "./mark.sh", "mark", plainRunner},
		{"redirection", "echo ran > out", "out", plainRunner},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := tt.runner(t)
			proceed := make(chan struct{})
			early := make(chan bool, 1)
			go func() {
				time.Sleep(400 * time.Millisecond)
				_, err := os.Stat(filepath.Join(dir, tt.mark))
				early <- err == nil
				close(proceed)
			}()
			res := r.Run(context.Background(), tt.command, runner.RunOptions{Proceed: proceed, Timeout: 20 * time.Second})
			if <-early {
				t.Error("the command had its effect before Proceed was closed")
			}
			if res.ExitCode != 0 || res.Error != "" {
				t.Fatalf("after Proceed: exit %d, error %q, stderr %q", res.ExitCode, res.Error, res.Stderr)
			}
			if b, err := os.ReadFile(filepath.Join(dir, tt.mark)); err != nil || string(b) != "ran\n" {
				t.Errorf("after Proceed: %q, %v", b, err)
			}
		})
	}
}

// A run that ends before Proceed is closed (its deadline, rein stopping
// it) has no effect at all: the helper that was waiting ends with its
// program never started.
func TestProceedNeverGiven(t *testing.T) {
	for _, tt := range []struct {
		name   string
		runner func(*testing.T) (*runner.Runner, string)
	}{
		{"sandboxed", func(t *testing.T) (*runner.Runner, string) { return sandboxed(t, holdRecipe, holdScripts) }},
		{"plain", plainRunner},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := tt.runner(t)
			start := time.Now()
			res := r.Run(context.Background(), "./mark.sh", runner.RunOptions{Proceed: make(chan struct{}), Timeout: 500 * time.Millisecond})
			if time.Since(start) > 10*time.Second {
				t.Fatalf("the run waited %v past its deadline", time.Since(start))
			}
			if !res.TimedOut {
				t.Errorf("want a timed-out run, got exit %d, error %q", res.ExitCode, res.Error)
			}
			time.Sleep(200 * time.Millisecond) // a helper that ran it anyway would have by now
			if _, err := os.Stat(filepath.Join(dir, "mark")); err == nil {
				t.Error("the program ran although Proceed was never closed")
			}
		})
	}
}
