package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// Under granted reads (every recipe's default) a script reads the
// workspace, the system folders, the toolchains and what paths.read
// grants, and nothing else of the home folder, whatever its files are
// called: no list of secret names has to hold them.
func TestReadsAreGranted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	canaries := map[string]string{ // files no secret list names
		".cache/huggingface/token":      "HF-CANARY",
		".config/someapp/settings.json": "APP-CANARY",
		".android/adbkey":               "ADB-CANARY",
		"other-project/.env-production": "OTHER-CANARY",
		".local/share/app/history.db":   "DATA-CANARY",
	}
	granted := map[string]string{
		"notes/plan.txt":        "NOTES-READ",     // paths.read
		".gitconfig":            "GITCONFIG-READ", // what git reads for itself
		".rustup/settings.toml": "RUSTUP-READ",    // a toolchain
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for _, files := range []map[string]string{canaries, granted} {
		for f, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755)
			if err := os.WriteFile(filepath.Join(home, f), []byte(text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script.WriteString("cat \"$HOME/" + f + "\" 2>/dev/null\n")
		}
	}
	script.WriteString("ls \"$HOME\" 2>/dev/null && echo LISTED-HOME\n")
	scripts := map[string]string{"peek.sh": script.String()}

	r, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths+: { read: ['**', '~/notes/**'] } }`, scripts)
	res := r.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	for _, text := range canaries {
		if strings.Contains(res.Stdout, text) {
			t.Errorf("a file outside the grants was read (%s): %q", text, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "LISTED-HOME") {
		t.Errorf("the home folder was listed: %q", res.Stdout)
	}
	for _, text := range granted {
		if !strings.Contains(res.Stdout, text) {
			t.Errorf("a granted file was not read (%s): stdout %q stderr %q", text, res.Stdout, res.Stderr)
		}
	}
	// Vetting refuses what it sees, naming the grant to add.
	d := r.Run(context.Background(), "cat ~/.cache/huggingface/token", runner.RunOptions{})
	if d.DeniedBy != "paths.scope" || !strings.Contains(d.Error, "read+: ['~/.cache/huggingface/**']") {
		t.Errorf("cat of an unnamed file in the home folder: %+v", d)
	}

	// The same script with reads open (paths.scope: 'anywhere') reads the
	// canaries: what holds them above is the grant, not their names.
	open, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths+: { scope: 'anywhere' } }`, scripts)
	res = open.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	if !strings.Contains(res.Stdout, "HF-CANARY") {
		t.Errorf("with reads open, the canary was not read either: the test shows nothing: %q %q", res.Stdout, res.Stderr)
	}
}
