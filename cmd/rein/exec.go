package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"github.com/reinsh/rein/shellparse"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/session"
	"github.com/reinsh/rein/engine/store"
)

type execCmd struct {
	Command []string      `arg:"" passthrough:"partial" help:"Shell text to run (quote it); put rein's flags first."`
	JSON    bool          `help:"Print the result object instead of the live output (a denial's too; with --dry-run, the decision)."`
	Timeout time.Duration `help:"Stop the command after this long (default: the recipe's limits.timeout)."`
	DryRun  bool          `name:"dry-run" help:"Vet and show the decision; run nothing."`
	Yes     bool          `short:"y" help:"Approve commands whose verdict is ask. Never overrides deny."`
	Cwd     string        `help:"Working folder, inside the workspace (default: where you are, when that is inside the workspace; else the workspace)." placeholder:"DIR"`
	// Set by the command line rein hook rewrites an agent's call to: the
	// run is audited under the agent's session and tool call.
	Hook        string `hidden:"" help:"The agent whose hook handed this command over."`
	HookSession string `name:"hook-session" hidden:"" help:"The agent's session id."`
	ToolUseID   string `name:"tool-use-id" hidden:"" help:"The agent's id of the tool call."`
}

func (c *execCmd) Help() string {
	return `Vets the command like 'rein check', then runs it with rein's embedded shell
(no bash needed): every command is re-vetted as it runs, each program runs in
its own process group with a timeout, output is capped, and the environment
is built from the recipe (secrets removed).

Exit status: the command's own; 124 when it timed out; 77 when rein denied
it; 75 when it needs confirmation (--yes); 2 on a usage or recipe error, or
when the repository's recipe is not approved yet (see rein trust). (rein
check, which runs nothing, answers 0 allow, 1 deny, 3 ask.)`
}

func (c *execCmd) Run(g *Globals, e *env) error {
	var db *app.PendingStore
	if !c.DryRun {
		db = appOf(g).OpenStoreAsync()
		defer db.Discard()
	}
	p, err := appOf(g).LoadPolicy("exec")
	if err != nil {
		return err
	}
	if !c.DryRun {
		if err := requireTrust(p.Recipe(), e); err != nil {
			return err
		}
	}
	words, err := commandWords(c.Command)
	if err != nil {
		return err
	}
	text := strings.Join(words, " ")
	dir := c.Cwd
	if dir == "" {
		dir = startFolder(g, p.Recipe().Workspace)
	}
	d := p.Decide(policy.Facts{Text: text, Dir: absIn(dir, p.Recipe().Workspace)}) // relative paths read from where it runs
	switch {
	case d.Verdict == policy.Deny || d.Verdict == policy.Ask && !c.Yes:
		if !c.DryRun { // a dry run opens no database: nothing was run to record
			a := c.startAudit(e, db, p, text, d, false)
			a.finish(nil)
		}
		if c.JSON {
			// The result object a denial gets when it happens at run time.
			if err := writeJSON(e.stdout, runner.Denied(d), true); err != nil {
				return err
			}
		} else {
			report.Decision(e.stderr, d)
			if d.Verdict == policy.Ask {
				fmt.Fprintln(e.stderr, "rein: this command needs confirmation; run again with --yes to approve it")
			}
		}
		if d.Verdict == policy.Ask {
			return codeError(exitConfirm)
		}
		return codeError(exitRefused)
	case c.DryRun && c.JSON:
		return writeJSON(e.stdout, d, true) // the decision, as rein check --json prints it
	case c.DryRun:
		report.Decision(e.stdout, d)
		fmt.Fprintln(e.stdout, "(dry run: nothing was run)")
		return nil
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := runner.RunOptions{Timeout: c.Timeout, Approved: c.Yes, Dir: dir}
	if !e.stdinTerminal {
		opts.Stdin = e.stdin
	}
	if !c.JSON {
		opts.Stdout, opts.Stderr = e.stdout, e.stderr
	}
	run, err := app.NewRunner(p, e.stderr)
	if err != nil {
		return err
	}
	a := c.startAudit(e, db, p, text, d, true)
	res := run.Run(ctx, text, opts)
	a.finish(res)
	if c.JSON {
		if err := writeJSON(e.stdout, res, true); err != nil {
			return err
		}
	} else {
		explain(e.stderr, res)
	}
	return resultExit(res)
}

// startFolder is where a command starts: the folder rein was started in
// (or --dir names) when it lies inside the workspace, else "" (the
// workspace). A person in src/ who runs rein exec 'ls' sees src.
func startFolder(g *Globals, workspace string) string {
	here := g.Dir
	if here == "" {
		here, _ = os.Getwd()
	}
	if here == "" {
		return ""
	}
	real, err := filepath.EvalSymlinks(here)
	ws, werr := filepath.EvalSymlinks(workspace)
	if err != nil || werr != nil || !policy.Inside(real, ws) || real == ws {
		return ""
	}
	// Named from the workspace as rein names it (its path may hold a link).
	rel, err := filepath.Rel(ws, real)
	if err != nil {
		return ""
	}
	return filepath.Join(workspace, rel)
}

// absIn is dir as an absolute folder, relative ones from the workspace.
func absIn(dir, workspace string) string {
	if dir == "" {
		return workspace
	}
	if !filepath.IsAbs(dir) {
		return filepath.Join(workspace, dir)
	}
	return dir
}

// execFlags are rein exec's own flags, as a person may put them after the
// command by mistake.
var execFlags = []string{"--json", "--dry-run", "--yes", "-y", "--timeout", "--cwd"}

// commandWords is the command's words: a leading -- (rein exec -- 'echo
// hi') only ends rein's flags, and one of rein's flags after a quoted
// command is refused with a hint (rein exec 'echo hi' --json ran echo hi
// --json).
func commandWords(words []string) ([]string, error) {
	if len(words) > 0 && words[0] == "--" {
		words = words[1:]
	}
	if len(words) == 0 {
		return nil, errors.New("rein exec needs a command: rein exec 'git status'")
	}
	if strings.ContainsAny(words[0], " \t") {
		for _, w := range words[1:] {
			name, _, _ := strings.Cut(w, "=")
			if slices.Contains(execFlags, name) {
				return nil, fmt.Errorf("%s comes after the command; put rein's flags first: rein exec %s %s", w, w, shellparse.Quote(words[0]))
			}
		}
	}
	return words, nil
}

// resultExit maps a run's result to rein's exit status: 77 when refused, 2 on
// another error, else the command's own status.
func resultExit(res *runner.Result) error {
	switch {
	case res.DeniedBy != "":
		return codeError(exitRefused)
	case res.Error != "":
		return codeError(exitUsage)
	case res.ExitCode != 0:
		return codeError(min(max(res.ExitCode, 1), 255))
	}
	return nil
}

// explain tells a person what the live output does not show.
func explain(w io.Writer, res *runner.Result) {
	switch {
	case res.Decision != nil:
		fmt.Fprintln(w, "rein: "+res.Error)
	case res.Error != "":
		fmt.Fprintln(w, "rein: "+res.Error)
	case res.TimedOut:
		fmt.Fprintf(w, "rein: timed out after %s (exit 124)\n", time.Duration(res.DurationMS)*time.Millisecond)
	case res.Stopped == "memory":
		fmt.Fprintf(w, "rein: stopped: the command's shell took more memory than rein allows one run (exit %d)\n", res.ExitCode)
	case res.Stopped == "output":
		fmt.Fprintf(w, "rein: stopped: the command went on printing far past limits.max_output_bytes (exit %d)\n", res.ExitCode)
	case res.Truncated:
		fmt.Fprintln(w, "rein: output was longer than limits.max_output_bytes; the result kept its head and tail")
	}
}

// execAudit is one command's audit record. A command that runs is recorded
// "started" before it runs, so that a rein killed meanwhile leaves a trace
// rein audit shows as interrupted. A database problem is a warning here (a
// person is running the command), not a refusal.
type execAudit struct {
	e    *env
	st   *store.Store
	sess *store.Session
	id   int64
	rec  store.Command
	err  error
}

func (c *execCmd) startAudit(e *env, db *app.PendingStore, p *policy.Policy, text string, d *policy.Decision, running bool) *execAudit {
	a := &execAudit{e: e, rec: store.Command{Source: "exec", Workspace: p.Recipe().Workspace, Command: text, Verdict: d.Verdict, Rule: d.Rule, Reason: d.Reason}}
	a.st, a.err = db.Take()
	if c.Hook != "" {
		// A hook's rewritten run: under the agent's name and session.
		a.rec.Source, a.rec.ToolUseID = c.Hook, c.ToolUseID
		if a.err == nil {
			a.sess = agentSession(a.st, c.Hook, c.HookSession, a.rec.Workspace)
		}
	}
	if a.err == nil && running {
		a.id, a.err = session.StartCall(a.st, a.sess, a.rec)
	}
	return a
}

func (a *execAudit) finish(res *runner.Result) {
	if a.st != nil {
		if a.err == nil {
			a.err = session.FinishCall(a.st, a.id, a.sess, a.rec, res)
		}
		a.e.closeStore(a.st)
	}
	if a.err != nil {
		fmt.Fprintf(a.e.stderr, "rein: warning: not audited: %v\n", a.err)
	}
}
