package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rein is one process: rein check, rein hook and rein exec leave nothing
// running once they exit — no process of rein's binary (an engine kept
// warm, a sandbox helper started ahead) and nothing the command put in
// the background. rein runs from a copy of the binary of its own, so that
// a process of that binary is one these commands started, whatever other
// tests run meanwhile.
func TestNothingOutlivesRein(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rein as a process")
	}
	dir := t.TempDir()
	bin := filepath.Join(t.TempDir(), "rein")
	if err := copyFile(os.Args[0], bin); err != nil {
		t.Fatal(err)
	}
	recipe := `{ allow: ['sleep *', 'sh *', 'git status*', 'true'], shell: { background: 'allow' } }`
	if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(recipe), 0o644); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "REIN_TEST_MAIN=1", "CI=true",
		"REIN_DB=" + filepath.Join(home, "rein.db"), "REIN_CACHE_DIR=" + t.TempDir(),
		"XDG_CONFIG_HOME=" + t.TempDir(), "XDG_STATE_HOME=" + t.TempDir()}
	payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "git status"}, "tool_use_id": "t1"})
	const marker = "41.37" // a sleep nobody else runs
	for _, c := range []struct {
		name  string
		args  []string
		stdin string
	}{
		{"check", []string{"check", "git status"}, ""},
		{"hook", []string{"hook", "claude-code"}, string(payload)},
		{"exec", []string{"exec", "true"}, ""},
		{"exec with a job in the background", []string{"exec", "sleep " + marker + " &"}, ""},
		{"exec whose child leaves one behind", []string{"exec", "sh -c 'sleep " + marker + " &'"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, append([]string{"--dir", dir}, c.args...)...)
			cmd.Env, cmd.Dir = env, dir
			cmd.Stdin = strings.NewReader(c.stdin)
			out, err := cmd.CombinedOutput()
			t.Logf("rein %s: %s", strings.Join(c.args, " "), out)
			if err != nil {
				t.Fatalf("rein %s: %v\n%s", strings.Join(c.args, " "), err, out)
			}
			// What rein stopped may take a moment to be gone.
			deadline := time.Now().Add(3 * time.Second)
			left := outliving(bin, marker)
			for len(left) > 0 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
				left = outliving(bin, marker)
			}
			for pid, line := range left {
				syscall.Kill(pid, syscall.SIGKILL)
				t.Errorf("pid %d outlived rein %s: %s", pid, strings.Join(c.args, " "), line)
			}
		})
	}
}

// outliving are the live processes of bin, or sleeps of marker, with their
// command lines.
func outliving(bin, marker string) map[int]string {
	out := map[int]string{}
	for _, pid := range sleepers(marker) {
		out[pid] = "sleep " + marker
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err != nil || exe != bin {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err != nil || strings.Contains(string(st), ") Z ") {
			continue // gone, or a zombie: dead
		}
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		line, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		out[pid] = strings.ReplaceAll(string(line), "\x00", " ")
	}
	return out
}
