// Package policytest compiles recipes into policies for tests of the
// packages built on them (runner, tools, agent, MCP server): apart from the
// user's own recipe and the compile cache, and failing the test on any
// error.
package policytest

import (
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

// Load compiles the recipe of the workspace dir (its rein.jsonnet, if it
// has one) over preset ("" for none), and its policy.
func Load(t testing.TB, dir, preset string) (*recipe.Recipe, *policy.Policy) {
	t.Helper()
	r, err := recipe.Load(recipe.Options{Dir: dir, Preset: preset, CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(r, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}
