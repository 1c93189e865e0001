package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// scriptedResponses is an OpenAI Responses API server on 127.0.0.1 for
// Codex: each request gets the next turn (a call of Codex's exec_command
// with a command line, or a text answer); it keeps the requests.
type scriptedResponses struct {
	turnScript
	url string
}

func newScriptedResponses(t *testing.T, turns ...string) *scriptedResponses {
	s := &scriptedResponses{turnScript: turnScript{turns: turns}}
	s.url = localServer(t, s.handle) + "/v1"
	return s
}

func (s *scriptedResponses) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if !strings.HasSuffix(r.URL.Path, "/responses") {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[],"models":[]}`)
		return
	}
	n, turn := s.next(body)
	w.Header().Set("Content-Type", "text/event-stream")
	event := func(typ string, data map[string]any) {
		data["type"] = typ
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", typ, b)
	}
	id := fmt.Sprintf("resp_%d", n)
	var item map[string]any
	if text, ok := strings.CutPrefix(turn, "text:"); ok {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}}}
	} else {
		args, _ := json.Marshal(map[string]string{"cmd": turn})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n),
			"name": "exec_command", "arguments": string(args), "status": "completed"}
	}
	event("response.created", map[string]any{"response": map[string]any{"id": id, "status": "in_progress", "output": []any{}}})
	event("response.output_item.added", map[string]any{"output_index": 0, "item": item})
	event("response.output_item.done", map[string]any{"output_index": 0, "item": item})
	event("response.completed", map[string]any{"response": map[string]any{"id": id, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 5, "output_tokens": 1, "total_tokens": 6, "input_tokens_details": map[string]int{"cached_tokens": 0}, "output_tokens_details": map[string]int{"reasoning_tokens": 0}}}})
}

// callOutput is what Codex told the model of a call.
func (s *scriptedResponses) callOutput(callID string) string {
	for _, r := range s.requests() {
		var req struct {
			Input []struct {
				Type   string
				CallID string `json:"call_id"`
				Output json.RawMessage
			}
		}
		json.Unmarshal([]byte(r), &req)
		for _, it := range req.Input {
			if it.Type == "function_call_output" && it.CallID == callID {
				return string(it.Output)
			}
		}
	}
	return ""
}

// End to end with the real Codex CLI: rein's hook in its hooks.json, a
// scripted model asking for a denied and an allowed command. The denied
// one does not run and the model reads the rule; the allowed one runs
// through rein (inside Codex's own sandbox) and its output comes back.
func TestCodexHookEndToEnd(t *testing.T) {
	bin := agentCLI(t, "codex", "Codex")
	dir := hookWorkspace(t)
	state := ownState(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	model := newScriptedResponses(t, "rm -rf src", "head -1 README.md", "text:All done.")
	codexHome := t.TempDir()
	config := fmt.Sprintf(`model = "gpt-5.1-codex"
model_provider = "scripted"

[model_providers.scripted]
name = "scripted"
base_url = %q
wire_api = "responses"
env_key = "SCRIPTED_KEY"
`, model.url)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(config), 0o644)
	hooks, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Bash",
		"hooks": []any{map[string]any{"type": "command", "command": self + " hook codex", "timeout": 30}}}}}})
	os.WriteFile(filepath.Join(codexHome, "hooks.json"), hooks, 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", "-s", "read-only", "tidy up and read the readme")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "USER=tester", "LANG=C.UTF-8",
		"CODEX_HOME=" + codexHome, "SCRIPTED_KEY=not-a-key",
	}
	cmd.Env = append(cmd.Env, agentReinEnv(t, state)...)
	out := runAgent(t, cmd)
	if _, err := os.Stat(filepath.Join(dir, "src", "app.go")); err != nil {
		t.Errorf("rm -rf src ran: %v\n%s", err, out)
	}
	if got := model.callOutput("call_0"); !strings.Contains(got, "danger-rm") {
		t.Errorf("the model was told of rm -rf src: %s\n%s", got, out)
	}
	if got := model.callOutput("call_1"); !strings.Contains(got, "hello from the readme") {
		t.Errorf("the allowed command's output did not come back: %s\n%s", got, out)
	}
	t.Setenv("REIN_DB", filepath.Join(state, "rein.db"))
	audit, _, _ := rein(t, "", "", "audit", "--json")
	if !strings.Contains(audit, `"source":"hook:codex","tool_use_id":"call_0"`) || !strings.Contains(audit, `"tool_use_id":"call_1"`) {
		t.Errorf("the audit lacks the hook's decisions:\n%s", audit)
	}
}
