package main

import (
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/report"
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
	rec, err := app.OpenApprovals()
	if err != nil {
		return err
	}
	if c.List {
		// Approvals of recipes whose folder is gone are dropped as they
		// are listed: they approve nothing any more.
		gone, err := rec.Prune()
		if err != nil {
			return err
		}
		if len(gone) > 0 && !c.JSON {
			fmt.Fprintf(e.stderr, "rein: dropped the approvals of %s, which no longer exist\n", strings.Join(gone, ", "))
		}
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
	if c.Forget {
		path, ok := recipe.FindRepository(g.Dir)
		if !ok {
			return errNothingToApprove
		}
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
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	a, err := app.CheckApproval(r)
	if err != nil {
		return err
	}
	if a == nil {
		return errNothingToApprove
	}
	if err := a.Approve(); err != nil {
		return err
	}
	path, fp, files := a.Path, a.Fingerprint, a.Files
	summary := report.RecipeSummary(r)
	if c.JSON {
		return writeJSON(e.stdout, map[string]any{"recipe": path, "fingerprint": fp, "files": files, "allows": summary, "widens": report.Widenings(r)}, true)
	}
	fmt.Fprintf(e.stdout, "approved %s as it is now (%s)\n  it allows: %s\n", path, report.Count(len(files), "file"), summary)
	for _, w := range report.Widenings(r) {
		fmt.Fprintf(e.stdout, "  + %s\n", w)
	}
	return nil
}

var errNothingToApprove = fmt.Errorf("no %s in this folder or any above it: there is nothing to approve", recipe.FileName)

// approvalRefusal says why the repository's recipe may not run anything
// yet ("" when it may), without asking anyone: rein mcp answers every call
// with it.
func approvalRefusal(r *recipe.Recipe) (string, error) {
	if app.CIApproves() {
		return "", nil
	}
	c, err := app.CheckApproval(r)
	if err != nil || c == nil || c.State == trust.Trusted {
		return "", err
	}
	return fmt.Sprintf("the recipe %s is not approved: %s. It decides what commands may run here; read it (rein compile --summary shows what it allows), then run rein trust in %s, and restart this server", c.Path, c.Why(), filepath.Dir(c.Path)), nil
}

// requireTrust lets a command that runs things go on only under a
// repository recipe someone approved as it is now: asking in a terminal,
// refusing elsewhere with what to do.
func requireTrust(r *recipe.Recipe, e *env) error {
	if app.CIApproves() {
		return nil
	}
	c, err := app.CheckApproval(r)
	if err != nil || c == nil || c.State == trust.Trusted {
		return err
	}
	why := c.Why()
	summary := report.RecipeSummary(r)
	if !e.stdinTerminal {
		fmt.Fprintf(e.stderr, "rein: the recipe %s is not approved: %s. It decides what commands may run here (it allows: %s). Read it (rein compile --summary shows what it allows), then run rein trust; or use --preset readonly to run without it.\n", c.Path, why, summary)
		return codeError(exitUsage)
	}
	fmt.Fprintf(e.stderr, "rein: %s decides what commands may run here, and %s.\n  it allows: %s\n", c.Path, why, summary)
	for _, w := range report.Widenings(r) {
		fmt.Fprintf(e.stderr, "  + %s\n", w)
	}
	if c.State == trust.Changed {
		showChanges(e.stderr, c)
	}
	fmt.Fprint(e.stderr, "Approve it as it is now? [y/N] ")
	if answer := readLine(e.stdin); answer != "y" && answer != "yes" {
		fmt.Fprintln(e.stderr, "rein: not approved; nothing was run (rein trust approves it later)")
		return codeError(exitUsage)
	}
	return c.Approve()
}

// approval says whether the repository recipe is approved, for rein doctor.
func approval(r *recipe.Recipe) (path, state string) {
	c, err := app.CheckApproval(r)
	switch {
	case err != nil:
		return "?", err.Error()
	case c == nil:
		return "", ""
	case c.State == trust.Trusted:
		return c.Path, "yes"
	case app.CIApproves():
		return c.Path, "by CI=true (" + c.State.String() + " to rein)"
	}
	return c.Path, "no, " + c.State.String() + " — rein ask, exec, run and mcp ask first; rein trust approves it"
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

// showChanges shows a changed recipe (and the files it imports, the
// scripts it runs) as what changed since it was approved.
func showChanges(w io.Writer, c *app.Approval) {
	was, ok := c.Record.Approved(c.Path)
	if !ok {
		return
	}
	files := slices.Compact(slices.Sorted(slices.Values(append(append([]string(nil), c.Files...), was.Files...))))
	for _, f := range files {
		old, had := was.Texts[f]
		b, err := os.ReadFile(f)
		switch {
		case !had && err == nil && slices.Contains(was.Files, f):
			fmt.Fprintf(w, "  changed: %s (too long to show)\n", f)
			continue
		case !had && err == nil:
			old = ""
		case err != nil:
			b = nil
		}
		if string(b) == old {
			continue
		}
		fmt.Fprintf(w, "  changed since approved: %s\n", f)
		for _, l := range report.LineDiff(old, string(b), 40) {
			fmt.Fprintf(w, "    %s\n", report.Visible(l))
		}
	}
}
