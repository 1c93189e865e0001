package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/app"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/tools"
	"github.com/reinsh/rein/engine/trust"
)

// isolate points rein's state, cache and configuration at throwaway folders.
func isolate(t *testing.T) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("REIN_CACHE_DIR", t.TempDir())
	t.Setenv("REIN_DB", "")
	t.Setenv("CI", "")
	return state
}

func TestDBPath(t *testing.T) {
	state := isolate(t)
	if got, want := (app.Options{}).DBPath(), filepath.Join(state, "rein", "rein.db"); got != want {
		t.Errorf("default: %s, want %s", got, want)
	}
	t.Setenv("REIN_DB", "/x/env.db")
	if got := (app.Options{}).DBPath(); got != "/x/env.db" {
		t.Errorf("$REIN_DB: %s", got)
	}
	if got := (app.Options{DB: "/x/flag.db"}).DBPath(); got != "/x/flag.db" {
		t.Errorf("--db: %s", got)
	}
}

// A repository recipe is new until approved, approved as it is, and
// changed once edited; a preset has nothing to approve.
func TestApproval(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "rein.jsonnet")
	os.WriteFile(file, []byte("(import 'rein.libsonnet').presets.readonly\n"), 0o644)
	load := func() *app.Approval {
		t.Helper()
		r, err := app.Options{Dir: dir}.LoadRecipe()
		if err != nil {
			t.Fatal(err)
		}
		a, err := app.CheckApproval(r)
		if err != nil || a == nil {
			t.Fatalf("approval: %v %v", a, err)
		}
		return a
	}
	a := load()
	if a.State != trust.New || a.Path != file || a.Why() == "" {
		t.Fatalf("new recipe: %+v", a)
	}
	if err := a.Approve(); err != nil {
		t.Fatal(err)
	}
	if a := load(); a.State != trust.Trusted {
		t.Errorf("approved recipe: %v", a.State)
	}
	os.WriteFile(file, []byte("(import 'rein.libsonnet').presets.dev\n"), 0o644)
	if a := load(); a.State != trust.Changed {
		t.Errorf("edited recipe: %v", a.State)
	}
	r, err := app.Options{Dir: dir, Preset: "readonly"}.LoadRecipe()
	if err != nil {
		t.Fatal(err)
	}
	if a, err := app.CheckApproval(r); a != nil || err != nil {
		t.Errorf("preset: %+v %v", a, err)
	}
}

// Assemble builds one policy and the runner that enforces it: the tool set
// decides through that runner.
func TestAssemble(t *testing.T) {
	isolate(t)
	r, err := app.Options{Dir: t.TempDir(), Preset: "readonly"}.LoadRecipe()
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.Assemble(r, policy.Options{Tool: tools.RunCommand}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if a.Policy.Recipe() != r || a.Runner == nil {
		t.Fatalf("%+v", a)
	}
	if d, err := a.Runner.Decide(policy.Facts{Text: "rm -rf /"}); err != nil || d.Verdict != policy.Deny {
		t.Errorf("rm -rf /: %v %v", d, err)
	}
	if _, err := a.Runner.Decide(policy.Facts{Text: "ls", Dir: "/"}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("a folder outside the workspace: %v", err)
	}
	if got := a.Tools(tools.Options{}).Specs(); len(got) == 0 {
		t.Error("no tools")
	}
}
