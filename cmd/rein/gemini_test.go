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

// scriptedGemini is a Gemini API server on 127.0.0.1: the main
// conversation's requests (those offering tools) get the next turn (a
// run_shell_command call with a command line, or "text:ANSWER"); other
// requests (the model router's) a short answer.
type scriptedGemini struct {
	turnScript
	url string
}

func newScriptedGemini(t *testing.T, turns ...string) *scriptedGemini {
	s := &scriptedGemini{turnScript: turnScript{turns: turns}}
	s.url = localServer(t, s.handle)
	return s
}

func (s *scriptedGemini) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req struct{ Tools []json.RawMessage }
	json.Unmarshal(body, &req)
	parts := []any{map[string]string{"text": `{"reasoning":"simple","model_choice":"flash"}`}}
	if len(req.Tools) > 0 && strings.Contains(r.URL.Path, "streamGenerateContent") {
		_, turn := s.next(body)
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
	seen := s.requests()
	if len(seen) == 0 {
		return nil
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse json.RawMessage `json:"functionResponse"`
			}
		}
	}
	json.Unmarshal([]byte(seen[len(seen)-1]), &req)
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
	bin := agentCLI(t, "gemini", "Gemini CLI")
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
	out := runAgent(t, cmd)
	if _, err := os.Stat(filepath.Join(dir, "src", "app.go")); err != nil {
		t.Errorf("rm -rf src ran: %v\n%s", err, out)
	}
	told := model.functionResponses()
	if len(told) != 2 || !strings.Contains(told[0], "danger-rm") || !strings.Contains(told[1], "hello from the readme") {
		t.Errorf("the model was told %q\n%s", told, out)
	}
	t.Setenv("REIN_DB", filepath.Join(state, "rein.db"))
	audit, _, _ := rein(t, "", "", "audit", "--json")
	if !strings.Contains(audit, `"source":"hook:gemini"`) || !strings.Contains(audit, `"source":"gemini"`) {
		t.Errorf("the audit lacks the hook's decisions and the run:\n%s", audit)
	}
}
