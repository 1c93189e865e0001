package main

import (
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"os"
	"os/signal"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/engine/session"
	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/tasks"
)

type runCmd struct {
	Task []string `arg:"" optional:"" passthrough:"partial" help:"Task to run, then its parameters as --name value, --name=value or positionals. Without a task: list the tasks."`
	Yes  bool     `short:"y" help:"Approve steps whose verdict is ask. Never overrides deny."`
	JSON bool     `help:"Print the last step's result object instead of live output (or the task list as JSON)."`
}

func (c *runCmd) Help() string {
	return `Runs a recipe task with rein's embedded shell: dependencies first (once each),
then its steps in order; a failing step stops the task with its exit code.
Parameters reach the scripts as shell variables ("$name"), never spliced into
the text. Every step is vetted by the recipe's policy plus the task's own
explicit allow list (see rein check --task).`
}

func (c *runCmd) Run(g *Globals, e *env) error {
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	if len(c.Task) == 0 {
		if c.JSON {
			return writeJSON(e.stdout, r.Tasks, true)
		}
		report.Tasks(e.stdout, r)
		return nil
	}
	name := c.Task[0]
	t, ok := r.Tasks[name]
	if !ok {
		_, err := tasks.Plan(r, name)
		return err
	}
	named, positional, err := parseTaskArgs(c.Task[1:], t)
	if err != nil {
		return err
	}
	params, err := tasks.Bind(name, t, named, positional)
	if err != nil {
		return err
	}
	if err := requireTrust(r, e); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, stErr := appOf(g).OpenStore()
	if stErr != nil {
		fmt.Fprintf(e.stderr, "rein: warning: not audited: %v\n", stErr)
	} else {
		defer st.Close()
	}
	opts := tasks.Options{Approved: c.Yes}
	if !c.JSON {
		opts.Stdout, opts.Stderr = e.stdout, e.stderr
	}
	var started int64 // the running step's audit row (steps run one at a time)
	opts.OnStep = func(task, script string, d *policy.Decision) {
		if !c.JSON {
			fmt.Fprintf(e.stderr, "▶ %s: %s\n", task, oneLine(script))
		}
		started = 0
		if st != nil && d.Verdict != policy.Deny {
			var err error
			if started, err = session.StartCall(st, nil, runRecord(r.Workspace, script, d)); err != nil {
				fmt.Fprintf(e.stderr, "rein: warning: not audited: %v\n", err)
			}
		}
	}
	var failed string // the step that stopped the task, for the person
	opts.OnResult = func(task, script string, d *policy.Decision, res *runner.Result) {
		if res.Error == "" && res.ExitCode != 0 {
			failed = fmt.Sprintf("task %s stopped at `%s`", task, oneLine(script))
			if !res.TimedOut && res.Stopped == "" { // else explain says why
				failed += fmt.Sprintf(": exit %d", res.ExitCode)
			}
		}
		if st == nil {
			return
		}
		if err := session.FinishCall(st, started, nil, runRecord(r.Workspace, script, d), res); err != nil {
			fmt.Fprintf(e.stderr, "rein: warning: not audited: %v\n", err)
		}
	}
	var runnerErr error
	opts.Runner = func(p *policy.Policy) *runner.Runner {
		run, err := app.NewRunner(p, e.stderr)
		if err != nil {
			runnerErr = err
			return runner.New(p, runner.Options{Sandbox: &sandbox.Config{Mode: "read-only", Workspace: p.Recipe().Workspace}})
		}
		return run
	}
	res, err := tasks.Run(ctx, r, name, params, opts)
	if runnerErr != nil {
		return runnerErr
	}
	if err != nil {
		return err
	}
	if c.JSON {
		if err := writeJSON(e.stdout, res, true); err != nil {
			return err
		}
	} else {
		if res.Decision != nil {
			report.Decision(e.stderr, res.Decision)
		}
		if failed != "" {
			fmt.Fprintln(e.stderr, "rein: "+failed)
		}
		explain(e.stderr, res)
	}
	return resultExit(res)
}

func oneLine(s string) string {
	return report.Clip(strings.ReplaceAll(strings.TrimSpace(s), "\n", "; "), 100)
}

// runRecord is the audit record of a task's step.
func runRecord(workspace, script string, d *policy.Decision) store.Command {
	return store.Command{Source: "run", Workspace: workspace, Command: script, Verdict: d.Verdict, Rule: d.Rule, Reason: d.Reason}
}
