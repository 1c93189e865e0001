package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// scriptedGemini is a Gemini API server on 127.0.0.1: the main
// conversation's requests (those offering tools) get the next turn (a
// run_shell_command call with a command line, or "text:ANSWER"); other
// requests (the model router's) a short answer.
type scriptedGemini struct {
	mu    sync.Mutex
	turns []string
	seen  []string
	url   string
}

func newScriptedGemini(t *testing.T, turns ...string) *scriptedGemini {
	s := &scriptedGemini{turns: turns}
	s.url = localServer(t, s.handle)
	return s
}

func (s *scriptedGemini) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct{ Tools []json.RawMessage }
	json.Unmarshal(body, &req)
	parts := []any{map[string]string{"text": `{"reasoning":"simple","model_choice":"flash"}`}}
	if len(req.Tools) > 0 && strings.Contains(r.URL.Path, "streamGenerateContent") {
		s.mu.Lock()
		n := len(s.seen)
		s.seen = append(s.seen, string(body))
		turn := "text:done"
		if n < len(s.turns) {
			turn = s.turns[n]
		}
		s.mu.Unlock()
		if text, ok := strings.CutPrefix(turn, "text:"); ok {
			parts = []any{map[string]string{"text": text}}
		} else {
			parts = []any{map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]string{"command": turn}}}}
		}
	}
	resp, _ := json.Marshal(map[string]any{
		"candidates":    []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]int{"promptTokenCount": 5, "candidatesTokenCount": 1, "totalTokenCount": 6},
	})
	if strings.Contains(r.URL.Path, "streamGenerateContent") {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: %s\n\n", resp)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(resp)
}

// functionResponses are what Gemini CLI told the model of its shell calls,
// in order.
func (s *scriptedGemini) functionResponses() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return nil
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			}
		}
	}
	json.Unmarshal([]byte(s.seen[len(s.seen)-1]), &req)
	var out []string
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, string(p.FunctionResponse))
			}
		}
	}
	return out
}

// End to end with the real Gemini CLI: rein's BeforeTool hook in its
// settings, a scripted model asking for a denied and an allowed command.
func TestGeminiHookEndToEnd(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", "..", "testdata", "agents", "node_modules", ".bin", "gemini"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		t.Skip("Gemini CLI is not installed (npm ci --prefix testdata/agents)")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("no node")
	}
	dir := hookWorkspace(t)
	state := ownState(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	settings, _ := json.Marshal(map[string]any{
		"hooks": map[string]any{"BeforeTool": []any{map[string]any{"matcher": "run_shell_command",
			"hooks": []any{map[string]any{"type": "command", "name": "rein", "command": self + " hook gemini", "timeout": 30000}}}}},
		"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
	})
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), settings, 0o644)
	model := newScriptedGemini(t, "rm -rf src", "head -1 README.md", "text:All done.")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "tidy up and read the readme", "--yolo", "-m", "gemini-2.5-pro")
	cmd.Dir = dir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "USER=tester", "LANG=C.UTF-8", "SHELL=/bin/bash",
		"GEMINI_API_KEY=not-a-key", "GOOGLE_GEMINI_BASE_URL=" + model.url, "GEMINI_CLI_TRUST_WORKSPACE=true",
	}
	cmd.Env = append(cmd.Env, agentReinEnv(t, state)...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("gemini: %v\n%s", err, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "src", "app.go")); err != nil {
		t.Errorf("rm -rf src ran: %v\n%s", err, out.String())
	}
	told := model.functionResponses()
	if len(told) != 2 || !strings.Contains(told[0], "danger-rm") || !strings.Contains(told[1], "hello from the readme") {
		t.Errorf("the model was told %q\n%s", told, out.String())
	}
	t.Setenv("REIN_DB", filepath.Join(state, "rein.db"))
	audit, _, _ := rein(t, "", "", "audit", "--json")
	if !strings.Contains(audit, `"source":"hook:gemini"`) || !strings.Contains(audit, `"source":"gemini"`) {
		t.Errorf("the audit lacks the hook's decisions and the run:\n%s", audit)
	}
}
