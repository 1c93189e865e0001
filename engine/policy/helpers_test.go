package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

// presetPolicy compiles a built-in preset for a temporary workspace.
func presetPolicy(t testing.TB, name string) *policy.Policy {
	t.Helper()
	return presetPolicyFor(t, name, "")
}

// presetPolicyFor compiles a preset for an operating system ("": this one).
func presetPolicyFor(t testing.TB, name, goos string) *policy.Policy {
	t.Helper()
	_, p := presetRecipe(t, name, goos)
	return p
}

// presetRecipe compiles a preset and returns it with its policy.
func presetRecipe(t testing.TB, name, goos string) (*recipe.Recipe, *policy.Policy) {
	t.Helper()
	r, err := recipe.Load(recipe.Options{Preset: name, OS: goos, CacheDir: "-", UserFile: "-", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(r, policy.Options{Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// anywherePolicy compiles a preset whose commands may read everything
// but the secret paths (paths.scope: 'anywhere'): the secret lists are the
// defence there.
func anywherePolicy(t testing.TB, name string) *policy.Policy {
	t.Helper()
	r, _ := presetRecipe(t, name, "")
	r.Paths.Scope = "anywhere"
	p, err := policy.New(r, policy.Options{Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// lazyPolicy compiles a recipe written for the test into a policy told its
// rules were checked (RulesChecked), so that they compile when first used.
func lazyPolicy(t testing.TB, jsonnet string) (*recipe.Recipe, *policy.Policy) {
	t.Helper()
	r, err := recipe.Load(recipe.Options{Dir: recipeDir(t, jsonnet), CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(r, policy.Options{RulesChecked: true})
	if err != nil {
		t.Fatal(err)
	}
	return r, p
}

// recipePolicy compiles a recipe written for the test.
func recipePolicy(t testing.TB, jsonnet string) *policy.Policy {
	t.Helper()
	p, err := loadRecipeText(t, jsonnet)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// wantVerdicts checks p's verdict on each command.
func wantVerdicts(t *testing.T, p *policy.Policy, want map[string]policy.Verdict) {
	t.Helper()
	for command, v := range want {
		if d := p.Check(command); d.Verdict != v {
			t.Errorf("%s: %s by %s (%s), want %s", command, d.Verdict, d.Rule, d.Reason, v)
		}
	}
}

// recipeDir writes a rein.jsonnet into a fresh folder and returns the folder.
func recipeDir(t testing.TB, jsonnet string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(jsonnet), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadRecipeText(t testing.TB, jsonnet string) (*policy.Policy, error) {
	t.Helper()
	r, err := recipe.Load(recipe.Options{Dir: recipeDir(t, jsonnet), CacheDir: "-", UserFile: "-"})
	if err != nil {
		return nil, err
	}
	return policy.New(r, policy.Options{Home: "/home/dev"})
}

// deniedCommands are the commands of readonlyDenied.
func deniedCommands() []string {
	var out []string
	for _, c := range readonlyDenied {
		out = append(out, c.command)
	}
	return out
}
