package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsh/rein/engine/sandbox"
)

// The sandbox holds for every way rein runs a program: rein exec, tasks,
// the agent's commands and MCP calls.
func TestSandboxAppliesEverywhere(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Landlock is Linux's")
	}
	if st := sandbox.Probe(); !st.Available() {
		t.Skipf("Landlock not available: %s", st.Why)
	}
	outside := t.TempDir()
	target := filepath.Join(outside, "escaped")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "escape.sh"), []byte("#!/bin/sh\necho x > "+target+"\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{
  commands: [{ command: './escape.sh' }],
  tasks: { escape: { run: './escape.sh', expose: true } },
}`), 0o644)
	escaped := func(how string) {
		t.Helper()
		if _, err := os.Stat(target); err == nil {
			t.Errorf("%s: the script wrote outside the workspace", how)
			os.Remove(target)
		}
	}

	_, errOut, _ := rein(t, dir, "", "exec", "./escape.sh")
	escaped("rein exec")
	if !strings.Contains(errOut, "Permission denied") {
		t.Errorf("rein exec stderr %q", errOut)
	}
	rein(t, dir, "", "run", "escape")
	escaped("rein run")

	srv, got := modelServer(t, sseCall("run_command", `{"command":"./escape.sh","reason":"x"}`), sseText("done"))
	rein(t, dir, "", "ask", "-m", "openai-compatible:m", "--base-url", srv.URL, "q")
	escaped("rein ask")
	if len(*got) < 2 || !strings.Contains((*got)[1], "Permission denied") {
		t.Errorf("the model did not see the refusal")
	}

	cmd := exec.Command(os.Args[0], "--dir", dir, "mcp")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_DB="+filepath.Join(t.TempDir(), "rein.db"), "REIN_CACHE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []*mcp.CallToolParams{
		{Name: "run_command", Arguments: map[string]any{"command": "./escape.sh", "reason": "x"}},
		{Name: "escape", Arguments: map[string]any{}},
	} {
		if _, err := cs.CallTool(context.Background(), call); err != nil {
			t.Fatal(err)
		}
		escaped("rein mcp " + call.Name)
	}
}

func TestDoctor(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{}`), 0o644)
	out, _, code := rein(t, dir, "", "doctor")
	if code != exitOK || !strings.Contains(out, "landlock:") || !strings.Contains(out, "enforced:") {
		t.Errorf("doctor: %d\n%s", code, out)
	}
	// It lists what every run puts back, and what commands cannot change
	// where the sandbox has namespaces.
	wants := []string{"kept:", filepath.Join(dir, "rein.jsonnet"), filepath.Join(dir, ".git", "hooks")}
	if st := sandbox.Probe(); st.Available() && st.Namespaces {
		wants = append(wants, "read-only:   to commands")
	}
	for _, want := range wants {
		if !strings.Contains(out, want) {
			t.Errorf("doctor lacks %q:\n%s", want, out)
		}
	}
}
