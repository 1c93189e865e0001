package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// agentCLI is a real agent CLI (.bin/NAME, product names it in a skip),
// installed from npm by .ci/run (testdata/agents, pinned in its
// package-lock.json).
func agentCLI(t *testing.T, name, product string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the hook test drives a POSIX shell")
	}
	bin, err := filepath.Abs(filepath.Join("..", "..", "testdata", "agents", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skipf("%s is not installed (npm ci --prefix testdata/agents)", product)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	return bin
}

// turnScript hands out a scripted model's turns: each request of the main
// conversation gets the next one (a command line to run, or "text:ANSWER";
// "text:done" once the script is over) and is kept.
type turnScript struct {
	mu    sync.Mutex
	turns []string
	seen  []string
}

// next keeps body and returns its number and its turn.
func (s *turnScript) next(body []byte) (int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.seen)
	s.seen = append(s.seen, string(body))
	if n < len(s.turns) {
		return n, s.turns[n]
	}
	return n, "text:done"
}

// requests are the bodies kept so far.
func (s *turnScript) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

// runAgent runs an agent CLI to its end and returns what it printed; an
// agent that fails ends the test.
func runAgent(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(cmd.Path), err, out.String())
	}
	return out.String()
}

// scriptedClaude is an Anthropic Messages server on 127.0.0.1: the main
// conversation (the request that offers tools) gets the script's turns in
// order, one per request; any side request (a title, a summary) a short
// text. It keeps the main requests' bodies.
type scriptedClaude struct {
	mu    sync.Mutex
	turns []func(w io.Writer)
	seen  []string
	url   string
}

func newScriptedClaude(t *testing.T, turns ...func(w io.Writer)) *scriptedClaude {
	s := &scriptedClaude{turns: turns}
	s.url = localServer(t, s.handle)
	return s
}

func (s *scriptedClaude) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasSuffix(r.URL.Path, "/v1/messages") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, "{}")
		return
	}
	var req struct {
		Stream bool
		Tools  []json.RawMessage
	}
	json.Unmarshal(body, &req)
	turn := func(w io.Writer) { claudeText(w, "ok") }
	if len(req.Tools) > 0 {
		s.mu.Lock()
		s.seen = append(s.seen, string(body))
		if n := len(s.seen); n <= len(s.turns) {
			turn = s.turns[n-1]
		} else {
			turn = func(w io.Writer) { claudeText(w, "done") }
		}
		s.mu.Unlock()
	}
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"msg_side","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}`)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	turn(w)
}

func (s *scriptedClaude) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func sseEvent(w io.Writer, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
}

func sseStart(w io.Writer) {
	sseEvent(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": "msg_1", "type": "message", "role": "assistant",
		"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]int{"input_tokens": 10, "output_tokens": 1}}})
}

func sseStop(w io.Writer, reason string) {
	sseEvent(w, "message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": reason, "stop_sequence": nil}, "usage": map[string]int{"output_tokens": 5}})
	sseEvent(w, "message_stop", map[string]any{"type": "message_stop"})
}

func claudeText(w io.Writer, text string) {
	sseStart(w)
	sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "text", "text": ""}})
	sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "text_delta", "text": text}})
	sseEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sseStop(w, "end_turn")
}

// toolUse is a turn in which the model calls one tool.
func toolUse(id, name string, input map[string]any) func(w io.Writer) {
	return func(w io.Writer) {
		b, _ := json.Marshal(input)
		sseStart(w)
		sseEvent(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0, "content_block": map[string]any{"type": "tool_use", "id": id, "name": name, "input": map[string]any{}}})
		sseEvent(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(b)}})
		sseEvent(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
		sseStop(w, "tool_use")
	}
}

// toolResult finds what Claude Code told the model of a tool call.
func toolResult(requests []string, id string) string {
	for _, r := range requests {
		var req struct {
			Messages []struct {
				Content json.RawMessage
			}
		}
		json.Unmarshal([]byte(r), &req)
		for _, m := range req.Messages {
			var blocks []struct {
				Type      string
				ToolUseID string `json:"tool_use_id"`
				Content   json.RawMessage
			}
			if json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return string(b.Content)
				}
			}
		}
	}
	return ""
}

// End to end with the real Claude Code: rein's hook is in its settings,
// the scripted model asks for a denied command, an allowed one and a read
// of .env. The denied command does not run and the model is told the rule;
// the allowed one runs through rein (its output comes back); .env is not
// read; the audit log has all three under the Claude Code session.
func TestClaudeCodeHookEndToEnd(t *testing.T) {
	claude := agentCLI(t, "claude", "Claude Code")
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := hookWorkspace(t)
	home := t.TempDir()
	state := ownState(t)
	db := filepath.Join(state, "rein.db")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	settings := filepath.Join(t.TempDir(), "settings.json")
	hookSettingsJSON, _ := json.Marshal(map[string]any{
		"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash|Read|Write|Edit|Glob|Grep",
			"hooks": []any{map[string]any{"type": "command", "command": self + " hook claude-code", "timeout": 30}}}}},
	})
	os.WriteFile(settings, hookSettingsJSON, 0o644)
	model := newScriptedClaude(t,
		toolUse("toolu_rm", "Bash", map[string]any{"command": "rm -rf src", "description": "clean"}),
		toolUse("toolu_cat", "Bash", map[string]any{"command": "head -1 README.md", "description": "read"}),
		toolUse("toolu_env", "Read", map[string]any{"file_path": filepath.Join(dir, ".env")}),
		func(w io.Writer) { claudeText(w, "All done.") },
	)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, claude, "-p", "tidy up and read the readme", "--settings", settings, "--output-format", "json", "--model", "claude-sonnet-4-5")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "USER=tester", "LANG=C.UTF-8", "SHELL=/bin/bash",
		"ANTHROPIC_BASE_URL=" + model.url, "ANTHROPIC_API_KEY=sk-test-not-a-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1",
	}
	cmd.Env = append(cmd.Env, agentReinEnv(t, state)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	requests := model.requests()
	if len(requests) < 4 {
		t.Fatalf("the model was called %d times\nstdout %s\nstderr %s", len(requests), stdout.String(), stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "app.go")); err != nil {
		t.Errorf("rm -rf src ran: %v", err)
	}
	if got := toolResult(requests, "toolu_rm"); !strings.Contains(got, "danger-rm") {
		t.Errorf("the model was told of rm -rf src: %s", got)
	}
	if got := toolResult(requests, "toolu_cat"); !strings.Contains(got, "hello from the readme") {
		t.Errorf("the allowed command's output did not come back: %s", got)
	}
	if got := toolResult(requests, "toolu_env"); strings.Contains(got, "CANARY-hook-secret") || !strings.Contains(got, "paths.deny") {
		t.Errorf("the model was told of .env: %s", got)
	}
	t.Setenv("REIN_DB", db)
	out, _, _ := rein(t, "", "", "audit", "--json")
	for _, want := range []string{`"tool_use_id":"toolu_rm"`, `"tool_use_id":"toolu_env"`, `"source":"claude-code","tool_use_id":"toolu_cat"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the audit lacks %s:\n%s", want, out)
		}
	}
}

// localServer serves h on 127.0.0.1 until the test ends and returns its
// address (http://127.0.0.1:PORT): the scripted model servers the real
// agent CLIs talk to.
func localServer(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String()
}

// agentReinEnv is the environment an agent CLI passes to the rein it runs
// as its hook: this test binary as rein, with the test's own state.
func agentReinEnv(t *testing.T, state string) []string {
	return []string{"REIN_TEST_MAIN=1", "CI=true", "REIN_DB=" + filepath.Join(state, "rein.db"), "XDG_STATE_HOME=" + state,
		"XDG_CONFIG_HOME=" + t.TempDir(), "REIN_CACHE_DIR=" + t.TempDir()}
}
