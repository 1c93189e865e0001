package main

import (
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/tools"
)

// hookWorkspace is a repository with a readme, a secret, source and a
// folder holding a key: what the hook cases run against.
func hookWorkspace(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"README.md":        "hello from the readme\nsecond line\n",
		".env":             "TOKEN=CANARY-hook-secret\n",
		"src/app.go":       "package app\n",
		"certs/server.key": "-----BEGIN PRIVATE KEY-----\n",
		"certs/notes.txt":  "BEGIN here\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	return dir
}

// rewriteWorkspace is hookWorkspace for a test that runs rewritten
// command lines with bash, with an audit database of its own.
func rewriteWorkspace(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := hookWorkspace(t)
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	return dir
}

// hookReply is an answer in any of the agents' formats.
type hookReply struct {
	Decision, Reason, Command string
	Empty                     bool
}

func parseHookReply(t *testing.T, agent, out string) hookReply {
	t.Helper()
	if strings.TrimSpace(out) == "{}" {
		return hookReply{Empty: true}
	}
	if agent == "gemini" {
		var g struct {
			Decision string
			Reason   string
			Specific struct {
				ToolInput struct{ Command string } `json:"tool_input"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &g); err != nil {
			t.Fatalf("not Gemini's answer: %q", out)
		}
		return hookReply{g.Decision, g.Reason, g.Specific.ToolInput.Command, false}
	}
	var c struct {
		Specific struct {
			Event    string `json:"hookEventName"`
			Decision string `json:"permissionDecision"`
			Reason   string `json:"permissionDecisionReason"`
			Updated  struct {
				Command string
			} `json:"updatedInput"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &c); err != nil || c.Specific.Event != "PreToolUse" {
		t.Fatalf("not a PreToolUse answer: %q", out)
	}
	return hookReply{c.Specific.Decision, c.Specific.Reason, c.Specific.Updated.Command, false}
}

// runRewritten runs a command line the hook rewrote as the agent's bash
// would, with this test binary standing in for rein.
func runRewritten(t *testing.T, command string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", "-c", command)
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1")
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("bash: %v", err)
	}
	return string(out), code
}

// The agents' payloads (testdata/hooks/calls.json) get the answers their
// formats take: deny with the rule and alternatives, allow rewritten to run
// through rein (and what runs is the command as written, with its output),
// file tools under rein's path policy, other tools no opinion.
func TestHookAnswers(t *testing.T) {
	dir := rewriteWorkspace(t)
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", "calls.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fixtures struct {
		Cases []struct {
			Name, Agent, Want, Reason string
			Rewrite                   bool
			Payload                   json.RawMessage
		}
	}
	if err := json.Unmarshal(b, &fixtures); err != nil {
		t.Fatal(err)
	}
	outputs := map[string]string{
		"claude bash allowed":                  "hello from the readme\n",
		"claude bash with quotes and newlines": "it's a  b\ntwo\n",
		"codex bash allowed":                   "",
		"gemini shell allowed":                 "app.go\n",
	}
	for _, c := range fixtures.Cases {
		t.Run(c.Name, func(t *testing.T) {
			payload := strings.ReplaceAll(string(c.Payload), "WORKSPACE", dir)
			out, errOut, code := rein(t, "", payload, "hook", c.Agent)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			r := parseHookReply(t, c.Agent, out)
			if r.Decision != c.Want || !strings.Contains(r.Reason, c.Reason) {
				t.Fatalf("answered %q %q, want %q with %q", r.Decision, r.Reason, c.Want, c.Reason)
			}
			if (r.Command != "") != c.Rewrite {
				t.Fatalf("rewritten %q, want a rewrite: %v", r.Command, c.Rewrite)
			}
			if !c.Rewrite {
				return
			}
			got, status := runRewritten(t, r.Command)
			if want, ok := outputs[c.Name]; status != 0 || ok && want != "" && got != want {
				t.Errorf("the rewritten command ran with exit %d and printed %q, want %q", status, got, want)
			}
		})
	}
	// Every decision, and every rewritten run, is in the audit log under
	// the agent's session and tool call.
	out, _, _ := rein(t, "", "", "audit", "--json", "--session", "claude-code-sess-1")
	for _, want := range []string{`"source":"hook:claude-code","tool_use_id":"toolu_01"`, `"source":"claude-code","tool_use_id":"toolu_01"`, `"tool_use_id":"toolu_02"`, `"verdict":"deny"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the audit lacks %s:\n%s", want, out)
		}
	}
	if strings.Contains(out, "CANARY-hook-secret") {
		t.Errorf("the secret reached the audit log")
	}
}

// A repository recipe nobody approved makes every call a question for the
// person, naming rein trust; --check-only answers without rewriting, and
// asks what only rein's runner makes safe.
func TestHookApprovalAndCheckOnly(t *testing.T) {
	dir := hookWorkspace(t)
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	shell := map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}
	callOf := func(agent, command string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": shell[agent], "tool_input": map[string]string{"command": command}, "tool_use_id": "t"})
		return string(b)
	}
	call := func(command string) string { return callOf("claude-code", command) }
	out, _, _ := rein(t, "", call("ls"), "hook", "claude-code", "--check-only")
	if r := parseHookReply(t, "claude-code", out); r.Decision != "allow" || r.Command != "" {
		t.Errorf("check-only ls: %+v", r)
	}
	for _, command := range []string{"grep -rn TOKEN .", "echo $HOME", "cat README.md > /dev/tcp/127.0.0.1/9"} {
		out, _, _ := rein(t, "", call(command), "hook", "claude-code", "--check-only")
		if r := parseHookReply(t, "claude-code", out); r.Decision == "allow" {
			t.Errorf("check-only allowed %q, which only rein's runner makes safe: %+v", command, r)
		}
	}
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("local rein = import 'rein.libsonnet'; rein.presets.readonly\n"), 0o644)
	ownState(t)
	t.Setenv("CI", "")
	out, _, _ = rein(t, "", call("ls"), "hook", "claude-code")
	if r := parseHookReply(t, "claude-code", out); r.Decision != "ask" || !strings.Contains(r.Reason, "rein trust") {
		t.Errorf("unapproved recipe: %+v", r)
	}
	out, _, _ = rein(t, "", callOf("gemini", "ls"), "hook", "gemini")
	if r := parseHookReply(t, "gemini", out); r.Decision != "deny" || !strings.Contains(r.Reason, "cannot ask") {
		t.Errorf("unapproved recipe, Gemini: %+v", r)
	}
}

// The rewritten run decides and runs under the recipe the hook decided
// with: a hook installed with --preset hands the preset on, not the
// repository's recipe (which here refuses what the preset allows).
func TestHookRewriteKeepsTheRecipe(t *testing.T) {
	dir := rewriteWorkspace(t)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("{ deny: ['ls', 'ls *'] }\n"), 0o644)
	b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]string{"command": "ls"}, "tool_use_id": "t"})
	out, _, _ := rein(t, "", string(b), "--preset", "readonly", "hook", "claude-code")
	r := parseHookReply(t, "claude-code", out)
	if r.Decision != "allow" || !strings.Contains(r.Command, "'--preset' 'readonly'") {
		t.Fatalf("answered %+v", r)
	}
	got, status := runRewritten(t, r.Command)
	if status != 0 || !strings.Contains(got, "README.md") {
		t.Errorf("the rewritten run exited %d and printed %q: not under the preset the hook decided with", status, got)
	}
	recipe := filepath.Join(t.TempDir(), "extra.jsonnet")
	os.WriteFile(recipe, []byte("{ allow: ['ls'] }\n"), 0o644)
	out, _, _ = rein(t, "", string(b), "--recipe", recipe, "hook", "claude-code")
	if r := parseHookReply(t, "claude-code", out); r.Command != "" && !strings.Contains(r.Command, "'--recipe' '"+recipe+"'") {
		t.Errorf("--recipe is not handed on: %q", r.Command)
	}
}

// Nothing fails open: malformed input, a broken recipe and a hook that
// takes too long are denials.
func TestHookFailsClosed(t *testing.T) {
	dir := hookWorkspace(t)
	for _, tt := range []struct{ name, stdin string }{
		{"not JSON", "garbage"},
		{"no tool", `{"cwd":"` + dir + `"}`},
		{"relative cwd", `{"cwd":"src","tool_name":"Bash","tool_input":{"command":"ls"}}`},
		{"a NUL in the command", `{"cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":"ls\u0000x"}}`},
		{"command not a string", `{"cwd":"` + dir + `","tool_name":"Bash","tool_input":{"command":["rm","-rf","/"]}}`},
	} {
		out, _, code := rein(t, "", tt.stdin, "hook", "claude-code")
		if r := parseHookReply(t, "claude-code", out); code != exitOK || r.Decision != "deny" {
			t.Errorf("%s: exit %d %+v", tt.name, code, r)
		}
	}
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("{ allow: [ }\n"), 0o644)
	out, _, _ := rein(t, "", `{"cwd":"`+dir+`","tool_name":"Bash","tool_input":{"command":"ls"}}`, "hook", "codex")
	if r := parseHookReply(t, "codex", out); r.Decision != "deny" || !strings.Contains(r.Reason, "could not load the recipe") {
		t.Errorf("broken recipe: %+v", r)
	}
	// A hook input that never ends.
	defer func(d time.Duration) { hookDeadline = d }(hookDeadline)
	hookDeadline = 200 * time.Millisecond
	pr, pw := io.Pipe()
	defer pw.Close()
	var stdout, stderr strings.Builder
	code := run([]string{"hook", "gemini"}, &env{stdin: pr, stdout: &stdout, stderr: &stderr})
	if r := parseHookReply(t, "gemini", stdout.String()); code != exitOK || r.Decision != "deny" || !strings.Contains(r.Reason, "longer than") {
		t.Errorf("slow input: exit %d %+v", code, r)
	}
}

// install merges rein's hook into an agent's settings without disturbing
// what is there (keys, their order, other hooks), twice is once, and
// uninstall takes out only what install added.
func TestHookInstall(t *testing.T) {
	dir := t.TempDir()
	home := t.TempDir()
	t.Setenv("HOME", home)
	defer func(f func() (string, error)) { hookExecutable = f }(hookExecutable)
	hookExecutable = func() (string, error) { return "/opt/rein tools/bin/rein", nil }
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	before := `{
  "permissions": {"deny": ["Bash(curl:*)"]},
  "hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/audit.sh"}]}],
    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]
  },
  "model": "opus"
}
`
	os.WriteFile(settings, []byte(before), 0o644)
	for range 2 {
		if _, errOut, code := rein(t, dir, "", "hook", "install", "claude-code"); code != exitOK {
			t.Fatalf("install: %d %s", code, errOut)
		}
	}
	b, _ := os.ReadFile(settings)
	var got struct {
		Hooks struct {
			PreToolUse []struct {
				Matcher string
				Hooks   []struct{ Command string }
			}
		}
	}
	json.Unmarshal(b, &got)
	if n := len(got.Hooks.PreToolUse); n != 2 || got.Hooks.PreToolUse[1].Hooks[0].Command != `'/opt/rein tools/bin/rein' hook claude-code` ||
		!strings.Contains(got.Hooks.PreToolUse[1].Matcher, "Read") {
		t.Fatalf("after two installs:\n%s", b)
	}
	text := string(b)
	if !(strings.Index(text, `"permissions"`) < strings.Index(text, `"hooks"`) && strings.Index(text, `"hooks"`) < strings.Index(text, `"model"`)) || !strings.Contains(text, "notify-send") {
		t.Errorf("install disturbed the file:\n%s", b)
	}
	if out, _, _ := rein(t, dir, "", "doctor"); !strings.Contains(out, "claude-code: "+settings) {
		t.Errorf("doctor does not report the hook:\n%s", out)
	}
	if _, errOut, code := rein(t, dir, "", "hook", "uninstall", "claude-code"); code != exitOK {
		t.Fatalf("uninstall: %d %s", code, errOut)
	}
	after, _ := os.ReadFile(settings)
	var a, w any
	json.Unmarshal(after, &a)
	json.Unmarshal([]byte(before), &w)
	if ab, _ := json.Marshal(a); string(ab) != func() string { wb, _ := json.Marshal(w); return string(wb) }() {
		t.Errorf("uninstall left\n%s\nwant\n%s", after, before)
	}
	// A hook installed with a recipe decides with it: the command line
	// carries it, and uninstall still knows the hook for rein's.
	if _, errOut, code := rein(t, dir, "", "hook", "install", "claude-code", "--preset", "readonly"); code != exitOK {
		t.Fatalf("install --preset: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(settings); !strings.Contains(string(b), `'/opt/rein tools/bin/rein' hook claude-code --preset readonly`) {
		t.Errorf("install --preset readonly wrote\n%s", b)
	}
	if _, errOut, code := rein(t, dir, "", "hook", "uninstall", "claude-code"); code != exitOK {
		t.Fatalf("uninstall: %d %s", code, errOut)
	}
	if b, _ := os.ReadFile(settings); strings.Contains(string(b), "--preset") {
		t.Errorf("uninstall left the hook with its preset:\n%s", b)
	}
	// A file install made is removed again; --user writes the home
	// folder's; --print writes nothing.
	if _, errOut, code := rein(t, dir, "", "hook", "install", "gemini", "--user"); code != exitOK {
		t.Fatalf("install --user: %s", errOut)
	}
	user := filepath.Join(home, ".gemini", "settings.json")
	if b, err := os.ReadFile(user); err != nil || !strings.Contains(string(b), `"BeforeTool"`) || !strings.Contains(string(b), "30000") {
		t.Fatalf("gemini --user: %v\n%s", err, b)
	}
	rein(t, dir, "", "hook", "uninstall", "gemini", "--user")
	if _, err := os.Stat(user); err == nil {
		t.Errorf("uninstall left the file install made")
	}
	out, _, _ := rein(t, dir, "", "hook", "install", "codex", "--print")
	if !strings.Contains(out, `"PreToolUse"`) || !strings.Contains(out, `"matcher": "Bash"`) {
		t.Errorf("--print: %s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".codex")); err == nil {
		t.Errorf("--print wrote the settings")
	}
}

// The payloads Claude Code 2.1.197 really sent (recorded) and Codex's
// (from its published schema), where the shared fixtures are beside the
// repository: each gets the answer its tool call calls for.
func TestHookRecordedPayloads(t *testing.T) {
	want := map[string]string{"Read .env": "deny", "Write .git/hooks/pre-commit": "deny", "Bash ls": "allow", "Bash rm -rf src": "deny", "Bash git status --short": "allow"}
	ran := 0
	for agent, file := range map[string]string{"claude-code": "claude-code-2.1.197.json", "codex": "codex-pretooluse-from-schema.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "shared", "fixtures", "hooks", file))
		if err != nil {
			continue
		}
		var f struct{ Payloads []map[string]any }
		if err := json.Unmarshal(b, &f); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		dir := hookWorkspace(t)
		for _, p := range f.Payloads {
			recorded := p["cwd"].(string)
			b, _ := json.Marshal(p)
			payload := strings.ReplaceAll(string(b), recorded, dir)
			input := p["tool_input"].(map[string]any)
			key := p["tool_name"].(string) + " "
			if c, ok := input["command"].(string); ok {
				key += c
			} else {
				key += strings.TrimPrefix(input["file_path"].(string), recorded+"/")
			}
			out, _, _ := rein(t, "", payload, "hook", agent)
			if r := parseHookReply(t, agent, out); r.Decision != want[key] {
				t.Errorf("%s %s: %q (%s), want %q", agent, key, r.Decision, r.Reason, want[key])
			}
			ran++
		}
	}
	if ran == 0 {
		t.Skip("the shared hook fixtures are not beside the repository")
	}
}

// A tool rein does not vet gets no opinion unless the recipe's hook.tools
// names it; install then puts it in the hook's matcher.
func TestHookRecipeNamesOtherTools(t *testing.T) {
	dir := hookWorkspace(t)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("local rein = import 'rein.libsonnet'; rein.presets.readonly + { hook: { tools: { WebFetch: 'deny' } } }\n"), 0o644)
	call := func(tool string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s", "cwd": dir, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": map[string]string{"url": "https://example.com"}, "tool_use_id": "t"})
		return string(b)
	}
	out, _, _ := rein(t, "", call("WebFetch"), "hook", "claude-code")
	if r := parseHookReply(t, "claude-code", out); r.Decision != "deny" || !strings.Contains(r.Reason, "hook.tools") {
		t.Errorf("WebFetch: %+v", r)
	}
	out, _, _ = rein(t, "", call("WebSearch"), "hook", "claude-code")
	if r := parseHookReply(t, "claude-code", out); !r.Empty {
		t.Errorf("WebSearch: %+v", r)
	}
	defer func(f func() (string, error)) { hookExecutable = f }(hookExecutable)
	hookExecutable = func() (string, error) { return "/usr/local/bin/rein", nil }
	out, _, _ = rein(t, dir, "", "hook", "install", "claude-code", "--print")
	if !strings.Contains(out, "|WebFetch") {
		t.Errorf("the matcher leaves WebFetch out:\n%s", out)
	}
}

// rein replay --from claude-code re-vets a Claude Code transcript as rein
// hook would have answered it: parallel calls, sub-agent lines and a
// compacted session's summary read; a broken or cut line counted and
// skipped; denials grouped by rule, asks most frequent first.
func TestReplayClaudeCodeHistory(t *testing.T) {
	dir := hookWorkspace(t)
	b, err := os.ReadFile(filepath.Join("testdata", "history", "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(t.TempDir(), "s-1.jsonl")
	os.WriteFile(transcript, []byte(strings.ReplaceAll(string(b), "WORKSPACE", dir)), 0o644)
	out, errOut, code := rein(t, dir, "", "--preset", "dev", "replay", "--from", "claude-code", "--json", transcript)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Lines, Malformed, Calls, Allowed, Asked, Denied int
		Other                                           int `json:"other_tools"`
		DeniedBy                                        []struct {
			Rule  string
			Count int
		} `json:"denied_by"`
		AskedMost []struct {
			Call  string
			Count int
		} `json:"asked_most"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	// Under dev: git status, ls -la src, Read src/app.go, Grep src:
	// allowed; cat .env, Read .env, a Bash call without a command: denied;
	// rm -rf src and mytool --check twice: asked; WebFetch: no opinion; the
	// broken line counted.
	if got.Calls != 10 || got.Allowed != 4 || got.Denied != 3 || got.Asked != 3 || got.Other != 1 || got.Malformed != 1 {
		t.Errorf("tally %+v\n%s", got, out)
	}
	if len(got.AskedMost) == 0 || got.AskedMost[0].Call != "mytool --check" || got.AskedMost[0].Count != 2 {
		t.Errorf("asked %+v", got.AskedMost)
	}
	rules := map[string]int{}
	for _, r := range got.DeniedBy {
		rules[r.Rule] = r.Count
	}
	if rules["paths.deny"] != 2 {
		t.Errorf("denied by %+v", got.DeniedBy)
	}
	text, _, _ := rein(t, dir, "", "--preset", "dev", "replay", "--from", "claude-code", transcript)
	if !strings.HasPrefix(text, "10 calls in 1 transcripts: 4 allowed (40%), 3 asked (30%), 3 denied (30%)") || !strings.Contains(text, "2  mytool --check") {
		t.Errorf("summary:\n%s", text)
	}
}

// rein replay --from codex reads Codex rollouts (exec_command and the
// older shell tool; the folder from session_meta and turn_context).
func TestReplayCodexHistory(t *testing.T) {
	dir := hookWorkspace(t)
	b, err := os.ReadFile(filepath.Join("testdata", "history", "codex.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	day := filepath.Join(home, "sessions", "2026", "11", "26")
	os.MkdirAll(day, 0o755)
	os.WriteFile(filepath.Join(day, "rollout-2026-11-26T03-20-00-sess-c.jsonl"), []byte(strings.ReplaceAll(string(b), "WORKSPACE", dir)), 0o644)
	// Another project's session is not this repository's.
	os.WriteFile(filepath.Join(day, "rollout-2026-11-26T04-00-00-other.jsonl"), []byte(strings.ReplaceAll(string(b), "WORKSPACE", t.TempDir())), 0o644)
	t.Setenv("CODEX_HOME", home)
	out, errOut, code := rein(t, dir, "", "--preset", "dev", "replay", "--from", "codex", "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var got struct {
		Files, Calls, Allowed, Asked, Denied, Malformed int
		Other                                           int `json:"other_tools"`
	}
	json.Unmarshal([]byte(out), &got)
	// git status and ls -la allowed, rm -rf src asked, cat .env denied;
	// view_image no shell call; the broken line counted.
	if got.Files != 1 || got.Calls != 4 || got.Allowed != 2 || got.Asked != 1 || got.Denied != 1 || got.Other != 1 || got.Malformed != 1 {
		t.Errorf("tally %+v\n%s", got, out)
	}
}

// rein init --from-history proposes catalog entries for what the agent
// ran here more than once and the recipe asks about for want of an entry
// (mytool --check), never for what a rule asks about or refuses by name
// (rm -rf src, cat .env); --write adds them with their tests.
func TestInitFromHistory(t *testing.T) {
	dir := hookWorkspace(t)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("(import 'rein.libsonnet').presets.dev\n"), 0o644)
	b, _ := os.ReadFile(filepath.Join("testdata", "history", "claude-code.jsonl"))
	transcript := filepath.Join(t.TempDir(), "s-1.jsonl")
	// rm -rf src twice too: asked by name, so never proposed.
	text := strings.ReplaceAll(string(b), "WORKSPACE", dir)
	text = strings.Replace(text, `{"command": "cat .env"}`, `{"command": "rm -rf src"}`, 1)
	os.WriteFile(transcript, []byte(text), 0o644)
	home := t.TempDir()
	project := filepath.Join(home, ".claude", "projects", strings.NewReplacer("/", "-", ".", "-").Replace(dir))
	os.MkdirAll(project, 0o755)
	os.Rename(transcript, filepath.Join(project, "s-1.jsonl"))
	t.Setenv("HOME", home)
	out, errOut, code := rein(t, dir, "", "init", "--from-history", "claude-code")
	if code != exitOK || !strings.Contains(out, `+ commands+: [{ command: "mytool --check" }]`) || strings.Contains(out, "rm -rf") {
		t.Fatalf("proposal: %d %s %s", code, out, errOut)
	}
	if _, errOut, code := rein(t, dir, "", "init", "--from-history", "claude-code", "--write"); code != exitOK {
		t.Fatalf("--write: %s", errOut)
	}
	if out, _, code := rein(t, dir, "", "check", "mytool --check"); code != exitOK {
		t.Errorf("after --write: %d %s", code, out)
	}
}

// errorOf is a tool outcome's error text.
func errorOf(o tools.Outcome) string {
	var e struct{ Error string }
	json.Unmarshal([]byte(o.Output), &e)
	return e.Error
}

// isOurs knows rein's hook command lines, with the flags install may add,
// and nothing else.
func TestIsOurs(t *testing.T) {
	for command, want := range map[string]bool{
		"/usr/local/bin/rein hook claude-code":                                   true,
		"'/opt/rein tools/bin/rein' hook claude-code --preset readonly":          true,
		"/usr/local/bin/rein hook claude-code --recipe /r/x.jsonnet --preset go": true,
		"rein hook claude-code":                                                  true,
		"/usr/local/bin/rein hook codex":                                         false,
		"/usr/local/bin/notrein hook claude-code":                                false,
		"/usr/local/bin/rein hook claude-code; rm -rf ~":                         false,
		"x": false,
		"":  false,
	} {
		if got := isOurs(command, "claude-code"); got != want {
			t.Errorf("isOurs(%q) = %v, want %v", command, got, want)
		}
	}
}
