package sandbox

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/reinsh/rein/"

// The sandbox applies what it is given: it reaches none of the packages
// that decide (policy, the shell analysis) or run (runner, tools), so the
// package graph flows one way, from the deciders to it.
func TestSandboxImportsNoDecider(t *testing.T) {
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
		for _, imp := range p.Imports {
			if rest, ok := strings.CutPrefix(imp, module); ok {
				walk(imp, filepath.Join("..", "..", filepath.FromSlash(rest)))
			}
		}
	}
	walk(module+"engine/sandbox", ".")
	if !reached[module+"engine/recipe"] {
		t.Fatal("the walk did not reach engine/recipe, which the sandbox imports")
	}
	for _, decider := range []string{"engine/policy", "shellparse", "engine/runner", "engine/tools", "cmd/rein"} {
		if reached[module+decider] {
			t.Errorf("engine/sandbox imports %s (directly or not)", decider)
		}
	}
}
