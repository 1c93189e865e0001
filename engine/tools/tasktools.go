package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tasks"
)

// taskTools maps exposed tasks to tool names: the task's name, or task_NAME
// when it would shadow a built-in tool.
func (s *Set) taskTools() map[string]string {
	out := map[string]string{}
	for _, name := range tasks.Names(s.policy.Recipe()) {
		if !s.policy.Recipe().Tasks[name].Expose {
			continue
		}
		tool := name
		if _, builtin := defaultTools[name]; builtin {
			tool = "task_" + name
		}
		out[tool] = name
	}
	return out
}

func (s *Set) taskSpecs() []Spec {
	var out []Spec
	r := s.policy.Recipe()
	for tool, name := range s.taskTools() {
		t := r.Tasks[name]
		desc := fmt.Sprintf("Run the recipe task %q: %s. Its steps: %s", name, t.Description, strings.Join(tasks.Steps(t), "; "))
		out = append(out, Spec{Name: tool, Description: desc, Schema: tasks.Schema(t)})
	}
	sortSpecs(out)
	return out
}

// callTask runs an exposed task with the model's arguments.
func (s *Set) callTask(ctx context.Context, tool, name string, args map[string]json.RawMessage) Outcome {
	r := s.policy.Recipe()
	t := r.Tasks[name]
	named := map[string]string{}
	for k, raw := range args {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return errorOutcome("argument %s: %v", k, err)
		}
		named[k] = fmt.Sprint(v)
	}
	params, err := tasks.Bind(name, t, named, nil)
	if err != nil {
		return errorOutcome("%v", err)
	}
	// The task's decision is the strictest of its steps (and dependencies').
	order, err := tasks.Plan(r, name)
	if err != nil {
		return errorOutcome("%v", err)
	}
	var worst *policy.Decision
	for _, n := range order {
		p, err := tasks.Policy(r, r.Tasks[n])
		if err != nil {
			return errorOutcome("%v", err)
		}
		for _, step := range tasks.Steps(r.Tasks[n]) {
			if d := p.Check(step); worst == nil || d.Verdict > worst.Verdict {
				worst = d
			}
		}
	}
	if worst == nil {
		return errorOutcome("task %s has no steps", name)
	}
	worst = s.policy.Confirm(tool, worst)
	command := "task " + name
	for _, k := range tasks.ParamNames(t) {
		command += fmt.Sprintf(" --%s=%q", k, params[k])
	}
	return s.execute(ctx, tool, command, "", worst, func(approved bool) *runner.Result {
		res, err := tasks.Run(ctx, r, name, params, tasks.Options{Approved: approved, Runner: func(*policy.Policy) *runner.Runner { return s.runner }})
		if err != nil {
			return runner.Failed("%v", err)
		}
		return res
	})
}
