package sandbox

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/reinsh/rein/"

// The sandbox applies what it is given: it imports no other package of
// rein (the recipe reaches it as plain Options), so the package graph flows
// one way, from the deciders to it, and the helper binary that links it
// (cmd/rein-sandbox) stays small: no recipe language, no database, no
// policy.
func TestSandboxImportsNoDecider(t *testing.T) {
	for _, start := range []struct{ pkg, dir string }{
		{module + "engine/sandbox", "."},
		{module + "cmd/rein-sandbox", filepath.Join("..", "..", "cmd", "rein-sandbox")},
	} {
		reached := map[string]bool{}
		var walk func(pkg, dir string)
		walk = func(pkg, dir string) {
			if reached[pkg] {
				return
			}
			reached[pkg] = true
			p, err := build.ImportDir(dir, 0)
			if err != nil {
				t.Fatalf("%s: %v", pkg, err)
			}
			if len(p.Imports) == 0 {
				t.Fatalf("%s: no imports read", pkg)
			}
			for _, imp := range p.Imports {
				if rest, ok := strings.CutPrefix(imp, module); ok {
					walk(imp, filepath.Join("..", "..", filepath.FromSlash(rest)))
				}
			}
		}
		walk(start.pkg, start.dir)
		for pkg := range reached {
			if pkg != start.pkg && pkg != module+"engine/sandbox" {
				t.Errorf("%s imports %s (directly or not)", start.pkg, pkg)
			}
		}
	}
}
