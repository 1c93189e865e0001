package mcpserver_test

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsh/rein/engine/mcpserver"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tools"
)

// connect serves a preset's tools and connects an SDK client in memory.
func connect(t *testing.T, preset string, elicit func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) (*mcp.ClientSession, *tools.Set) {
	t.Helper()
	_, p := policytest.Load(t, t.TempDir(), preset)
	opts := tools.Options{}
	if elicit != nil {
		opts.Approver = mcpserver.Approver()
	}
	set := tools.NewSet(p, runner.New(p, runner.Options{}), opts)
	return sdkClient(t, set, &mcp.ClientOptions{ElicitationHandler: elicit}), set
}

// sdkClient connects the Go MCP SDK's client to a server of set's tools
// in the same process.
func sdkClient(t *testing.T, set *tools.Set, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	srv, err := mcpserver.New(set, mcpserver.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r, w := srv.Pipe(context.Background())
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, opts).Connect(context.Background(), &mcp.IOTransport{Reader: r, Writer: w}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListAndCall(t *testing.T) {
	cs, set := connect(t, "readonly", nil)
	ctx := context.Background()
	list, err := cs.ListTools(ctx, &mcp.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range list.Tools {
		byName[tool.Name] = tool
	}
	if byName["run_command"] == nil || byName["file_read"] == nil || byName["file_write"] != nil {
		t.Fatalf("tools %v", byName)
	}
	// The input schema is the one sent to model providers.
	sent, _ := json.Marshal(byName["run_command"].InputSchema)
	var a, b any
	json.Unmarshal(sent, &a)
	json.Unmarshal(set.Specs()[0].Schema, &b)
	if ja, _ := json.Marshal(a); string(ja) != func() string { jb, _ := json.Marshal(b); return string(jb) }() {
		t.Errorf("schema differs:\n%s\n%s", sent, set.Specs()[0].Schema)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "echo hello from rein", "reason": "test"}})
	if err != nil || res.IsError || !strings.Contains(text(res), "hello from rein") {
		t.Fatalf("allowed call: %v %+v %s", err, res, text(res))
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "rm -rf x", "reason": "test"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "danger-rm") || !strings.Contains(text(res), "allowed instead") {
		t.Fatalf("denied call: %v %s", err, text(res))
	}
	// Bad arguments and unknown tools are protocol errors.
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": 42}}); err == nil || !strings.Contains(err.Error(), "input schema") {
		t.Errorf("bad arguments: %v", err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "launch_missiles", Arguments: map[string]any{}}); err == nil {
		t.Error("unknown tool: no error")
	}
	// A failing command is a result, not a protocol error.
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "file_read", Arguments: map[string]any{"path": "../outside"}})
	if err != nil || !res.IsError || !strings.Contains(text(res), "outside the workspace") {
		t.Errorf("tool failure: %v %s", err, text(res))
	}
}

func TestAskVerdicts(t *testing.T) {
	ctx := context.Background()
	commit := map[string]any{"command": "git commit -m x", "reason": "save"}
	cs, _ := connect(t, "git", nil)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: commit})
	if err != nil || !res.IsError || !strings.Contains(text(res), "needs a person's confirmation") {
		t.Errorf("ask without elicitation: %v %s", err, text(res))
	}
	asked := ""
	cs, _ = connect(t, "git", func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = req.Params.Message
		return &mcp.ElicitResult{Action: "decline", Content: map[string]any{"note": "not now"}}, nil
	})
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: commit})
	if err != nil || !res.IsError || !strings.Contains(asked, "git commit -m x") || !strings.Contains(text(res), "not now") || !strings.Contains(asked, `The model's reason: "save".`) {
		t.Errorf("declined through elicitation: %v %q %s", err, asked, text(res))
	}
}

func TestAskApprovedThroughElicitation(t *testing.T) {
	ctx := context.Background()
	cs, _ := connect(t, "git", func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept"}, nil
	})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "git commit -m x", "reason": "save"}})
	// Approved, so git commit really runs: in a folder that is not a
	// repository it fails, as a result (not a protocol error).
	if err != nil || !strings.Contains(text(res), "not a git repository") {
		t.Errorf("approved: %v %s", err, text(res))
	}
}

// tools/list says what each tool may do: the file tools read; commands
// write and reach the network only where the recipe's sandbox lets them.
func TestToolAnnotations(t *testing.T) {
	for preset, want := range map[string]map[string][3]bool{
		"readonly": {"file_read": {true, false, false}, "run_command": {true, false, false}, "grep": {true, false, false}},
		"go":       {"file_read": {true, false, false}, "run_command": {false, true, true}},
	} {
		cs, _ := connect(t, preset, nil)
		list, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			w, ok := want[tool.Name]
			if !ok {
				continue
			}
			a := tool.Annotations
			if a == nil || a.ReadOnlyHint != w[0] || a.DestructiveHint == nil || *a.DestructiveHint != w[1] || a.OpenWorldHint == nil || *a.OpenWorldHint != w[2] {
				t.Errorf("%s %s: %+v, want read-only %v destructive %v open-world %v", preset, tool.Name, a, w[0], w[1], w[2])
			}
		}
	}
}

// Arguments that do not match a tool's input schema are the protocol's
// invalid-params error, found by the tool set's own check (the one every
// caller's arguments pass), and nothing runs.
func TestInvalidArgumentsAreInvalidParams(t *testing.T) {
	cs, set := connect(t, "readonly", nil)
	ctx := context.Background()
	for _, args := range []map[string]any{
		{"command": "ls", "unexpected": 1},
		{"reason": "no command"},
		{"command": 42},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: args})
		if err == nil || !strings.Contains(err.Error(), "input schema") {
			t.Errorf("%v: %v, want an invalid-params error naming the schema", args, err)
		}
	}
	if n := set.CommandsRun(); n != 0 {
		t.Errorf("%d commands ran", n)
	}
}

// The protocol as a client without an SDK speaks it: version negotiation,
// ping, an unknown method, and a call the client cancels, which stops its
// command instead of leaving it to run out.
func TestProtocol(t *testing.T) {
	_, p := policytest.Load(t, t.TempDir(), "readonly")
	set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
	srv, err := mcpserver.New(set, mcpserver.Options{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	r, w := srv.Pipe(context.Background())
	defer w.Close()
	answers := make(chan map[string]any)
	go func() {
		dec := json.NewDecoder(r)
		for {
			var m map[string]any
			if dec.Decode(&m) != nil {
				close(answers)
				return
			}
			answers <- m
		}
	}()
	exchange := func(line string) map[string]any {
		t.Helper()
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-answers:
			return m
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s", line)
		}
		return nil
	}
	init := exchange(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-11-25" {
		t.Errorf("an unknown version was answered with %v, want the newest this server speaks", v)
	}
	init = exchange(`{"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	if init["id"] != "a" || init["result"].(map[string]any)["protocolVersion"] != "2025-06-18" {
		t.Errorf("a known version is taken as asked, with the request's id: %v", init)
	}
	if m := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); m["result"] == nil || m["error"] != nil {
		t.Errorf("ping: %v", m)
	}
	if m := exchange(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`); m["error"] == nil || m["error"].(map[string]any)["code"] != float64(-32601) {
		t.Errorf("an unknown method: %v", m)
	}
	start := time.Now()
	io.WriteString(w, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"sleep 30","reason":"x"}}}`+"\n")
	time.Sleep(300 * time.Millisecond)
	// A second call with the id of one still running is refused, not run.
	if m := exchange(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"run_command","arguments":{"command":"echo twice","reason":"x"}}}`); m["error"] == nil {
		t.Errorf("a call reusing a running call's id: %v", m)
	}
	m := exchange(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"user"}}`)
	if m["id"] != float64(4) || time.Since(start) > 10*time.Second {
		t.Errorf("a cancelled call: %v after %v", m, time.Since(start))
	}
}
