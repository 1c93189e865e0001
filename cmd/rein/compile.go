package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/report"
)

type compileCmd struct {
	Summary bool `help:"Print a one-screen summary of what the recipe allows, instead of the whole compiled recipe."`
}

func (c *compileCmd) Help() string {
	return `Evaluates the recipe Jsonnet (built-in defaults, user recipe, repository
rein.jsonnet, --recipe), validates it against the recipe schema, merges it,
compiles its expr rules, and prints the result. Errors name file:line:col.
With --summary, one screen: where it comes from, what it allows, and every
grant beyond the readonly preset.`
}

func (c *compileCmd) Run(g *Globals, e *env) error {
	// loadPolicy also compiles the expr rules, so a broken rule fails here.
	p, err := appOf(g).LoadPolicy("compile")
	if err != nil {
		return err
	}
	r := p.Recipe()
	if !c.Summary {
		return writeJSON(e.stdout, r, true)
	}
	w := e.stdout
	fmt.Fprintf(w, "recipe:     %s\n", strings.Join(r.Sources, " + "))
	fmt.Fprintf(w, "workspace:  %s\n", r.Workspace)
	fmt.Fprintf(w, "allows:     %s\n", report.RecipeSummary(r))
	programs := slices.Sorted(maps.Keys(r.Programs))
	fmt.Fprintf(w, "programs:   %d (%s)\n", len(programs), shortList(programs, 16))
	var catalog []string
	for _, cmd := range r.Commands {
		catalog = append(catalog, cmd.Command)
	}
	fmt.Fprintf(w, "catalog:    %d (%s)\n", len(catalog), shortList(catalog, 6))
	if len(r.Tasks) > 0 {
		fmt.Fprintf(w, "tasks:      %s\n", strings.Join(slices.Sorted(maps.Keys(r.Tasks)), ", "))
	}
	fmt.Fprintf(w, "rules:      %d; unknown options: %s; anything else: %s\n", len(r.Rules), orDefault(r.Shell.UnknownOption, "ask"), r.Default)
	if widens := report.Widenings(r); len(widens) > 0 {
		fmt.Fprintln(w, "beyond readonly:")
		for _, x := range widens {
			fmt.Fprintf(w, "  + %s\n", x)
		}
	}
	return nil
}

// shortList is the first n items, then how many more.
func shortList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(", … %d more", len(items)-n)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
