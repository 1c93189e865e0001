package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/recipe"
)

// workspaceWithSecret is a workspace holding sub/.env, sub/.husky and an
// ordinary file, walked once (its cache written) a second ago.
func workspaceWithSecret(t *testing.T) (ws, cache string) {
	t.Helper()
	ws, cache = t.TempDir(), t.TempDir()
	for name, text := range map[string]string{"sub/.env": "SECRET", "sub/.husky/pre-commit": "echo hi", "notes.txt": "n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, name)), 0o755)
		os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644)
	}
	// The cache trusts only folders that changed more than a second ago.
	past := time.Now().Add(-2 * time.Second)
	for _, d := range []string{"sub/.husky", "sub", "."} {
		os.Chtimes(filepath.Join(ws, d), past, past)
	}
	time.Sleep(1100 * time.Millisecond)
	if secrets, _ := workspaceSecrets(ws, recipe.SecretPaths, cache); !slices.Contains(secrets, filepath.Join(ws, "sub", ".env")) {
		t.Fatalf("the first walk did not find sub/.env: %v", secrets)
	}
	return ws, cache
}

// A command that renames a folder and sets its parent's time back does not
// make the next walk trust a stale listing: folders are known by their
// change time, which no command can set.
func TestSecretWalkSeesRenamedFolders(t *testing.T) {
	ws, cache := workspaceWithSecret(t)
	st, _ := os.Stat(ws)
	os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "zub"))
	os.Chtimes(ws, st.ModTime(), st.ModTime())
	secrets, hidden := workspaceSecrets(ws, recipe.SecretPaths, cache)
	if !slices.Contains(secrets, filepath.Join(ws, "zub", ".env")) || !slices.Contains(hidden, filepath.Join(ws, "zub", ".husky")) {
		t.Errorf("after the rename: secrets %v, hidden %v", secrets, hidden)
	}
}

// A command that makes more folders than a walk reads does not uncover the
// secrets an earlier walk found: the folders it read come first.
func TestSecretWalkKeepsWhatItFoundPastItsBudget(t *testing.T) {
	ws, cache := workspaceWithSecret(t)
	for i := range 2 * secretWalkMax {
		os.Mkdir(filepath.Join(ws, fmt.Sprintf("a%05d", i)), 0o755)
	}
	// New folders are read after known ones; walked once, the new ones
	// are known too, and come first.
	for range 2 {
		workspaceSecrets(ws, recipe.SecretPaths, cache)
	}
	secrets, hidden := workspaceSecrets(ws, recipe.SecretPaths, cache)
	if !slices.Contains(secrets, filepath.Join(ws, "sub", ".env")) || !slices.Contains(hidden, filepath.Join(ws, "sub", ".husky")) {
		t.Errorf("past the budget: secrets %v, hidden %v", secrets, hidden)
	}
}

// A link in a PATH folder that commands may write (an activated venv in
// the workspace) grants nothing: a command could make it lead anywhere.
func TestLinksWhereCommandsWriteGrantNothing(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	private := filepath.Join(home, "private")
	os.Mkdir(private, 0o700)
	bin := filepath.Join(ws, ".venv", "bin")
	os.MkdirAll(bin, 0o755)
	os.Symlink(filepath.Join(private, "canary"), filepath.Join(bin, "helper"))
	t.Setenv("PATH", bin+string(filepath.ListSeparator)+os.Getenv("PATH"))
	if reads := grantedReads(nil, []string{ws}); slices.ContainsFunc(reads, func(r string) bool { return within(private, r) }) {
		t.Errorf("a link in the workspace granted %v", reads)
	}
	// The same link in a PATH folder of the home folder that commands
	// cannot write leads to a toolchain, which is granted.
	tools := filepath.Join(home, "tools", "bin")
	os.MkdirAll(tools, 0o755)
	os.MkdirAll(filepath.Join(home, "opt", "node", "bin"), 0o755)
	os.Symlink(filepath.Join(home, "opt", "node", "bin", "node"), filepath.Join(tools, "node"))
	os.WriteFile(filepath.Join(home, "opt", "node", "bin", "node"), nil, 0o755)
	t.Setenv("PATH", tools)
	if reads := grantedReads(nil, []string{ws}); !slices.Contains(reads, filepath.Join(home, "opt", "node")) {
		t.Errorf("a toolchain's link was not followed: %v", reads)
	}
}

// A secret in a build folder or a virtual environment is the project's as
// much as one at the top: the walk enters them (red team round 2 read
// target/.env and .venv/.env).
func TestSecretWalkEntersToolFolders(t *testing.T) {
	ws := t.TempDir()
	for _, f := range []string{"target/.env", ".venv/.env", "__pycache__/.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, f)), 0o755)
		os.WriteFile(filepath.Join(ws, f), []byte("S"), 0o644)
	}
	secrets, _ := workspaceSecrets(ws, recipe.SecretPaths, "")
	for _, f := range []string{"target/.env", ".venv/.env", "__pycache__/.env"} {
		if !slices.Contains(secrets, filepath.Join(ws, f)) {
			t.Errorf("%s not found: %v", f, secrets)
		}
	}
}
