package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/reinsh/rein/engine/recipe"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/shellparse"
)

func (s *Set) runCommand(ctx context.Context, args map[string]json.RawMessage) Outcome {
	var a struct{ Command, Reason string }
	if o, ok := decode(args, &a, "command"); !ok {
		return o
	}
	d, err := s.runner.Decide(policy.Facts{Text: a.Command, Tool: RunCommand})
	if err != nil {
		return errorOutcome("%v", err)
	}
	return s.execute(ctx, RunCommand, a.Command, a.Reason, d, func(approved bool) *runner.Result {
		return s.runner.Run(ctx, a.Command, runner.RunOptions{Approved: approved})
	})
}

func (s *Set) executeCommand(ctx context.Context, args map[string]json.RawMessage) Outcome {
	var a struct {
		Command string
		Args    []string
		Cwd     string
		Timeout int
	}
	if o, ok := decode(args, &a, "command"); !ok {
		return o
	}
	limits := s.policy.Recipe().Limits
	def, longest := executeTimeouts(limits)
	switch {
	case a.Timeout < 0:
		return errorOutcome("timeout must be at least 1 second")
	case a.Timeout == 0:
		a.Timeout = int(def.Seconds())
	case time.Duration(a.Timeout)*time.Second > longest:
		return errorOutcome("timeout %d s is longer than execute_command allows (%d s); give at most %d, or leave it out for %d", a.Timeout, int(longest.Seconds()), int(longest.Seconds()), int(def.Seconds()))
	}
	argv := append([]string{a.Command}, a.Args...)
	text := shellparse.JoinArgv(argv)
	d, err := s.runner.Decide(policy.Facts{Argv: argv, Dir: a.Cwd, Tool: ExecuteCommand})
	if err != nil {
		return errorOutcome("%v", err)
	}
	return s.execute(ctx, ExecuteCommand, text, "", d, func(approved bool) *runner.Result {
		return s.runner.RunArgv(ctx, argv, runner.RunOptions{Approved: approved, Dir: a.Cwd, Timeout: time.Duration(a.Timeout) * time.Second})
	})
}

// execute applies the decision: deny refuses, ask asks a person (or, with
// no one to ask, refuses and says so), allow runs.
func (s *Set) execute(ctx context.Context, tool, command, reason string, d *policy.Decision, run func(approved bool) *runner.Result) Outcome {
	verdict := d.Verdict
	ev := CommandEvent{Tool: tool, Command: command, Reason: reason, Decision: d, DryRun: s.opts.DryRun}
	if s.opts.BeforeCommand != nil {
		s.opts.BeforeCommand(ev)
	}
	if s.opts.StartCommand != nil {
		inner := run
		run = func(approved bool) *runner.Result {
			ev.AuditID = s.opts.StartCommand(ev)
			return inner(approved)
		}
	}
	out := s.decideAndRun(ctx, ev, verdict, run)
	if s.opts.AfterCommand != nil && out.Result != nil {
		s.opts.AfterCommand(ev, out.Result)
	}
	return out
}

func (s *Set) decideAndRun(ctx context.Context, ev CommandEvent, verdict policy.Verdict, run func(approved bool) *runner.Result) Outcome {
	tool, command, reason, d := ev.Tool, ev.Command, ev.Reason, ev.Decision
	approved := false
	switch verdict {
	case policy.Deny:
		return s.resultOutcome(command, runner.Denied(d))
	case policy.Ask:
		s.mu.Lock()
		always := s.always[command]
		s.mu.Unlock()
		switch {
		case always || s.opts.Yes:
			approved = true
		case s.opts.Approver == nil:
			res := runner.Denied(d)
			res.Error = "this command needs a person's confirmation and there is no terminal to ask on, so it was treated as denied: " + res.Error
			return s.resultOutcome(command, res)
		default:
			ans, err := s.opts.Approver(ctx, ApprovalRequest{Tool: tool, Command: command, Reason: reason, Decision: d})
			if err != nil {
				return errorOutcome("could not ask for confirmation: %v", err)
			}
			if !ans.Approved {
				msg := "the user declined to run this command"
				if ans.Note != "" {
					msg += "; their note: " + ans.Note
				}
				return s.resultOutcome(command, &runner.Result{Error: msg, DeniedBy: "user"})
			}
			approved = true
			if ans.Always || ans.Remember {
				s.mu.Lock()
				s.always[command] = true
				s.mu.Unlock()
			}
			if ans.Remember && s.opts.Remember != nil {
				s.opts.Remember(command) // it tells the person; the model is not told
			}
		}
	}
	if s.opts.DryRun {
		return jsonOutcome(map[string]any{"dry_run": true, "would_run": command, "verdict": d.Verdict.String(), "rule": d.Rule},
			"dry run: would run "+command)
	}
	s.mu.Lock()
	s.ran++
	s.mu.Unlock()
	return s.resultOutcome(command, run(approved))
}

func (s *Set) resultOutcome(command string, res *runner.Result) Outcome {
	b, err := json.Marshal(res)
	if err != nil {
		return errorOutcome("cannot encode the result: %v", err)
	}
	o := Outcome{Output: string(b), Success: res.Error == "", Command: command, Result: res}
	switch {
	case res.Error != "":
		o.Summary = res.Error
	case res.TimedOut:
		o.Summary = fmt.Sprintf("timed out (exit %d)", res.ExitCode)
	case res.Stopped != "":
		o.Summary = fmt.Sprintf("stopped for its %s (exit %d)", res.Stopped, res.ExitCode)
	default:
		o.Summary = fmt.Sprintf("exit %d", res.ExitCode)
	}
	return o
}

// approveTool asks before a tool the recipe marks "ask".
func (s *Set) approveTool(ctx context.Context, name, arguments string) (Outcome, bool) {
	if s.opts.Yes {
		return Outcome{}, true
	}
	if s.opts.Approver == nil {
		return errorOutcome("the %s tool needs a person's confirmation and there is no terminal to ask on, so it was refused", name), false
	}
	ans, err := s.opts.Approver(ctx, ApprovalRequest{Tool: name, Command: name + " " + arguments})
	if err != nil {
		return errorOutcome("could not ask for confirmation: %v", err), false
	}
	if !ans.Approved {
		return errorOutcome("the user declined the %s call: %s", name, ans.Note), false
	}
	return Outcome{}, true
}

// executeTimeouts are execute_command's default and longest timeouts
// (limits.execute_timeout and execute_max_timeout, filled in by the
// recipe's loading), at least a second each.
func executeTimeouts(l recipe.Limits) (def, longest time.Duration) {
	def, longest = l.ExecuteTimeout.D(), l.ExecuteMaxTimeout.D()
	return max(def, time.Second), max(longest, def, time.Second)
}
