package main

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsh/rein/engine/mcpserver"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/engine/tasks"
	"github.com/reinsh/rein/engine/tools"
)

// A door is one path by which a command reaches rein: what it answers for
// a command, as a verdict and the rule that decided.
type door struct {
	name string
	// vet returns the verdict and the rule, or the text of a refusal,
	// which names the rule; ok false: this door cannot take the command
	// (execute_command takes no shell syntax).
	vet func(command string) (verdict, rule string, ok bool)
}

// names reports whether a door's answer names the rule: as the rule, or in
// a refusal's text ("rule NAME: reason", "(rule NAME)").
func names(answer, rule string) bool {
	return answer == rule || strings.Contains(answer, "rule "+rule+":") || strings.Contains(answer, "(rule "+rule+")")
}

// readRefusal reads a refusal's text as a verdict, the text kept for its
// rule; "" says nothing was refused.
func readRefusal(text string) (verdict, rule string) {
	switch {
	case text == "":
		return "allow", ""
	case strings.Contains(text, "needs confirmation"):
		return "ask", text
	}
	return "deny", text
}

// doorsWorkspace is a repository with a recipe of the dev preset, a rule
// and a deny glob of its own, and one task per command (t0, t1, ...). The
// doors that run what they allow run it in the kernel sandbox, the network
// off and only the throwaway workspace writable: where the sandbox is not
// enforced, the test is skipped rather than run those commands bare.
func doorsWorkspace(t *testing.T, commands []string) (string, *recipe.Recipe) {
	t.Helper()
	if st := sandbox.Probe(); !st.Available() {
		t.Skipf("the doors run commands only in the kernel sandbox: %s", st.Why)
	}
	dir := hookWorkspace(t)
	var taskList strings.Builder
	for i, c := range commands {
		q, _ := json.Marshal(c)
		fmt.Fprintf(&taskList, "t%d: { description: 'door test', run: %s },\n", i, q)
	}
	text := "(import 'rein.libsonnet').presets.dev + { deny+: ['git push*'], rules+: [{ name: 'no-prod', decision: 'deny', reason: 'not prod', each: 'any(cmd.args, {# == \"prod\"})' }], tasks+: {\n" + taskList.String() + "}, sandbox+: { mode: 'workspace-write', network: 'deny', unavailable: 'refuse' } }\n"
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(text), 0o644)
	t.Setenv("CI", "true")
	r, err := appOf(&Globals{Dir: dir}).LoadRecipe()
	if err != nil {
		t.Fatal(err)
	}
	return dir, r
}

// sandboxedRunner is the runner rein builds for a policy, in its recipe's
// sandbox (doorsWorkspace's: the network off, only the workspace writable).
func sandboxedRunner(t *testing.T, p *policy.Policy) *runner.Runner {
	t.Helper()
	run, err := app.NewRunner(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !run.Sandbox().Confined() || !run.Sandbox().Network {
		t.Fatalf("the doors' runner is not confined: %+v", run.Sandbox())
	}
	return run
}

// toolDoors are the doors of the tool set rein ask and rein mcp give a
// model, built as they build it: called directly, and through an MCP
// client. dryRun: the tool set decides and runs nothing.
func toolDoors(t *testing.T, r *recipe.Recipe, dryRun bool) []door {
	t.Helper()
	p, err := app.NewPolicy(r, policy.Options{Tool: tools.RunCommand})
	if err != nil {
		t.Fatal(err)
	}
	set := tools.NewSet(p, sandboxedRunner(t, p), tools.Options{DryRun: dryRun})
	ctx := context.Background()
	srv, err := mcpserver.New(set, mcpserver.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	fromServer, toServer := srv.Pipe(ctx)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "doors", Version: "1"}, nil).Connect(ctx, &mcp.IOTransport{Reader: fromServer, Writer: toServer}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return []door{
		{"the run_command tool", func(command string) (string, string, bool) {
			v, rule := readRefusal(errorOf(set.Call(ctx, tools.RunCommand, fmt.Sprintf(`{"command":%q,"reason":"x"}`, command))))
			return v, rule, true
		}},
		{"the execute_command tool", func(command string) (string, string, bool) {
			argv, err := shellWords(command)
			if err != nil || strings.ContainsAny(command, "<>|;&$`") {
				return "", "", false
			}
			args, _ := json.Marshal(map[string]any{"command": argv[0], "args": argv[1:]})
			v, rule := readRefusal(errorOf(set.Call(ctx, tools.ExecuteCommand, string(args))))
			return v, rule, true
		}},
		{"rein mcp's run_command", func(command string) (string, string, bool) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tools.RunCommand, Arguments: map[string]any{"command": command, "reason": "x"}})
			if err != nil {
				t.Fatalf("mcp %s: %v", command, err)
			}
			if !res.IsError {
				return "allow", "", true
			}
			var b strings.Builder
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					b.WriteString(tc.Text)
				}
			}
			v, rule := readRefusal(b.String())
			return v, rule, true
		}},
	}
}

// The same command gets the same decision on every path that vets one: rein
// check, rein exec --dry-run, the tools rein ask and rein mcp give a model
// (directly and through an MCP client), the three hook adapters
// (--check-only, which does not rewrite), a task, and rein run. All of them call
// policy.Decide; a drift between them is a command one door lets through
// and another refuses.
func TestEveryDoorDecidesAlike(t *testing.T) {
	commands := []string{"git status", "ls -la src", "rm -rf src", "rm -rf ~/x", "cat .env", "git push origin main", "mytool --check",
		"kubectl get pods prod", "echo x > notes.txt", "curl https://example.com", "xargs cat < files.txt", "grep -rn TOKEN ."}
	dir, r := doorsWorkspace(t, commands)
	doors := []door{
		{"rein check", func(command string) (string, string, bool) {
			out, _, _ := rein(t, dir, "", "check", "--json", command)
			var d struct{ Verdict, Rule string }
			json.Unmarshal([]byte(out), &d)
			return d.Verdict, d.Rule, true
		}},
		{"rein exec --dry-run", func(command string) (string, string, bool) {
			out, _, _ := rein(t, dir, "", "exec", "--dry-run", "--json", command)
			var d struct{ Verdict, Rule, Error string }
			json.Unmarshal([]byte(out), &d)
			if d.Verdict != "" {
				return d.Verdict, d.Rule, true
			}
			v, rule := readRefusal(d.Error)
			return v, rule, true
		}},
	}
	doors = append(doors, toolDoors(t, r, true)...)
	shell := map[string]string{"claude-code": "Bash", "codex": "Bash", "gemini": "run_shell_command"}
	for _, agent := range []string{"claude-code", "codex", "gemini"} {
		doors = append(doors, door{"rein hook " + agent, func(command string) (string, string, bool) {
			b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": shell[agent], "tool_input": map[string]string{"command": command}, "tool_use_id": "t"})
			out, _, _ := rein(t, "", string(b), "hook", agent, "--check-only")
			reply := parseHookReply(t, agent, out)
			v, rule := reply.Decision, reply.Reason
			switch {
			case reply.Empty:
				v = "allow" // Codex: no answer lets the command run
			case strings.Contains(reply.Reason, "--check-only"):
				v = "allow" // what only rein's runner makes safe is asked
			case agent == "gemini" && v == "deny" && strings.Contains(reply.Reason, "cannot ask"):
				v = "ask" // Gemini has no ask: a denial says a person must approve
			}
			return v, rule, true
		}})
	}
	index := map[string]int{}
	for i, c := range commands {
		index[c] = i
	}
	doors = append(doors, door{"a task", func(command string) (string, string, bool) {
		var d *policy.Decision
		// What is allowed runs, in the sandbox (sandboxedRunner).
		tasks.Run(context.Background(), r, fmt.Sprintf("t%d", index[command]), nil, tasks.Options{Stdout: io.Discard, Stderr: io.Discard,
			OnStep: func(_, _ string, sd *policy.Decision) { d = sd },
			Runner: func(p *policy.Policy) *runner.Runner { return sandboxedRunner(t, p) }})
		if d == nil {
			t.Fatalf("task for %s: no step decided", command)
		}
		return d.Verdict.String(), d.Rule, true
	}})

	doors = append(doors, door{"rein run", func(command string) (string, string, bool) {
		out, _, _ := rein(t, dir, "", "run", "--json", fmt.Sprintf("t%d", index[command]))
		var res struct {
			Error    string
			DeniedBy string `json:"denied_by"`
		}
		json.Unmarshal([]byte(out), &res)
		if res.DeniedBy == "" {
			return "allow", "", true // ran (or failed as a command, not as a refusal)
		}
		v, _ := readRefusal(res.Error)
		return v, res.DeniedBy, true
	}})

	p, err := app.NewPolicy(r, policy.Options{Tool: tools.RunCommand})
	if err != nil {
		t.Fatal(err)
	}
	for _, command := range commands {
		want := p.Decide(policy.Facts{Text: command, Dir: dir})
		for _, d := range doors {
			verdict, rule, ok := d.vet(command)
			if !ok {
				continue
			}
			if verdict != want.Verdict.String() {
				t.Errorf("%s: %s says %s, policy.Decide %s (rule %s)", command, d.name, verdict, want.Verdict, want.Rule)
				continue
			}
			// Allowed commands name their rule only in some answers.
			if want.Verdict != policy.Allow && !names(rule, want.Rule) {
				t.Errorf("%s: %s names rule %q, policy.Decide %q", command, d.name, rule, want.Rule)
			}
		}
	}
}

// What only the files say (a link to a secret, the names on xargs's input)
// is decided as the command runs, by the same function, on every door that
// runs a command: the runner, the tools directly and over MCP, rein exec.
func TestRunningDoorsDecideAlike(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	commands := []string{"cat notes", "xargs cat < files.txt", "cat README.md"}
	dir, r := doorsWorkspace(t, commands)
	if err := os.Symlink(".env", filepath.Join(dir, "notes")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "files.txt"), []byte("README.md\n.env\n"), 0o644)
	doors := toolDoors(t, r, false)
	doors = append(doors, door{"rein exec", func(command string) (string, string, bool) {
		out, _, _ := rein(t, dir, "", "exec", "--json", command)
		var res struct {
			Error    string
			DeniedBy string `json:"denied_by"`
		}
		json.Unmarshal([]byte(out), &res)
		if res.Error == "" {
			return "allow", "", true
		}
		v, _ := readRefusal(res.Error)
		return v, res.DeniedBy, true
	}})
	want := map[string]string{"cat notes": "deny paths.deny", "xargs cat < files.txt": "deny paths.deny", "cat README.md": "allow"}
	for _, command := range commands {
		for _, d := range doors {
			verdict, rule, ok := d.vet(command)
			if !ok {
				continue
			}
			wantVerdict, wantRule, _ := strings.Cut(want[command], " ")
			if verdict != wantVerdict || wantRule != "" && !names(rule, wantRule) {
				t.Errorf("%s: %s says %s (%s), want %s", command, d.name, verdict, rule, want[command])
			}
		}
	}
}
