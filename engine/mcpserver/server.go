// Package mcpserver serves rein's vetted tools over the Model Context
// Protocol, with the same policy, runner, limits and audit log as rein ask.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/reinsh/rein/engine/jsonschema"
	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/tools"
)

// Recorder keeps the durable record of calls (the session store); nil
// records nothing.
type Recorder interface {
	Message(message.Message)
}

// Options configure the server.
type Options struct {
	Version  string
	Recorder Recorder
	// Refuse, when set, answers every tool call with it as an error
	// (the recipe is not approved): nothing runs.
	Refuse string
}

// New builds an MCP server for a tool set. The tools' input schemas are
// those sent to model providers; arguments that do not match them are
// protocol errors (invalid params), while tool failures and denials are
// results with isError set.
func New(set *tools.Set, opts Options) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "rein", Version: opts.Version}, nil)
	var calls atomic.Int64
	for _, spec := range set.Specs() {
		// A schema that does not compile is an error now, not at a call.
		if _, err := jsonschema.Compile(spec.Schema); err != nil {
			return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
		}
		h := handler(set, spec.Name, opts.Recorder, &calls)
		if opts.Refuse != "" {
			h = refuse(opts.Refuse)
		}
		srv.AddTool(wireTool(spec, set.Nature(spec.Name)), h)
	}
	return srv, nil
}

// wireTool is a tool as MCP clients receive it in tools/list, with
// annotations that say what calling it may do.
func wireTool(spec tools.Spec, n tools.Nature) *mcp.Tool {
	open, destructive := n.OpenWorld, n.Destructive
	return &mcp.Tool{Name: spec.Name, Description: spec.Description, InputSchema: spec.Schema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: n.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: &open}}
}

// WireTools is the tools/list result for a tool set.
func WireTools(set *tools.Set) *mcp.ListToolsResult {
	out := &mcp.ListToolsResult{Tools: []*mcp.Tool{}}
	for _, s := range set.Specs() {
		out.Tools = append(out.Tools, wireTool(s, set.Nature(s.Name)))
	}
	return out
}

// call is a tool call in flight: its client session, the answers the
// client sent with a retried call, and the question to ask, if any.
type call struct {
	session   *mcp.ServerSession
	responses mcp.InputResponseMap
	ask       *mcp.ElicitParams
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}

// approvalID names the confirmation input request.
const approvalID = "approve"

// refuse answers every call with the reason nothing may run.
func refuse(reason string) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "rein: " + reason}}}, nil
	}
}

func handler(set *tools.Set, name string, rec Recorder, calls *atomic.Int64) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := []byte(req.Params.Arguments)
		if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
			args = []byte("{}")
		}
		state := &call{session: req.Session, responses: req.Params.InputResponses}
		ctx = context.WithValue(ctx, callKey{}, state)
		out := set.Call(ctx, name, string(args))
		if out.Invalid {
			// The tool set's own check (every caller's), answered as the
			// protocol's invalid-params error.
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: errorText(out)}
		}
		if out.Pending && state.ask != nil {
			// Ask the person through the client; the call is repeated
			// with the answer (multi round-trip, SEP-2322).
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{approvalID: state.ask}}, nil
		}
		id := fmt.Sprintf("mcp_%d", calls.Add(1))
		if rec != nil {
			rec.Message(message.NewCall(message.Call{ID: id, Name: name, Arguments: string(args)}))
			rec.Message(message.NewResult(message.Result{ToolCallID: id, Name: name, Output: out.Output, Success: out.Success}, out.Summary))
		}
		return result(out), nil
	}
}

// errorText is an error outcome's message.
func errorText(out tools.Outcome) string {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(out.Output), &e) != nil || e.Error == "" {
		return out.Summary
	}
	return e.Error
}

// InMemory serves set's tools to a client in the same process, over an
// in-memory connection: for a Go program that embeds rein's tools, and for
// tests that drive the real server through the real SDK client. Closing
// the session ends both.
func InMemory(ctx context.Context, set *tools.Set, opts Options, client *mcp.ClientOptions) (*mcp.ClientSession, error) {
	srv, err := New(set, opts)
	if err != nil {
		return nil, err
	}
	st, ct := mcp.NewInMemoryTransports()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		return nil, err
	}
	return mcp.NewClient(&mcp.Implementation{Name: "in-process", Version: opts.Version}, client).Connect(ctx, ct, nil)
}

// result renders an outcome: readable text first (a denial names its rule
// and the allowed alternatives), the JSON result as structured content.
func result(out tools.Outcome) *mcp.CallToolResult {
	var structured map[string]any
	_ = json.Unmarshal([]byte(out.Output), &structured)
	text := out.Output
	if !out.Success {
		var e struct {
			Error        string   `json:"error"`
			DeniedBy     string   `json:"denied_by"`
			Alternatives []string `json:"alternatives"`
		}
		_ = json.Unmarshal([]byte(out.Output), &e)
		var b strings.Builder
		b.WriteString(e.Error)
		if e.DeniedBy != "" && !strings.Contains(e.Error, e.DeniedBy) {
			fmt.Fprintf(&b, " (rule %s)", e.DeniedBy)
		}
		if len(e.Alternatives) > 0 && !strings.Contains(e.Error, "allowed instead") {
			fmt.Fprintf(&b, "; allowed instead: %s", strings.Join(e.Alternatives, ", "))
		}
		text = b.String()
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structured,
		IsError:           !out.Success,
	}
}

// Approver confirms ask verdicts through the client's elicitation, when the
// client supports it; otherwise they are refused with a clear message.
func Approver() tools.Approver {
	return func(ctx context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
		c := callFrom(ctx)
		if c == nil {
			return tools.Approval{Note: "no MCP call to ask through"}, nil
		}
		if resp, ok := c.responses[approvalID]; ok {
			er, ok := resp.(*mcp.ElicitResult)
			if !ok {
				return tools.Approval{Note: "the client answered the confirmation with something else"}, nil
			}
			note, _ := er.Content["note"].(string)
			return tools.Approval{Approved: er.Action == "accept", Note: note}, nil
		}
		ip := c.session.InitializeParams()
		if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
			return tools.Approval{Note: "this MCP client cannot ask the user (no elicitation support), so commands that need confirmation are refused"}, nil
		}
		msg := fmt.Sprintf("rein: run %q?", req.Command)
		if req.Reason != "" {
			msg += " Reason: " + req.Reason + "."
		}
		if req.Decision != nil {
			msg += fmt.Sprintf(" (%s by rule %s: %s)", req.Decision.Verdict, req.Decision.Rule, req.Decision.Reason)
		}
		c.ask = &mcp.ElicitParams{Message: msg,
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"note":{"type":"string","description":"optional note for the model"}}}`)}
		return tools.Approval{Pending: true}, nil
	}
}
