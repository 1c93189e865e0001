package runner

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/reinsh/rein/engine/recipe"
)

// BenchmarkKeepAndRestore is what every run pays to note and check the
// kept files of a repository with a recipe, an import and git's sample
// hooks, when nothing changed.
func BenchmarkKeepAndRestore(b *testing.B) {
	dir := b.TempDir()
	if err := exec.Command("git", "-C", dir, "init", "-q").Run(); err != nil {
		b.Skip("needs git")
	}
	src, lib := filepath.Join(dir, "rein.jsonnet"), filepath.Join(dir, "lib.libsonnet")
	os.WriteFile(src, []byte("(import 'lib.libsonnet') + { allow: ['ls'] }\n"), 0o644)
	os.WriteFile(lib, []byte("{ deny: ['rm *'] }\n"), 0o644)
	r := &Runner{recipe: &recipe.Recipe{Sources: []string{"builtin:readonly", src}, Imports: []string{lib}}, workspace: dir}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if note := r.restore(r.keep()); note != "" {
			b.Fatal(note)
		}
	}
}
