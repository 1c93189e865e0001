package policy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
)

// agentCommand is one command of testdata/agent-commands.json.
type agentCommand struct {
	Preset, Label, Command, Source, Harm string
}

// agentFloor is the share of the corpus's benign commands the matching
// presets allow, at least: it only goes up (the goal is 85%).
const agentFloor = 0.85

// Real agents' commands (testdata/agent-commands.json, each with the
// public thread it comes from) under the preset of their ecosystem: no
// harmful one is allowed, each is refused or asked with a reason naming
// the harm, and the benign ones are allowed at least agentFloor of the
// time. The test reports the share per preset and each benign command
// still refused.
func TestAgentCommands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "agent-commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var corpus struct{ Commands []agentCommand }
	if err := json.Unmarshal(b, &corpus); err != nil {
		t.Fatal(err)
	}
	project := agentProject(t)
	policies := map[string]*policy.Policy{}
	type tally struct{ benign, allowed int }
	byPreset := map[string]*tally{}
	var refused []string
	for _, c := range corpus.Commands {
		p := policies[c.Preset]
		if p == nil {
			p = projectPolicy(t, project, c.Preset)
			policies[c.Preset] = p
		}
		d := p.Check(c.Command)
		switch c.Label {
		case "harmful":
			if d.Verdict == policy.Allow {
				t.Errorf("%s allowed the harmful %q (%s)", c.Preset, c.Command, c.Source)
			} else if !strings.Contains(strings.ToLower(d.Reason), c.Harm) {
				t.Errorf("%s refused %q, but the reason does not say it would %s: %s: %s", c.Preset, c.Command, c.Harm, d.Rule, d.Reason)
			}
		case "benign":
			tl := byPreset[c.Preset]
			if tl == nil {
				tl = &tally{}
				byPreset[c.Preset] = tl
			}
			tl.benign++
			if d.Verdict == policy.Allow {
				tl.allowed++
			} else {
				refused = append(refused, fmt.Sprintf("%-8s %-5s %s — %s: %s", c.Preset, d.Verdict, c.Command, d.Rule, d.Reason))
			}
		default:
			t.Errorf("%q: label %q", c.Command, c.Label)
		}
	}
	benign, allowed := 0, 0
	names := make([]string, 0, len(byPreset))
	for n := range byPreset {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tl := byPreset[n]
		benign, allowed = benign+tl.benign, allowed+tl.allowed
		t.Logf("%-8s %3d of %3d benign commands allowed (%.0f%%)", n, tl.allowed, tl.benign, 100*float64(tl.allowed)/float64(tl.benign))
	}
	share := float64(allowed) / float64(benign)
	t.Logf("all      %3d of %3d benign commands allowed (%.0f%%); refused or asked:\n%s", allowed, benign, 100*share, strings.Join(refused, "\n"))
	if share < agentFloor {
		t.Errorf("the presets allow %.0f%% of the benign agent commands, below %.0f%%", 100*share, 100*agentFloor)
	}
}

// agentProject is a project like those the corpus's commands ran in: a git
// repository with a package.json and its scripts, the tools its commands
// name installed (node_modules/.bin, .venv/bin), a Go module and a tracked
// script. The facts rein reads (a local tool, a package script, a tracked
// script) are the project's, as they were in the threads.
func agentProject(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	files := map[string]string{
		"package.json":              `{"scripts": {"dev": "vite", "build": "tsc -b", "test": "jest", "test:unit": "jest src", "lint": "eslint .", "typecheck": "tsc --noEmit", "format": "prettier -w .", "check-format": "prettier -c .", "validate": "tsc --noEmit && eslint ."}}`,
		"scripts/run-req-tests.mjs": "console.log('ok')\n",
		"hack/go.sh":                "#!/bin/sh\ngo vet ./pkg/...\n",
		"go.mod":                    "module example.com/x\n\ngo 1.22\n",
		"pyproject.toml":            "[project]\nname = \"x\"\n",
		"src/metrics.ts":            "export {}\n",
		"README.md":                 "x\n",
	}
	for _, tool := range []string{"tsc", "jest", "eslint", "supabase", "prisma", "vite"} {
		files["node_modules/.bin/"+tool] = "#!/bin/sh\n"
	}
	for name, body := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "hack/go.sh", "scripts", "package.json", "go.mod"}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "x"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	return dir
}

// projectPolicy is a preset's policy in the project, with the git facts
// rein gathers when it runs.
func projectPolicy(t *testing.T, dir, preset string) *policy.Policy {
	t.Helper()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("(import 'rein.libsonnet').presets."+preset+"\n"), 0o644)
	r, err := recipe.Load(recipe.Options{Dir: dir, CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(r, policy.Options{Home: "/home/dev", Tracked: runner.Tracked(r.Workspace)})
	if err != nil {
		t.Fatal(err)
	}
	return p
}
