package main

import (
	"fmt"
	"github.com/reinsh/rein/engine/recipe"
	"os"
	"strings"

	"github.com/reinsh/rein/engine/starter"
)

type initCmd struct {
	Print bool `help:"Print the recipe instead of writing rein.jsonnet."`
}

func (c *initCmd) Help() string {
	return `Writes a starter rein.jsonnet for the repository in the working folder (or
--dir): it detects Go, Node, Python, Rust, Make and git, extends the matching
presets, lists the repository's package scripts, make targets and scripts/
files as commands with descriptions, and adds tests that pass right away.
It never overwrites an existing recipe.`
}

func (c *initCmd) Run(g *Globals, e *env) error {
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
	text := starter.Render(p, dir)
	if c.Print {
		fmt.Fprint(e.stdout, text)
		return nil
	}
	path, err := starter.Write(dir, text)
	if err != nil {
		return err
	}
	// Written here at the person's request, it is approved as written.
	rec, err := openApprovals()
	var written *recipe.Recipe
	if err == nil {
		// What it imports and the scripts it allows are part of it.
		gd := *g
		gd.Dir = dir
		written, err = loadRecipe(&gd)
	}
	if err == nil {
		_, _, err = approve(rec, path, written.Imports, written.Scripts)
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
	fmt.Fprintf(e.stdout, "wrote %s\n  found: %s\n  commands: %d scripts and targets\nnext: rein test, then rein check 'your command' or rein ask '...'\n",
		path, strings.Join(kinds, ", "), len(p.MakeTargets)+len(p.NodeScripts)+len(p.Scripts))
	return nil
}
