package main

import (
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"os"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/trust"
)

// allowCmd writes a command the person approved into the repository's
// recipe: a catalog entry, and a test that pins it.
type allowCmd struct {
	Command     []string `arg:"" passthrough:"partial" help:"The command, as it was asked about (quote it)."`
	Description string   `short:"d" help:"What the command is for, shown to the model in the catalog."`
	DryRun      bool     `name:"dry-run" help:"Print what would be added; change nothing."`
}

func (c *allowCmd) Help() string {
	return `Adds the command to this repository's rein.jsonnet as a catalog entry (the
model sees it, and it is allowed from then on, with any further arguments) and
as a test (rein test pins its verdict). For a command rein asked about that
you approve every time. A command the recipe denies is not added: a rule
refuses it, and the rule says why; change the rule instead.

If the recipe was approved (rein trust), the approval is renewed for the
changed file: you made the change yourself.`
}

func (c *allowCmd) Run(g *Globals, e *env) error {
	if g.Preset != "" {
		return errors.New("rein allow writes the repository's rein.jsonnet, which --preset replaces: leave --preset out")
	}
	words, err := commandWords(c.Command)
	if err != nil {
		return err
	}
	text := strings.TrimSpace(strings.Join(words, " "))
	if text == "" || strings.ContainsAny(text, "\n\x00") {
		return errors.New("give one command on one line, e.g. rein allow 'terraform plan'")
	}
	msg, err := addToRecipe(g, text, c.Description, c.DryRun)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, msg)
	return nil
}

// addToRecipe adds text to the repository's recipe as a catalog entry and a
// test (rein allow, and the [r] answer of rein ask's prompt), and says
// what it did.
func addToRecipe(g *Globals, text, description string, dryRun bool) (string, error) {
	p, err := appOf(g).LoadPolicy("allow")
	if err != nil {
		return "", err
	}
	r := p.Recipe()
	path, ok := r.Repository()
	if !ok {
		return "", fmt.Errorf("there is no %s in %s to add it to: run rein init first", recipe.FileName, r.Workspace)
	}
	d := p.Check(text)
	switch d.Verdict {
	case policy.Allow:
		return fmt.Sprintf("%s is allowed already (rule %s); nothing to add\n", text, d.Rule), nil
	case policy.Deny:
		if !askable(d) {
			return "", fmt.Errorf("%s is denied by rule %s (%s): a catalog entry does not overrule a deny rule; change the rule in %s if it should run", text, d.Rule, d.Reason, path)
		}
	}
	before, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	addition := allowEntry(text, description)
	if dryRun {
		return fmt.Sprintf("would append to %s:\n%s", path, addition), nil
	}
	wasTrusted := false
	if a, err := app.CheckApproval(r); err == nil && a != nil && a.State == trust.Trusted {
		wasTrusted = true
	}
	after := strings.TrimRight(string(before), "\n") + "\n" + addition
	if err := writeFileLike(path, []byte(after)); err != nil {
		return "", err
	}
	// The recipe must load, and allow the command, as it now reads.
	np, err := appOf(g).LoadPolicy("allow")
	if err == nil && np.Check(text).Verdict != policy.Allow {
		err = fmt.Errorf("it still does not allow it (rule %s: %s)", np.Check(text).Rule, np.Check(text).Reason)
	}
	if err != nil {
		if werr := writeFileLike(path, before); werr != nil {
			return "", fmt.Errorf("the changed recipe failed (%v), and rein could not put the old one back: %v; fix %s by hand", err, werr, path)
		}
		return "", fmt.Errorf("adding %s to %s failed, so the file is as it was: %w", text, path, err)
	}
	if wasTrusted {
		if a, err := app.CheckApproval(np.Recipe()); err == nil && a != nil {
			if err := a.Approve(); err != nil {
				return "", fmt.Errorf("added, but the approval could not be renewed: %w; run rein trust", err)
			}
		}
	}
	return fmt.Sprintf("added %s to %s (a catalog entry and a test)\n", text, path), nil
}

// askable reports whether a denial is only the verdict for what no rule
// names (an unknown program under a deny default), which a catalog entry
// answers: not a rule that refuses the command.
func askable(d *policy.Decision) bool {
	return d.Rule == "shell.unknown_program" || d.Rule == "default"
}

// allowEntry is the Jsonnet rein allow appends: an object added to the
// recipe's expression, whatever its local names.
func allowEntry(command, description string) string {
	q := func(s string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'" }
	return fmt.Sprintf("+ {\n  // Added by rein allow on %s.\n  commands+: [{ command: %s, description: %s }],\n  tests+: { allow+: [%s] },\n}\n",
		time.Now().Format("2006-01-02"), q(command), q(description), q(command))
}

// writeFileLike writes data to path keeping its permissions.
func writeFileLike(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	return os.WriteFile(path, data, mode)
}
