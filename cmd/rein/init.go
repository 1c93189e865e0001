package main

import (
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsh/rein/engine/starter"
)

type initCmd struct {
	Print       bool   `help:"Print the recipe instead of writing rein.jsonnet."`
	FromHistory string `name:"from-history" enum:",claude-code,codex" default:"" help:"Propose additions to the existing rein.jsonnet from what your agent (claude-code or codex) really ran here and the recipe would ask about; --write adds them."`
	Write       bool   `help:"With --from-history: append the proposed additions (catalog entries and their tests)."`
}

func (c *initCmd) Help() string {
	return `Writes a starter rein.jsonnet for the repository in the working folder (or
--dir): it detects Go, Node, Python, Rust, Make and git, extends the matching
presets, lists the repository's package scripts, make targets and scripts/
files as commands with descriptions, and adds tests that pass right away.
It never overwrites an existing recipe.`
}

func (c *initCmd) Run(g *Globals, e *env) error {
	if c.FromHistory != "" {
		return c.fromHistory(g, e)
	}
	dir := g.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return err
		}
	}
	p, err := starter.Detect(dir)
	if err != nil {
		return err
	}
	if err := vetTargets(p, dir); err != nil {
		return err
	}
	text := starter.Render(p, dir)
	if c.Print {
		fmt.Fprint(e.stdout, text)
		return nil
	}
	path, err := starter.Write(dir, text)
	if err != nil {
		return err
	}
	// Written here at the person's request, it is approved as written, with
	// what it imports and the scripts it allows.
	gd := *g
	gd.Dir = dir
	written, err := appOf(&gd).LoadRecipe()
	var a *app.Approval
	if err == nil {
		a, err = app.CheckApproval(written)
	}
	if err == nil && a != nil {
		err = a.Approve()
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "rein: warning: %v; run rein trust before rein exec, run or ask\n", err)
	}
	var kinds []string
	for _, k := range []struct {
		on   bool
		name string
	}{{p.Go, "Go"}, {p.Node, "Node (" + p.NodeTool + ")"}, {p.Python, "Python"}, {p.Rust, "Rust"}, {p.Make, "Make"}, {p.Git, "git"}} {
		if k.on {
			kinds = append(kinds, k.name)
		}
	}
	if len(kinds) == 0 {
		kinds = []string{"nothing specific (readonly preset)"}
	}
	asked := 0
	for _, t := range p.MakeTargets {
		if t.Refused != "" {
			asked++
		}
	}
	commands := fmt.Sprintf("%d scripts and targets", len(p.MakeTargets)-asked+len(p.NodeScripts)+len(p.Scripts))
	if asked > 0 {
		commands += fmt.Sprintf("; %d make targets ask first (their commands are not allowed on their own: see the recipe)", asked)
	}
	fmt.Fprintf(e.stdout, "wrote %s\n  found: %s\n  commands: %s\nnext: rein test, then rein check 'your command' or rein ask '...'\n",
		path, strings.Join(kinds, ", "), commands)
	return nil
}

// vetTargets marks the make targets whose commands the recipe rein init
// writes would not run on their own (make publish runs twine upload): they
// ask instead of being catalogued as allowed.
func vetTargets(p *starter.Project, dir string) error {
	if len(p.MakeTargets) == 0 {
		return nil
	}
	tmp, err := os.MkdirTemp("", "rein-init-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := os.WriteFile(filepath.Join(tmp, recipe.FileName), []byte(starter.Render(p, dir)), 0o644); err != nil {
		return err
	}
	r, err := recipe.Load(recipe.Options{Dir: tmp, UserFile: "-", CacheDir: "-"})
	if err != nil {
		return err
	}
	pol, err := policy.New(r, policy.Options{Tool: "init"})
	if err != nil {
		return err
	}
	for i := range p.MakeTargets {
		t := &p.MakeTargets[i]
		for _, line := range t.Lines {
			if d := pol.Check(line); d.Verdict != policy.Allow {
				t.Refused = fmt.Sprintf("%s is %s by %s", line, d.Verdict, d.Rule)
				break
			}
		}
	}
	return nil
}
