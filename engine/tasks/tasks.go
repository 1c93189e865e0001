// Package tasks runs a recipe's tasks: dependencies first (once each),
// typed parameters bound and passed to the scripts as shell variables, every
// step vetted by the recipe's policy (plus the task's own explicit allow
// list) and run by the runner.
package tasks

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/reinsh/rein/engine/suggest"
	"io"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
)

// Plan returns the tasks to run for name, dependencies first, each once. A
// cycle is an error naming it.
func Plan(r *recipe.Recipe, name string) ([]string, error) {
	if _, ok := r.Tasks[name]; !ok {
		return nil, fmt.Errorf("no task %q%s%s", name, suggest.DidYouMean(name, Names(r)), listTasks(r))
	}
	var order []string
	state := map[string]int{} // 0 new, 1 visiting, 2 done
	var stack []string
	var visit func(string) error
	visit = func(n string) error {
		switch state[n] {
		case 2:
			return nil
		case 1:
			i := indexOf(stack, n)
			return fmt.Errorf("task dependencies form a cycle: %s", strings.Join(append(stack[i:], n), " → "))
		}
		t, ok := r.Tasks[n]
		if !ok {
			return fmt.Errorf("task %q depends on %q, which is not a task", stack[len(stack)-1], n)
		}
		state[n] = 1
		stack = append(stack, n)
		for _, d := range t.Deps {
			if err := visit(d); err != nil {
				return err
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = 2
		order = append(order, n)
		return nil
	}
	return order, visit(name)
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return 0
}

func listTasks(r *recipe.Recipe) string {
	if len(r.Tasks) == 0 {
		return "; this recipe has no tasks"
	}
	return "; the tasks are: " + strings.Join(Names(r), ", ")
}

// Names lists a recipe's tasks, sorted.
func Names(r *recipe.Recipe) []string {
	return slices.Sorted(maps.Keys(r.Tasks))
}

// ParamNames lists a task's parameters, sorted.
func ParamNames(t *recipe.Task) []string {
	return slices.Sorted(maps.Keys(t.Params))
}

// Bind checks and completes a task's parameter values: named values,
// positionals (required parameters first), then defaults. Every parameter without a
// default must be given.
func Bind(name string, t *recipe.Task, named map[string]string, positional []string) (map[string]string, error) {
	names := ParamNames(t)
	values := map[string]string{}
	for k, v := range named {
		if _, ok := t.Params[k]; !ok {
			return nil, fmt.Errorf("task %s has no parameter %q%s (its parameters: %s)", name, k, suggest.DidYouMean(k, names), strings.Join(names, ", "))
		}
		values[k] = v
	}
	// Positionals fill the parameters not given by name: required ones
	// first, then those with defaults, each group alphabetically (Jsonnet
	// objects keep no declaration order).
	free := make([]string, 0, len(names))
	for _, required := range []bool{true, false} {
		for _, n := range names {
			if _, ok := values[n]; !ok && (t.Params[n].Default == nil) == required {
				free = append(free, n)
			}
		}
	}
	if len(positional) > len(free) {
		return nil, fmt.Errorf("task %s takes %d more argument(s), got %d: %q", name, len(free), len(positional), positional)
	}
	for i, v := range positional {
		values[free[i]] = v
	}
	for _, n := range names {
		p := t.Params[n]
		v, given := values[n]
		if !given {
			if p.Default == nil {
				return nil, fmt.Errorf("task %s needs --%s (%s)", name, n, describe(p))
			}
			v = fmt.Sprint(p.Default)
		}
		canon, err := check(n, p, v)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", name, err)
		}
		values[n] = canon
	}
	return values, nil
}

func describe(p *recipe.Param) string {
	s := p.Type
	if p.Type == "enum" {
		s = "one of " + strings.Join(p.Enum, ", ")
	}
	if p.Description != "" {
		s += ": " + p.Description
	}
	return s
}

func check(name string, p *recipe.Param, v string) (string, error) {
	switch p.Type {
	case "int":
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return "", fmt.Errorf("--%s must be a whole number, got %q", name, v)
		}
		return strconv.Itoa(n), nil
	case "bool":
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return "", fmt.Errorf("--%s must be true or false, got %q", name, v)
		}
		return strconv.FormatBool(b), nil
	case "enum":
		for _, e := range p.Enum {
			if v == e {
				return v, nil
			}
		}
		return "", fmt.Errorf("--%s must be one of %s, got %q", name, strings.Join(p.Enum, ", "), v)
	}
	return v, nil
}

// Steps returns a task's scripts: run, or its steps.
func Steps(t *recipe.Task) []string {
	if t.Run != "" {
		return []string{t.Run}
	}
	return t.Steps
}

// Policy is the recipe's policy plus the task's explicit allow list.
func Policy(r *recipe.Recipe, t *recipe.Task) (*policy.Policy, error) {
	if len(t.Allow) == 0 {
		return policy.New(r, policy.Options{Tool: "task"})
	}
	c := *r
	c.Allow = append(append([]string(nil), r.Allow...), t.Allow...)
	return policy.New(&c, policy.Options{Tool: "task", Granted: t.Allow})
}

// Options configure a run.
type Options struct {
	Stdout, Stderr io.Writer
	Approved       bool
	// OnStep is told about each step before it runs.
	OnStep func(task, script string, d *policy.Decision)
	// OnResult is told each step's result (for the audit log).
	OnResult func(task, script string, d *policy.Decision, res *runner.Result)
	// Runner builds the runner for a task's policy (default: runner.New).
	Runner func(*policy.Policy) *runner.Runner
}

// Run runs a task after its dependencies. It stops at the first step that
// fails or is refused, and returns that step's result.
func Run(ctx context.Context, r *recipe.Recipe, name string, params map[string]string, opts Options) (*runner.Result, error) {
	order, err := Plan(r, name)
	if err != nil {
		return nil, err
	}
	if opts.Runner == nil {
		opts.Runner = func(p *policy.Policy) *runner.Runner { return runner.New(p, runner.Options{}) }
	}
	last := &runner.Result{}
	for _, n := range order {
		t := r.Tasks[n]
		vals := params
		if n != name {
			if vals, err = Bind(n, t, nil, nil); err != nil {
				return nil, fmt.Errorf("dependency %s: %w", n, err)
			}
		}
		p, err := Policy(r, t)
		if err != nil {
			return nil, err
		}
		run := opts.Runner(p)
		runOpts := runner.RunOptions{Stdout: opts.Stdout, Stderr: opts.Stderr, Approved: opts.Approved, Dir: t.Dir, Env: envFor(t, vals)}
		if t.Timeout != 0 {
			runOpts.Timeout = t.Timeout.D()
		}
		for _, script := range Steps(t) {
			d, err := run.Decide(policy.Facts{Text: script, Dir: t.Dir})
			if err != nil {
				return nil, fmt.Errorf("task %s: %w", n, err)
			}
			if opts.OnStep != nil {
				opts.OnStep(n, script, d)
			}
			last = run.Run(ctx, script, runOpts)
			if opts.OnResult != nil {
				opts.OnResult(n, script, d, last)
			}
			if last.Error != "" || last.ExitCode != 0 {
				if last.Error != "" {
					last.Error = fmt.Sprintf("task %s: %s", n, last.Error)
				}
				return last, nil
			}
		}
	}
	return last, nil
}

// envFor is the task's env plus its parameters, as NAME=value.
func envFor(t *recipe.Task, params map[string]string) []string {
	var env []string
	for k, v := range t.Env {
		env = append(env, k+"="+v)
	}
	for k, v := range params {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}

// Schema is the JSON Schema of a task's parameters, for model tools.
func Schema(t *recipe.Task) json.RawMessage {
	props := map[string]any{}
	var required []string
	for _, n := range ParamNames(t) {
		p := t.Params[n]
		prop := map[string]any{"description": p.Description}
		switch p.Type {
		case "int":
			prop["type"] = "integer"
		case "bool":
			prop["type"] = "boolean"
		case "enum":
			prop["type"], prop["enum"] = "string", p.Enum
		default:
			prop["type"] = "string"
		}
		if p.Default != nil {
			prop["default"] = p.Default
		} else {
			required = append(required, n)
		}
		props[n] = prop
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	b, _ := json.Marshal(s)
	return b
}
