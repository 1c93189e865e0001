package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A descriptor rein inherited beyond the standard three (an agent's pipe or
// socket, a file its parent left open) reaches none of the programs it
// runs, sandboxed or not: they get their standard streams only.
func TestInheritedDescriptorsReachNoCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("starts rein as a process")
	}
	for _, mode := range []string{"workspace-write", "off"} {
		t.Run(mode, func(t *testing.T) {
			dir := t.TempDir()
			canary := filepath.Join(t.TempDir(), "inherited")
			if err := os.WriteFile(canary, []byte("FD-CANARY\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(canary)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			script := "#!/bin/sh\n{ cat <&3; } 2>/dev/null\necho \"FDS: $(ls /proc/self/fd | tr '\\n' ' ')\"\n"
			os.WriteFile(filepath.Join(dir, "fd.sh"), []byte(script), 0o755)
			os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ commands: [{ command: './fd.sh' }], sandbox: { mode: '`+mode+`' } }`), 0o644)
			cmd := exec.Command(os.Args[0], "--dir", dir, "exec", "./fd.sh")
			cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "CI=true", "REIN_DB="+filepath.Join(t.TempDir(), "rein.db"), "REIN_CACHE_DIR="+t.TempDir())
			cmd.Dir = dir
			cmd.ExtraFiles = []*os.File{f} // fd 3 in rein
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("rein exec: %v\n%s", err, out)
			}
			if strings.Contains(string(out), "FD-CANARY") {
				t.Errorf("the command read a descriptor rein inherited:\n%s", out)
			}
			// ls's own: its standard streams, and the folder it lists.
			_, fds, _ := strings.Cut(string(out), "FDS: ")
			if got := strings.Fields(fds); strings.Join(got, " ") != "0 1 2 3" {
				t.Errorf("the command had descriptors %v open, want its standard streams and ls's folder:\n%s", got, out)
			}
		})
	}
}
