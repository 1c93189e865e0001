package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The official TypeScript MCP SDK drives rein mcp as a real client would.
func TestMCPWithTypeScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: skipping the TypeScript MCP SDK test")
	}
	clientDir, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "mcp-client"))
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("the TypeScript MCP SDK is not installed: run `npm ci --prefix testdata/mcp-client` (.ci/run does)")
	}
	// The client starts this test binary as rein (REIN_TEST_MAIN, which it
	// passes on with the rest of its environment).
	ws := t.TempDir()
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = clientDir
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_BIN="+os.Args[0], "REIN_WORKSPACE="+ws,
		"REIN_DB="+filepath.Join(t.TempDir(), "rein.db"), "REIN_CACHE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("client: %v\n%s", err, out)
	}
	var report struct {
		Tools            []string
		RunCommandSchema map[string]any
		Allowed, Denied  struct {
			IsError bool
			Text    string
		}
		Error string
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("report %q: %v", out, err)
	}
	if !slices.Contains(report.Tools, "run_command") || !slices.Contains(report.Tools, "file_read") {
		t.Errorf("tools %v", report.Tools)
	}
	if req, _ := report.RunCommandSchema["required"].([]any); len(req) != 2 {
		t.Errorf("run_command schema %v", report.RunCommandSchema)
	}
	if report.Allowed.IsError || !strings.Contains(report.Allowed.Text, "hello from the typescript sdk") {
		t.Errorf("allowed call: %+v", report.Allowed)
	}
	if !report.Denied.IsError || !strings.Contains(report.Denied.Text, "no-recursive-rm-of-root") {
		t.Errorf("denied call must be isError naming the rule: %+v", report.Denied)
	}
}
