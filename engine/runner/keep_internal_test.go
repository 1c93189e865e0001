package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/sandbox"
)

// BenchmarkKeepAndRestore is what every run pays to note and check the
// kept files of a repository with a recipe, an import and git's sample
// hooks, when nothing changed; without a sandbox, the home folder's
// start-up files too.
func BenchmarkKeepAndRestore(b *testing.B) {
	dir := b.TempDir()
	if err := exec.Command("git", "-C", dir, "init", "-q").Run(); err != nil {
		b.Skip("needs git")
	}
	src, lib := filepath.Join(dir, "rein.jsonnet"), filepath.Join(dir, "lib.libsonnet")
	os.WriteFile(src, []byte("(import 'lib.libsonnet') + { allow: ['ls'] }\n"), 0o644)
	os.WriteFile(lib, []byte("{ deny: ['rm *'] }\n"), 0o644)
	for _, bb := range []struct {
		name string
		box  *sandbox.Config
	}{{"sandboxed", &sandbox.Config{Mode: "workspace-write"}}, {"unsandboxed", nil}} {
		b.Run(bb.name, func(b *testing.B) {
			r := &Runner{recipe: &recipe.Recipe{Sources: []string{"builtin:readonly", src}, Imports: []string{lib}}, workspace: dir, sandbox: bb.box}
			for i := 0; i < b.N; i++ {
				if note := r.restore(r.keep()); note != "" {
					b.Fatal(note)
				}
			}
		})
	}
}

// BenchmarkNestedWalk is what every run under a recipe that can write the
// workspace pays to look for repositories made below its top, on rein's
// own source tree (about 40 folders; node_modules is not entered).
func BenchmarkNestedWalk(b *testing.B) {
	top, err := filepath.Abs("../..")
	if err != nil {
		b.Fatal(err)
	}
	r := &Runner{recipe: &recipe.Recipe{}, workspace: top, sandbox: &sandbox.Config{Mode: "workspace-write", Workspace: top}}
	start := time.Now()
	for b.Loop() {
		if notes := r.nestedRepositories(start, fileClock(), nil); len(notes) > 0 {
			b.Fatal(notes)
		}
	}
}

// What rein takes out of the workspace it reaches through the workspace's
// own folders: a folder on the way that a command made a link to another
// place (red team round four swapped one in as rein moved it) leads
// nowhere, and what is there stays.
func TestRejectStaysInTheWorkspace(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	os.MkdirAll(filepath.Join(elsewhere, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(elsewhere, ".ssh", "id_rsa"), []byte("KEY"), 0o600)
	os.Symlink(elsewhere, filepath.Join(ws, "a"))
	r := &Runner{recipe: &recipe.Recipe{}, workspace: ws}
	note := r.reject(filepath.Join(ws, "a", ".ssh"), "for the test")
	if _, err := os.Stat(filepath.Join(elsewhere, ".ssh", "id_rsa")); err != nil {
		t.Fatalf("rein took a folder from outside the workspace: %v (%s)", err, note)
	}
	if err := r.removeBeneath(filepath.Join(ws, "a", ".ssh")); err == nil {
		t.Error("removing through a link out of the workspace did not fail")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, ".ssh", "id_rsa")); err != nil {
		t.Fatalf("rein removed a folder outside the workspace: %v", err)
	}
	// Inside, it goes.
	os.MkdirAll(filepath.Join(ws, "b", ".husky"), 0o755)
	r.reject(filepath.Join(ws, "b", ".husky"), "for the test")
	if _, err := os.Stat(filepath.Join(ws, "b", ".husky")); err == nil {
		t.Error("b/.husky is still in the workspace")
	}
}
