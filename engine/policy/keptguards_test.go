package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/recipes"
)

// A policy whose rule guards were kept by an earlier one decides every
// command as a policy that read them off the rules: for each preset, over
// the mixed texts and the readonly cases. A damaged file is read past, and
// a rule changed is a key of its own.
func TestKeptGuardsDecideAlike(t *testing.T) {
	cache := t.TempDir()
	texts := reuseTexts()
	for _, preset := range recipes.Presets {
		r, fresh := presetRecipe(t, preset, "")
		first, err := policy.New(r, policy.Options{CacheDir: cache, Home: "/home/dev"}) // reads the rules, keeps their guards
		if err != nil {
			t.Fatal(err)
		}
		kept, err := policy.New(r, policy.Options{CacheDir: cache, Home: "/home/dev"}) // reads what first kept
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range texts {
			want := decisionJSON(t, fresh.Check(text))
			for name, p := range map[string]*policy.Policy{"keeping": first, "kept": kept} {
				if got := decisionJSON(t, p.Check(text)); got != want {
					t.Fatalf("%s, %s guards, %q:\n%s\nwant\n%s", preset, name, text, got, want)
				}
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(cache, "guards", "*.json"))
	if len(files) != len(recipes.Presets) {
		t.Fatalf("kept %d files for %d presets (same rules share one)", len(files), len(recipes.Presets))
	}
	for _, f := range files {
		os.WriteFile(f, []byte(`[{"names": 7}`), 0o600)
	}
	r, fresh := presetRecipe(t, "readonly", "")
	damaged, err := policy.New(r, policy.Options{CacheDir: cache, Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range texts {
		if got, want := decisionJSON(t, damaged.Check(text)), decisionJSON(t, fresh.Check(text)); got != want {
			t.Fatalf("after a damaged file, %q:\n%s\nwant\n%s", text, got, want)
		}
	}
	r.Rules[0].Each += " && true"
	if _, err := policy.New(r, policy.Options{CacheDir: cache, Home: "/home/dev"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := filepath.Glob(filepath.Join(cache, "guards", "*.json")); len(after) != len(files)+1 {
		t.Errorf("a changed rule kept %d files, want %d", len(after), len(files)+1)
	}
}
