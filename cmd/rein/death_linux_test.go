//go:build linux

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/internal/testenv"
)

// When rein dies (SIGKILL, no chance to clean up), the command it was
// running dies with it: under the sandbox helper, whose program and all it
// left are killed, and without one. They went on, re-parented to init.
func TestCommandsDieWithRein(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills rein")
	}
	for _, c := range []struct {
		name, recipe string
	}{
		{"sandboxed", `{ allow: ['sleep *', 'sh *'], shell: { background: 'allow' }, sandbox: { mode: 'workspace-write' } }`},
		{"no sandbox", `{ allow: ['sleep *', 'sh *'], shell: { background: 'allow' }, sandbox: { mode: 'off' } }`},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.name == "sandboxed" && !sandbox.Probe().Available() {
				t.Skip("no sandbox here")
			}
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(c.recipe), 0o644)
			marker := "37.41" // a sleep nobody else runs
			if c.name == "sandboxed" {
				marker = "37.42"
			}
			// A child and a grandchild in the background of the command.
			cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "--timeout", "5m", "sh -c 'sleep "+marker+" & sleep "+marker+"'")
			env := append(os.Environ(), "REIN_TEST_MAIN=1", "CI=true", "REIN_DB="+filepath.Join(t.TempDir(), "rein.db"), "REIN_CACHE_DIR="+t.TempDir())
			cmd.Env = env
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for len(sleepers(marker)) < 2 {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatalf("the command did not start: %v", sleepers(marker))
				}
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()
			deadline = time.Now().Add(5 * time.Second)
			for len(sleepers(marker)) > 0 {
				if time.Now().After(deadline) {
					left := sleepers(marker)
					for _, pid := range left {
						syscall.Kill(pid, syscall.SIGKILL)
					}
					t.Fatalf("%d processes outlived rein", len(left))
				}
				time.Sleep(20 * time.Millisecond)
			}
			// The audit log tells this command from a finished one.
			audit := exec.Command(os.Args[0], "--dir", dir, "audit", "--json")
			audit.Env = env
			out, err := audit.Output()
			if err != nil {
				t.Fatalf("rein audit: %v", err)
			}
			var row struct {
				Command, State string
				ExitCode       *int `json:"exit_code"`
			}
			if err := json.Unmarshal(out, &row); err != nil {
				t.Fatalf("rein audit --json: %v\n%s", err, out)
			}
			if row.State != "interrupted" || row.ExitCode != nil || !strings.Contains(row.Command, marker) {
				t.Errorf("audit row %+v, want the command interrupted with no exit", row)
			}
		})
	}
}

// sleepers are the running sleeps of marker.
func sleepers(marker string) []int { return testenv.Sleeps(marker) }
