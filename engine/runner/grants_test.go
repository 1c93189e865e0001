package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
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

// The workspace's secret files are covered for every command that the
// recipe does not grant them to (paths.grant): a script or a test finds
// them empty, while vetting refuses naming them. One git tracks is the
// repository's, for anyone to read, and stays.
func TestWorkspaceSecretsAreHidden(t *testing.T) {
	needGit(t)
	if !sandbox.Probe().Namespaces {
		t.Skip("the workspace's secrets are covered in a mount namespace of the command's own, which this kernel does not give")
	}
	files := map[string]string{
		".env":                "ENV-CANARY",
		"deploy/prod.pem":     "PEM-CANARY",
		"app/.env.local":      "LOCAL-CANARY",
		".env.defaults":       "DEFAULTS-READ", // tracked
		"node_modules/p/.env": "PACKAGE-READ",  // a package's, not the project's
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for f := range files {
		script.WriteString("cat " + f + " 2>/dev/null\n")
	}
	run := func(recipeText string) *runner.Result {
		r, dir := sandboxed(t, recipeText, map[string]string{"peek.sh": script.String()})
		for f, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), []byte(text+"\n"), 0o644)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", ".env.defaults"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "defaults"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		return r.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	}
	res := run(`{ commands: [{ command: './peek.sh' }] }`)
	for _, canary := range []string{"ENV-CANARY", "PEM-CANARY", "LOCAL-CANARY"} {
		if strings.Contains(res.Stdout, canary) {
			t.Errorf("a script read a secret file of the workspace (%s): %q", canary, res.Stdout)
		}
	}
	for _, want := range []string{"DEFAULTS-READ", "PACKAGE-READ"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("%s missing: stdout %q stderr %q", want, res.Stdout, res.Stderr)
		}
	}
	// Granted to the command, .env is there for it; the key is not.
	res = run(`{ commands: [{ command: './peek.sh' }], paths+: { grant: [{ path: '.env', commands: ['./peek.sh'] }] } }`)
	if !strings.Contains(res.Stdout, "ENV-CANARY") || strings.Contains(res.Stdout, "PEM-CANARY") {
		t.Errorf("with .env granted to ./peek.sh: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}
