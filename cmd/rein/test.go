package main

import (
	"fmt"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/tasks"
	"github.com/reinsh/rein/engine/version"
	"github.com/reinsh/rein/recipes"
)

type testCmd struct {
	JSON      bool `help:"Print every suite with every case as JSON."`
	Verbose   bool `short:"v" help:"Show passing cases too."`
	NoPresets bool `help:"Skip the built-in presets' own tests."`
}

func (c *testCmd) Help() string {
	return `Runs the tests of the effective recipe (user, repository and --recipe merged,
so the tests of the presets it extends are included), then each built-in
preset's tests under that preset alone. A failure shows the command, the
expected and actual decision, and the rule that decided it.

Exit status: 0 when every case passes, 1 when any fails, 2 on a recipe error.`
}

func (c *testCmd) Run(g *Globals, e *env) error {
	p, err := appOf(g).LoadPolicy("test")
	if err != nil {
		return err
	}
	r := p.Recipe()
	name := "recipe"
	if len(r.Sources) > 0 {
		name = r.Sources[len(r.Sources)-1]
	}
	suites := []report.TestSuite{{Name: name, Results: p.RunTests()}}
	if !c.NoPresets {
		for _, preset := range recipes.Presets {
			pr, err := recipe.Load(recipe.Options{Preset: preset, Dir: r.Workspace, UserFile: "-", Version: version.String()})
			if err != nil {
				return fmt.Errorf("preset %s: %w", preset, err)
			}
			pp, err := policy.New(pr, policy.Options{Tool: "test"})
			if err != nil {
				return fmt.Errorf("preset %s: %w", preset, err)
			}
			suites = append(suites, report.TestSuite{Name: "preset " + preset, Results: pp.RunTests()})
		}
	}
	failed := 0
	for _, s := range suites {
		failed += s.Failed()
	}
	// Every task must be plannable: a dependency cycle fails the tests.
	var planErrors []string
	for _, name := range tasks.Names(r) {
		if _, err := tasks.Plan(r, name); err != nil {
			planErrors = append(planErrors, err.Error())
		}
	}
	failed += len(planErrors)
	if c.JSON {
		if err := writeJSON(e.stdout, suites, true); err != nil {
			return err
		}
	} else {
		report.Tests(e.stdout, suites, c.Verbose)
		for _, msg := range planErrors {
			fmt.Fprintf(e.stdout, "FAIL tasks: %s\n", msg)
		}
	}
	if failed > 0 {
		return codeError(exitDeny)
	}
	return nil
}
