package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// modelServer answers chat completion requests with the given SSE bodies in
// order and keeps the requests.
func modelServer(t testing.TB, bodies ...string) (*httptest.Server, *[]string) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		n := len(got)
		got = append(got, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n < len(bodies) {
			io.WriteString(w, bodies[n])
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &got
}

func sseText(text string) string {
	return chunkLine(map[string]any{"content": text}, nil) + chunkLine(map[string]any{}, "stop") + "data: [DONE]\n\n"
}

func sseCall(name, args string) string {
	return chunkLine(map[string]any{"tool_calls": []any{map[string]any{"index": 0, "id": "call_1", "type": "function",
		"function": map[string]any{"name": name, "arguments": args}}}}, nil) + chunkLine(map[string]any{}, "tool_calls") + "data: [DONE]\n\n"
}

func chunkLine(delta map[string]any, finish any) string {
	b, _ := json.Marshal(map[string]any{"id": "x", "object": "chat.completion.chunk", "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
	return fmt.Sprintf("data: %s\n\n", b)
}

func TestAsk(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello from the readme\n"), 0o644)
	srv, got := modelServer(t,
		sseCall("run_command", `{"command":"cat README.md","reason":"read it"}`),
		sseText("The README says hello."),
	)
	out, errOut, code := rein(t, dir, "", "ask", "--model", "openai-compatible:m", "--base-url", srv.URL, "what does the readme say?")
	if code != exitOK {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	if !strings.Contains(out, "The README says hello.") {
		t.Errorf("answer missing from stdout: %q", out)
	}
	for _, want := range []string{"▶ cat README.md   # read it", "allow — rule commands: cat <file>", "│ hello from the readme", "exit 0", "over 2 model calls; 1 commands run"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if len(*got) != 2 || !strings.Contains((*got)[1], `hello from the readme`) {
		t.Errorf("the command output did not reach the model: %d requests", len(*got))
	}

	srv, _ = modelServer(t, sseCall("run_command", `{"command":"rm -rf /","reason":"x"}`), sseText("ok"))
	out, _, code = rein(t, dir, "", "ask", "--json", "-m", "openai-compatible:m", "--base-url", srv.URL, "q")
	if code != exitOK {
		t.Fatalf("json: exit %d", code)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct{ Type, Verdict, Session string }
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON event: %q", line)
		}
		if e.Session == "" {
			t.Errorf("an event without its session: %s", line)
		}
		types = append(types, e.Type)
	}
	// A tool result's output is a JSON value, not JSON in a string.
	if !strings.Contains(out, `"type":"tool_result"`) || strings.Contains(out, `"output":"{`) {
		t.Errorf("tool results' output is not a JSON value:\n%s", out)
	}
	joined := strings.Join(types, ",")
	for _, want := range []string{"tool_call", "command", "tool_result", "usage", "text", "done"} {
		if !strings.Contains(joined, want) {
			t.Errorf("events %s lack %s", joined, want)
		}
	}
}

func TestAskErrors(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("REIN_MODEL", "")
	_, errOut, code := rein(t, dir, "", "ask", "hi")
	if code != exitUsage || !strings.Contains(errOut, "no model: pass --model") {
		t.Errorf("no model: %d %q", code, errOut)
	}
	_, errOut, code = rein(t, dir, "", "ask", "-m", "openai:gpt-4.1", "hi")
	if code != exitUsage || !strings.Contains(errOut, "set OPENAI_API_KEY") {
		t.Errorf("no key: %d %q", code, errOut)
	}
	_, errOut, code = rein(t, dir, "", "ask", "-m", "nope:x", "hi")
	if code != exitUsage || !strings.Contains(errOut, "unknown provider") {
		t.Errorf("bad provider: %d %q", code, errOut)
	}
	// A server that answers a web page, and one that is not there.
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, "<!DOCTYPE html><html><body>Welcome</body></html>")
	}))
	defer page.Close()
	_, errOut, code = rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", page.URL, "hi")
	if code != exitUsage || !strings.Contains(errOut, "answered a web page, not the API: check --base-url") {
		t.Errorf("html: %d %q", code, errOut)
	}
	// A failed ask leaves no empty session behind.
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	if _, errOut, _ := rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", page.URL, "hi"); strings.Contains(errOut, "continue it with --session") {
		t.Errorf("a failed ask names a session to continue: %q", errOut)
	}
	if out, _, _ := rein(t, dir, "", "sessions"); strings.Contains(out, "20") {
		t.Errorf("a failed ask left a session: %q", out)
	}
	// With --json the error is an event on stdout too.
	out, _, code := rein(t, dir, "", "ask", "--json", "-m", "openai-compatible:m", "--base-url", page.URL, "hi")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var last struct{ Type, Message, Session string }
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if code != exitUsage || last.Type != "error" || !strings.Contains(last.Message, "web page") || last.Session == "" {
		t.Errorf("json error: %d %q", code, out)
	}
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	_, errOut, code = rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", url+"/v1", "hi")
	if code != exitUsage || !strings.Contains(errOut, "is the server running") {
		t.Errorf("nothing there: %d %q", code, errOut)
	}
}

// A conversation stopped at a limit before the model answered does not
// exit 0: a script would read the unfinished answer as done.
func TestAskStoppedAtALimit(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644)
	srv, _ := modelServer(t,
		sseCall("run_command", `{"command":"cat README.md","reason":"a"}`),
		sseCall("run_command", `{"command":"cat README.md","reason":"b"}`),
		sseText("never reached"),
	)
	_, errOut, code := rein(t, dir, "", "ask", "--max-turns", "1", "-m", "openai-compatible:m", "--base-url", srv.URL, "q")
	if code != exitLimit || !strings.Contains(errOut, "stopped at limits.max_tool_turns") {
		t.Errorf("exit %d, stderr %s", code, errOut)
	}
}

// A session started in another repository is not continued here without
// the person's word: refused without a terminal.
func TestAskSessionFromAnotherRepository(t *testing.T) {
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	first, second := t.TempDir(), t.TempDir()
	srv, _ := modelServer(t, sseText("one"), sseText("two"))
	if _, errOut, code := rein(t, first, "", "ask", "--session", "work", "-m", "openai-compatible:m", "--base-url", srv.URL, "q"); code != exitOK {
		t.Fatalf("first: %d %s", code, errOut)
	}
	_, errOut, code := rein(t, second, "", "ask", "--session", "work", "-m", "openai-compatible:m", "--base-url", srv.URL, "q")
	if code != exitUsage || !strings.Contains(errOut, "session work was started in "+first+", not here") {
		t.Errorf("exit %d %q", code, errOut)
	}
}

// --command-allow narrows a run to the commands it lists (comma lists and
// repeats alike), still as the recipe decides them; --command-deny takes a
// comma list; --also-allow widens; --no-allow-commands leaves file tools.
func TestAskCommandFlags(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644)
	// result is what the model was told of its one command.
	result := func(t *testing.T, command string, flags ...string) string {
		t.Helper()
		srv, got := modelServer(t, sseCall("run_command", fmt.Sprintf(`{"command":%q,"reason":"x"}`, command)), sseText("done"))
		args := append([]string{"ask", "-m", "openai-compatible:m", "--base-url", srv.URL}, flags...)
		out, errOut, code := rein(t, dir, "", append(args, "q")...)
		if code != exitOK || len(*got) != 2 {
			t.Fatalf("%v: exit %d, %d requests\n%s%s", flags, code, len(*got), out, errOut)
		}
		return (*got)[1]
	}
	for _, tt := range []struct {
		command string
		flags   []string
		want    string
	}{
		{"ls", []string{"--command-allow", "git*,cat*"}, "matches none of this run's --command-allow patterns (git*, cat*)"},
		{"ls", []string{"--command-allow", "git*", "--command-allow", "cat*"}, "matches none of this run's --command-allow patterns"},
		{"cat README.md", []string{"--command-allow", "git*, cat*"}, "hello"},
		// Narrowing never widens: rm is not in the recipe.
		{"rm README.md", []string{"--command-allow", "rm*"}, "rule danger-rm"},
		{"cat README.md", []string{"--command-deny", "rm*,cat*"}, "matches the deny pattern"},
		{"wc -l README.md", []string{"--command-deny", "rm*,mv*"}, "1 README.md"},
		{"touch x", []string{"--also-allow", "touch x"}, "exit_code"},
	} {
		if got := result(t, tt.command, tt.flags...); !strings.Contains(got, tt.want) {
			t.Errorf("%s %v: the model was told\n%s\nwant %q", tt.command, tt.flags, got, tt.want)
		}
	}
	// --no-allow-commands: no command tool is offered at all.
	srv, got := modelServer(t, sseText("done"))
	if _, errOut, code := rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", srv.URL, "--no-allow-commands", "q"); code != exitOK {
		t.Fatalf("--no-allow-commands: exit %d %s", code, errOut)
	}
	if strings.Contains((*got)[0], `"run_command"`) || strings.Contains((*got)[0], `"execute_command"`) || !strings.Contains((*got)[0], `"file_read"`) {
		t.Errorf("--no-allow-commands offered: %s", (*got)[0])
	}
	if _, errOut, code := rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", srv.URL, "--no-allow-commands", "--allow-commands", "q"); code != exitUsage || !strings.Contains(errOut, "contradict") {
		t.Errorf("both flags: exit %d %s", code, errOut)
	}
}

// After the answer, rein ask estimates the run's cost where the model's
// price is known, on the terminal and in the done event.
func TestAskShowsACostEstimate(t *testing.T) {
	dir := t.TempDir()
	withUsage := chunkLine(map[string]any{"content": "Fine."}, nil) + chunkLine(map[string]any{}, "stop") +
		`data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":100000,"completion_tokens":10000,"total_tokens":110000}}` + "\n\ndata: [DONE]\n\n"
	srv, _ := modelServer(t, withUsage, withUsage)
	_, errOut, code := rein(t, dir, "", "ask", "-m", "openai-compatible:gpt-4.1", "--base-url", srv.URL, "q")
	if code != exitOK || !strings.Contains(errOut, "100000 tokens in, 10000 out, over 1 model calls; 0 commands run; about $0.2800") {
		t.Errorf("exit %d\n%s", code, errOut)
	}
	out, _, _ := rein(t, dir, "", "ask", "--json", "-m", "openai-compatible:gpt-4.1", "--base-url", srv.URL, "q")
	if !strings.Contains(out, `"cost_usd":0.28`) {
		t.Errorf("the done event has no cost:\n%s", out)
	}
}
