// Package report renders decisions and test results for people: the text
// rein check and rein test print. Machine output is the JSON of the values.
package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/tasks"
	"github.com/reinsh/rein/shellparse"
)

// Decision writes a decision: the verdict with its deciding rule, one line
// per simple command and per script-level check, and alternatives.
func Decision(w io.Writer, d *policy.Decision) {
	head := fmt.Sprintf("%s  %s", d.Verdict, oneLine(d.Command))
	fmt.Fprintln(w, head)
	if d.Verdict != policy.Allow || d.Rule != "" {
		fmt.Fprintf(w, "  %s\n", because(d.Rule, d.Reason))
	}
	width := 0
	for _, c := range d.Commands {
		width = max(width, len(oneLine(c.Text)))
	}
	width = min(width, 48)
	for _, c := range d.Commands {
		line := fmt.Sprintf("  %-5s  %-*s  %s", c.Verdict, width, oneLine(c.Text), because(c.Rule, c.Reason))
		if len(c.Via) > 0 {
			line += "  (via " + strings.Join(c.Via, " → ") + ")"
		}
		fmt.Fprintln(w, line)
	}
	for _, c := range d.Checks {
		fmt.Fprintf(w, "  %-5s  %-*s  %s\n", c.Verdict, width, c.Kind+" "+oneLine(c.Subject), because(c.Rule, c.Reason))
	}
	for _, f := range d.Findings {
		if f.Kind == shellparse.FindingDynamicArgs {
			fmt.Fprintf(w, "  note   %s\n", f.Message)
		}
	}
	if d.Verdict != policy.Allow && len(d.Alternatives) > 0 {
		fmt.Fprintf(w, "  allowed instead: %s\n", strings.Join(limit(d.Alternatives, 12), ", "))
	}
}

// Line is the one-line form used for bulk checks: verdict, command, rule.
func Line(w io.Writer, d *policy.Decision) {
	fmt.Fprintf(w, "%s\t%s\t%s\n", d.Verdict, oneLine(d.Command), because(d.Rule, d.Reason))
}

func because(rule, reason string) string {
	reason = Visible(reason) // may quote the command
	switch {
	case rule == "":
		return reason
	case reason == "":
		return "rule " + rule
	}
	return fmt.Sprintf("rule %s: %s", rule, reason)
}

func oneLine(s string) string {
	return Clip(strings.ReplaceAll(s, "\n", "⏎"), 120)
}

func limit(xs []string, n int) []string {
	if len(xs) <= n {
		return xs
	}
	return append(xs[:n:n], fmt.Sprintf("… (%d more)", len(xs)-n))
}

// TestSuite is the outcome of one recipe's tests.
type TestSuite struct {
	Name    string              `json:"name"`
	Results []policy.TestResult `json:"results"`
}

// Failed counts failing cases.
func (s TestSuite) Failed() int {
	n := 0
	for _, r := range s.Results {
		if !r.Pass {
			n++
		}
	}
	return n
}

// Tests writes each suite's failures with the rule that decided them, and a
// closing "N passed, M failed" line.
func Tests(w io.Writer, suites []TestSuite, verbose bool) {
	passed, failed := 0, 0
	for _, s := range suites {
		f := s.Failed()
		p := len(s.Results) - f
		passed += p
		failed += f
		status := "ok  "
		if f > 0 {
			status = "FAIL"
		}
		fmt.Fprintf(w, "%s %-40s %d passed, %d failed\n", status, s.Name, p, f)
		for _, r := range s.Results {
			if r.Pass && !verbose {
				continue
			}
			mark := "  pass"
			if !r.Pass {
				mark = "  FAIL"
			}
			fmt.Fprintf(w, "%s  want %-5s got %-5s %s\n", mark, r.Want, r.Got, oneLine(r.Command))
			if !r.Pass {
				fmt.Fprintf(w, "        %s\n", because(r.Decision.Rule, r.Decision.Reason))
			}
		}
	}
	fmt.Fprintf(w, "%d passed, %d failed\n", passed, failed)
}

// Tasks lists a recipe's tasks with their descriptions and parameters.
func Tasks(w io.Writer, r *recipe.Recipe) {
	if len(r.Tasks) == 0 {
		fmt.Fprintln(w, "this recipe has no tasks (add them under tasks: in rein.jsonnet)")
		return
	}
	for _, n := range tasks.Names(r) {
		t := r.Tasks[n]
		line := n
		if t.Expose {
			line += " (model tool)"
		}
		fmt.Fprintf(w, "%-24s %s\n", line, t.Description)
		for _, p := range tasks.ParamNames(t) {
			pp := t.Params[p]
			kind := pp.Type
			if pp.Type == "enum" {
				kind = strings.Join(pp.Enum, "|")
			}
			def := ""
			if pp.Default != nil {
				def = fmt.Sprintf(" (default %v)", pp.Default)
			}
			fmt.Fprintf(w, "  --%-20s %s%s  %s\n", p, kind, def, pp.Description)
		}
		if len(t.Deps) > 0 {
			fmt.Fprintf(w, "  after: %s\n", strings.Join(t.Deps, ", "))
		}
	}
}

// RecipeSummary says in one line what a recipe lets commands do (for the
// prompt that asks a person to approve it).
func RecipeSummary(r *recipe.Recipe) string {
	parts := []string{fmt.Sprintf("%s, %s, %s", Count(len(r.Commands), "catalog command"), Count(len(r.Allow), "allow rule"), Count(len(r.Tasks), "task"))}
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

// codeRunners are programs that run whatever code they are given: a recipe
// allowing one allows anything it can be made to run.
var codeRunners = []string{"sh", "bash", "zsh", "dash", "ksh", "fish", "pwsh", "powershell", "cmd", "python", "python3", "node",
	"deno", "bun", "perl", "ruby", "php", "lua", "osascript", "eval", "source", "docker", "podman", "kubectl", "ssh", "sudo", "doas"}

// Widenings lists, one line each, what a recipe grants that the readonly
// preset does not: a person approving it reads these, not the same one
// line for every recipe. Each names the field to look at.
func Widenings(r *recipe.Recipe) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	var runners []string
	for _, name := range codeRunners {
		if _, ok := r.Programs[name]; ok {
			runners = append(runners, name)
		}
		for _, a := range r.Allow {
			if a == name || strings.HasPrefix(a, name+" ") || a == "*" {
				runners = append(runners, name+" (allow: "+a+")")
			}
		}
	}
	if len(runners) > 0 {
		add("programs that run any code: %s", strings.Join(slices.Compact(runners), ", "))
	}
	if len(r.Allow) > 0 {
		add("allow patterns: %s", strings.Join(r.Allow, ", "))
	}
	for _, rule := range r.Rules {
		if rule.Decision == "allow" {
			add("rule %s allows: %s", rule.Name, strings.TrimSpace(rule.Each+" "+rule.When))
		}
	}
	for _, c := range []struct{ name, v string }{{"redirect_write", r.Shell.RedirectWrite}, {"background", r.Shell.Background},
		{"function", r.Shell.Function}, {"dynamic_command_name", r.Shell.DynamicCommandName}, {"unknown_program", r.Shell.UnknownProgram}} {
		if c.v == "allow" {
			add("shell.%s: allow", c.name)
		}
	}
	if r.Sandbox.Mode == "off" {
		add("sandbox.mode: off (no kernel sandbox)")
	}
	if len(r.Sandbox.Write) > 0 {
		add("writable outside the workspace: %s", strings.Join(r.Sandbox.Write, ", "))
	}
	if len(r.Sandbox.Sockets) > 0 {
		add("local services commands may reach: %s", strings.Join(r.Sandbox.Sockets, ", "))
	}
	switch r.Sandbox.Network {
	case "allow":
		add("network: allowed")
	case "granted":
		for _, g := range r.Sandbox.Hosts {
			add("network for %s: %s", strings.Join(g.Commands, ", "), strings.Join(g.Hosts, ", "))
		}
	}
	if !r.GrantedReads() {
		add("reads: everything but the secret paths (paths.scope: anywhere)")
	}
	for _, g := range r.Paths.Read {
		if top := recipe.GlobTop(g); strings.HasPrefix(top, "/") || strings.HasPrefix(top, "~") {
			add("readable outside the workspace: %s", g)
		}
	}
	for _, g := range r.Paths.Grant {
		add("secret file %s shown to %s", g.Path, strings.Join(g.Commands, ", "))
	}
	var hidden []string
	for _, h := range r.Sandbox.HiddenWrite {
		if !slices.Contains(recipe.HiddenWritable, h) {
			hidden = append(hidden, h)
		}
	}
	if len(hidden) > 0 {
		add("hidden places commands may write: %s", strings.Join(hidden, ", "))
	}
	if len(r.Env.Set) > 0 {
		add("environment set: %s", strings.Join(slices.Sorted(maps.Keys(r.Env.Set)), ", "))
	}
	var passed []string
	for _, v := range r.Env.Pass {
		if !slices.Contains(recipe.PassEnv, v) {
			passed = append(passed, v)
		}
	}
	if len(passed) > 0 {
		add("environment passed on: %s", strings.Join(passed, ", "))
	}
	if r.Provider.BaseURL != "" {
		add("model endpoint: %s", r.Provider.BaseURL)
	}
	if on, ok := r.Tools["file_write"].(bool); ok && on {
		add("the model may write files (tools.file_write)")
	}
	return out
}

// Count is "1 file", "3 files".
func Count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// LineDiff is what changed from old to new, line by line ("- " removed,
// "+ " added, "  " around), the unchanged runs cut to a line of context;
// at most limit lines, the last saying how many more there were.
func LineDiff(old, new string, limit int) []string {
	a, b := strings.Split(old, "\n"), strings.Split(new, "\n")
	if len(a)*len(b) > 4_000_000 {
		return []string{fmt.Sprintf("  (%d lines before, %d now: too long to compare here)", len(a), len(b))}
	}
	// The longest common subsequence, from the end.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i, j = i+1, j+1
		case i < len(a) && (j == len(b) || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, op{'-', a[i]}) // what went, before what came
			i++
		default:
			ops = append(ops, op{'+', b[j]})
			j++
		}
	}
	var out []string
	for k, o := range ops {
		near := (k > 0 && ops[k-1].kind != ' ') || (k+1 < len(ops) && ops[k+1].kind != ' ')
		if o.kind == ' ' && !near {
			continue
		}
		out = append(out, string(o.kind)+" "+o.text)
	}
	if len(out) > limit {
		out = append(out[:limit], fmt.Sprintf("  … %d more lines", len(out)-limit))
	}
	return out
}
