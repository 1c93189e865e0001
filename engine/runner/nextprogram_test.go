package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// The tests here are issue 27's "next program" runs: a command the recipe
// allows plants something in the workspace, rein runs it sandboxed, and
// then the person's own git runs there, outside rein. A harmless canary (a
// file touched in the test's folder) must not appear.

// nextGit runs the person's plain git in dir, as they would after rein, with
// the tests' configuration (an author, no signing: testenv), and returns
// what it said and whether it succeeded.
func nextGit(t *testing.T, dir string, args ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

// mustGit is nextGit for a step that has to succeed for the test to mean
// anything (a commit that fails on its own runs no hook).
func mustGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, ok := nextGit(t, dir, args...); !ok {
		t.Fatalf("git %s in %s: %s", strings.Join(args, " "), dir, out)
	}
}

// canaryAt is a program that touches a file in dir, and the file.
func canaryAt(t *testing.T, dir string) (program, canary string) {
	t.Helper()
	canary = filepath.Join(dir, "CANARY")
	program = filepath.Join(dir, "canary.sh")
	if err := os.WriteFile(program, []byte("#!/bin/sh\ntouch "+canary+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, canary
}

// A repository a command makes below the workspace's top (src/.git), a
// folder it shapes like a bare repository (vendor/lib) and a .git file it
// points elsewhere (lib2/.git) are where the person's git, or an editor
// scanning the workspace's folders, runs next: what they would run is
// taken back.
func TestRepositoriesMadeBelowTheTopDoNotRunLater(t *testing.T) {
	needGit(t)
	elsewhere := t.TempDir()
	program, canary := canaryAt(t, elsewhere)
	// The planted repository elsewhere, which lib2/.git names.
	mustGit(t, elsewhere, "init", "-q", "planted")
	mustGit(t, filepath.Join(elsewhere, "planted"), "config", "core.fsmonitor", program)
	plant := "#!/bin/sh\nset -e\n" +
		"mkdir -p src && git -C src init -q && git -C src config core.fsmonitor " + program + "\n" +
		"printf '#!/bin/sh\\n" + program + "\\n' > src/.git/hooks/pre-commit && chmod +x src/.git/hooks/pre-commit\n" +
		"mkdir -p vendor/lib/objects vendor/lib/refs/heads\n" +
		"echo 'ref: refs/heads/main' > vendor/lib/HEAD\n" +
		"printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = true\\n\\tfsmonitor = " + program + "\\n' > vendor/lib/config\n" +
		"mkdir -p lib2 && echo 'gitdir: " + filepath.Join(elsewhere, "planted", ".git") + "' > lib2/.git\n" +
		// A repository made the ordinary way keeps all of its files.
		"mkdir -p clean && git -C clean init -q && git -C clean config user.name rein\n"
	r, dir := sandboxed(t, `{ commands: [{ command: './plant.sh' }], sandbox: { mode: 'workspace-write' } }`, map[string]string{"plant.sh": plant})
	mustGit(t, dir, "init", "-q")
	res := r.Run(context.Background(), "./plant.sh", runner.RunOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("plant.sh: %+v", res)
	}
	for _, where := range []string{"src", "vendor/lib", "lib2"} {
		out, _ := nextGit(t, filepath.Join(dir, where), "status")
		if _, err := os.Stat(canary); err == nil {
			t.Fatalf("the person's git status in %s ran the planted program (%s); rein said %q", where, out, res.Stderr)
		}
	}
	// The commit itself must succeed: one that fails first runs no hook.
	mustGit(t, filepath.Join(dir, "src"), "commit", "-q", "--allow-empty", "-m", "x")
	if _, err := os.Stat(canary); err == nil {
		t.Fatalf("the person's git commit in src ran the planted hook; rein said %q", res.Stderr)
	}
	for _, want := range []string{"src/.git/config", "src/.git/hooks/pre-commit", "vendor/lib/config", "lib2/.git"} {
		if !strings.Contains(res.Stderr, filepath.Join(dir, want)) {
			t.Errorf("rein did not say it took back %s: %q", want, res.Stderr)
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, "clean", ".git", "config")); err != nil || !strings.Contains(string(b), "name = rein") {
		t.Errorf("an ordinary nested repository lost its config: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "src", ".git", "config.rejected")); err != nil {
		t.Errorf("the taken-back config was not kept aside: %v", err)
	}
}

// git started by a command in a workspace that is not a repository does
// not take up a repository made above it later (by a command with a
// write grant there, or another user of /tmp): the folder above the
// working tree rein found at its start is git's ceiling. (A workspace in a
// bigger repository, a monorepo's folder, still finds that one.)
func TestGitStopsAtTheWorkspace(t *testing.T) {
	needGit(t)
	program, canary := canaryAt(t, t.TempDir())
	r, dir := sandboxed(t, `local rein = import 'rein.libsonnet'; rein.presets.readonly + { sandbox+: { mode: 'workspace-write' } }`, nil)
	if res := r.Run(context.Background(), "ls", runner.RunOptions{}); res.ExitCode != 0 {
		t.Fatalf("ls: %+v", res)
	}
	above := filepath.Dir(dir)
	mustGit(t, above, "init", "-q")
	mustGit(t, above, "config", "core.hooksPath", filepath.Dir(program))
	mustGit(t, above, "config", "alias.x", "!"+program)
	res := r.Run(context.Background(), "git status", runner.RunOptions{})
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "not a git repository") {
		t.Errorf("git status found the repository above the workspace: %+v", res)
	}
	if _, err := os.Stat(canary); err == nil {
		t.Errorf("git ran the repository above's program")
	}
}
