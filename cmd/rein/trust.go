package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/trust"
)

type trustCmd struct {
	List   bool `help:"List the approved recipes." xor:"what"`
	Forget bool `help:"Withdraw the approval of this repository's recipe." xor:"what"`
	JSON   bool `help:"Print the result as JSON."`
}

func (c *trustCmd) Help() string {
	return `A repository's rein.jsonnet decides what commands may run there: it can
allow anything and turn the sandbox off. So rein ask, exec, run and mcp run
nothing under a repository recipe until you approve it, and again after it
(or a file it imports) changes — a project cloned from a stranger, a git pull,
a recipe a command wrote. Read it first ('rein compile' shows what it allows),
then 'rein trust' approves it as it is now. In a terminal rein asks instead.

rein check, test, compile and doctor need no approval: they run nothing. Your
user recipe, --recipe files and --preset need none either; with CI=true (a
CI pipeline runs its own repository's recipe) every recipe is approved.`
}

func (c *trustCmd) Run(g *Globals, e *env) error {
	if g.Preset != "" {
		return fmt.Errorf("rein trust approves the repository's %s, which --preset %s replaces: leave --preset out", recipe.FileName, g.Preset)
	}
	rec, err := openApprovals()
	if err != nil {
		return err
	}
	if c.List {
		list := rec.List()
		if c.JSON {
			return writeJSON(e.stdout, list, true)
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no approved recipes")
		}
		for _, t := range list {
			fmt.Fprintf(e.stdout, "%s  approved %s  (%.12s)\n", t.Recipe, t.TrustedAt.Format("2006-01-02 15:04"), t.Fingerprint)
		}
		return nil
	}
	path, ok := recipe.FindRepository(discoveryDir(g))
	if !ok {
		return fmt.Errorf("no %s here or in a folder above %s: there is nothing to approve", recipe.FileName, discoveryDir(g))
	}
	if c.Forget {
		had, err := rec.Forget(path)
		switch {
		case err != nil:
			return err
		case c.JSON:
			return writeJSON(e.stdout, map[string]any{"recipe": path, "forgotten": had}, true)
		case had:
			fmt.Fprintf(e.stdout, "withdrew the approval of %s\n", path)
		default:
			fmt.Fprintf(e.stdout, "%s was not approved\n", path)
		}
		return nil
	}
	r, err := loadRecipe(g)
	if err != nil {
		return err
	}
	fp, files, err := approve(rec, path, r.Imports)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSON(e.stdout, map[string]any{"recipe": path, "fingerprint": fp, "files": files, "allows": recipeSummary(r)}, true)
	}
	fmt.Fprintf(e.stdout, "approved %s as it is now (%s)\n  it allows: %s\n", path, plural(len(files), "file"), recipeSummary(r))
	return nil
}

// approve records the recipe at path, with its imports, as approved.
func approve(rec *trust.Record, path string, imports []string) (fingerprint string, files []string, err error) {
	if fingerprint, files, err = trust.Fingerprint(path, imports); err == nil {
		err = rec.Trust(path, fingerprint, files)
	}
	return fingerprint, files, err
}

// openApprovals opens the approvals, kept in rein's state folder (whatever
// --db says), which no sandbox grant may hold and rein writes for no model.
func openApprovals() (*trust.Record, error) {
	state := recipe.StateDir()
	if state == "" {
		return nil, fmt.Errorf("rein has no state folder to keep approved recipes in (no home folder and no XDG_STATE_HOME); set XDG_STATE_HOME")
	}
	return trust.Open(filepath.Join(state, trust.FileName))
}

func discoveryDir(g *Globals) string {
	if g.Dir != "" {
		return g.Dir
	}
	wd, _ := os.Getwd()
	return wd
}

// approvalCheck is the repository recipe as it is now, and what the
// approvals say of it.
type approvalCheck struct {
	path, fingerprint string
	files             []string
	record            *trust.Record
	state             trust.State
}

// checkApproval looks the repository recipe the loaded recipe was merged
// from up in the approvals; nil when there is none (no rein.jsonnet, or a
// preset in its place).
func checkApproval(g *Globals, r *recipe.Recipe) (*approvalCheck, error) {
	if g.Preset != "" {
		return nil, nil
	}
	path, ok := recipe.FindRepository(discoveryDir(g))
	if !ok || !slices.Contains(r.Sources, path) {
		return nil, nil
	}
	c := &approvalCheck{path: path}
	var err error
	if c.record, err = openApprovals(); err != nil {
		return nil, err
	}
	if c.fingerprint, c.files, err = trust.Fingerprint(path, r.Imports); err != nil {
		return nil, err
	}
	c.state = c.record.State(path, c.fingerprint)
	return c, nil
}

// requireTrust lets a command that runs things go on only under a
// repository recipe someone approved as it is now: asking in a terminal,
// refusing elsewhere with what to do.
func requireTrust(g *Globals, r *recipe.Recipe, e *env) error {
	if ciApproves() {
		return nil
	}
	c, err := checkApproval(g, r)
	if err != nil || c == nil || c.state == trust.Trusted {
		return err
	}
	why := map[trust.State]string{
		trust.New:     "rein has not seen it on this machine",
		trust.Changed: "it (or a file it imports) changed since it was approved",
	}[c.state]
	if !e.stdinTerminal {
		fmt.Fprintf(e.stderr, "rein: the recipe %s is not approved: %s. It decides what commands may run here (it allows: %s). Read it (rein compile shows what it allows), then run rein trust; or use --preset readonly to run without it.\n", c.path, why, recipeSummary(r))
		return codeError(exitUsage)
	}
	fmt.Fprintf(e.stderr, "rein: %s decides what commands may run here, and %s.\n  it allows: %s\nApprove it as it is now? [y/N] ", c.path, why, recipeSummary(r))
	if answer := readLine(e.stdin); answer != "y" && answer != "yes" {
		fmt.Fprintln(e.stderr, "rein: not approved; nothing was run (rein trust approves it later)")
		return codeError(exitUsage)
	}
	return c.record.Trust(c.path, c.fingerprint, c.files)
}

// approval says whether the repository recipe is approved, for rein doctor.
func approval(g *Globals, r *recipe.Recipe) (path, state string) {
	c, err := checkApproval(g, r)
	switch {
	case err != nil:
		return "?", err.Error()
	case c == nil:
		return "", ""
	case c.state == trust.Trusted:
		return c.path, "yes"
	case ciApproves():
		return c.path, "by CI=true (" + c.state.String() + " to rein)"
	}
	return c.path, "no, " + c.state.String() + " — rein ask, exec, run and mcp ask first; rein trust approves it"
}

func ciApproves() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}

// recipeSummary says in one line what a recipe lets commands do.
func recipeSummary(r *recipe.Recipe) string {
	parts := []string{fmt.Sprintf("%s, %s, %s", plural(len(r.Commands), "catalog command"), plural(len(r.Allow), "allow rule"), plural(len(r.Tasks), "task"))}
	if r.Default != "" && r.Default != "deny" {
		parts = append(parts, "anything else: "+r.Default)
	}
	sandbox := "sandbox " + r.Sandbox.Mode
	if r.Sandbox.Mode == "off" {
		sandbox = "NO SANDBOX"
	}
	parts = append(parts, sandbox, "network "+r.Sandbox.Network)
	return strings.Join(parts, "; ")
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// readLine reads one line byte by byte, so that nothing after it is taken
// from the input the command or later prompts read.
func readLine(r io.Reader) string {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' {
				break
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			break
		}
	}
	return strings.ToLower(strings.TrimSpace(b.String()))
}
