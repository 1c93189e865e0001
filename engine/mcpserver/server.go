// Package mcpserver serves rein's vetted tools over the Model Context
// Protocol (JSON-RPC 2.0, one message a line on standard input and output),
// with the same policy, runner, limits and audit log as rein ask.
//
// It speaks the part of MCP a tool server needs — initialize, ping,
// tools/list, tools/call, cancellation, and elicitation/create to ask the
// person through the client — in this package's own code rather than an
// SDK: every rein process, rein check's and the hook's too, would otherwise
// link and initialise an SDK's HTTP, OAuth and schema packages.
package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

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

// Server answers MCP clients with a tool set.
type Server struct {
	set   *tools.Set
	opts  Options
	tools []Tool
	calls atomic.Int64
}

// Tool is a tool as MCP clients receive it in tools/list.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *Annotations    `json:"annotations,omitempty"`
}

// Annotations say what calling a tool may do.
type Annotations struct {
	ReadOnlyHint    bool  `json:"readOnlyHint"`
	DestructiveHint *bool `json:"destructiveHint,omitempty"`
	OpenWorldHint   *bool `json:"openWorldHint,omitempty"`
}

// ToolList is the result of tools/list.
type ToolList struct {
	Tools []Tool `json:"tools"`
}

// New builds an MCP server for a tool set. The tools' input schemas are
// those sent to model providers; arguments that do not match them are
// protocol errors (invalid params), while tool failures and denials are
// results with isError set.
func New(set *tools.Set, opts Options) (*Server, error) {
	for _, spec := range set.Specs() {
		// A schema that does not compile is an error now, not at a call.
		if _, err := jsonschema.Compile(spec.Schema); err != nil {
			return nil, fmt.Errorf("tool %s: %w", spec.Name, err)
		}
	}
	return &Server{set: set, opts: opts, tools: WireTools(set).Tools}, nil
}

// WireTools is the tools/list result for a tool set.
func WireTools(set *tools.Set) ToolList {
	out := ToolList{Tools: []Tool{}}
	for _, spec := range set.Specs() {
		n := set.Nature(spec.Name)
		open, destructive := n.OpenWorld, n.Destructive
		out.Tools = append(out.Tools, Tool{Name: spec.Name, Description: spec.Description, InputSchema: spec.Schema,
			Annotations: &Annotations{ReadOnlyHint: n.ReadOnly, DestructiveHint: &destructive, OpenWorldHint: &open}})
	}
	return out
}

// protocolVersions are the MCP revisions this server speaks, newest first.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// JSON-RPC error codes.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (JSON-RPC error %d)", e.Message, e.Code) }

// incoming is any message a client sends: a request (method and id), a
// notification (method, no id) or a response to the server's own request
// (id, result or error).
type incoming struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	// Error is read when it is a response's: a malformed one must not
	// keep the request it came with from being answered.
	Error json.RawMessage `json:"error"`
}

// Serve answers the client on in and out until in ends or ctx is done,
// then stops the tool calls still running and returns once they have.
// Wrap standard streams with Lines first: Serve takes each line of in as
// one JSON-RPC message.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	ctx, cancel := context.WithCancel(ctx)
	c := &conn{srv: s, out: out, calls: map[string]context.CancelFunc{}, waiting: map[int64]chan incoming{}}
	defer func() {
		cancel()
		c.handlers.Wait()
	}()
	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		r := bufio.NewReaderSize(in, 64<<10)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- line:
				case <-ctx.Done():
					return
				}
			}
			if err != nil {
				readErr <- err
				return
			}
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line := <-lines:
			c.handle(ctx, line)
		}
	}
}

// conn is one client's connection.
type conn struct {
	srv      *Server
	out      io.Writer
	writeMu  sync.Mutex
	handlers sync.WaitGroup // tools/call requests in flight

	mu        sync.Mutex
	canElicit bool                          // the client said it can ask its user
	calls     map[string]context.CancelFunc // tools/call in flight, by request id
	nextID    int64
	waiting   map[int64]chan incoming // the server's own requests, by id
}

// handle takes one message from the client.
func (c *conn) handle(ctx context.Context, line []byte) {
	var m incoming
	if err := json.Unmarshal(line, &m); err != nil {
		c.reply(nil, nil, &rpcError{codeParse, "parse error: " + err.Error()})
		return
	}
	hasID := len(m.ID) > 0 && string(m.ID) != "null"
	switch {
	case m.Method == "" && hasID:
		c.answered(m)
	case m.Method == "":
		c.reply(nil, nil, &rpcError{codeInvalidRequest, "invalid request: a message needs a method or an id"})
	case !hasID:
		c.notified(m)
	case m.Method == "tools/call":
		callCtx, cancel := context.WithCancel(ctx)
		c.mu.Lock()
		_, busy := c.calls[string(m.ID)]
		if !busy {
			c.calls[string(m.ID)] = cancel
		}
		c.mu.Unlock()
		if busy {
			cancel()
			c.reply(m.ID, nil, &rpcError{codeInvalidRequest, "invalid request: a call with this id is still running; give each request an id of its own"})
			return
		}
		c.handlers.Add(1)
		go func() {
			defer c.handlers.Done()
			defer func() {
				c.mu.Lock()
				delete(c.calls, string(m.ID))
				c.mu.Unlock()
				cancel()
			}()
			res, err := c.srv.call(callCtx, c, m.Params)
			c.reply(m.ID, res, err)
		}()
	default:
		res, err := c.request(m)
		c.reply(m.ID, res, err)
	}
}

// request answers a request other than tools/call.
func (c *conn) request(m incoming) (any, *rpcError) {
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
			Capabilities    struct {
				Elicitation json.RawMessage `json:"elicitation"`
			} `json:"capabilities"`
		}
		if err := json.Unmarshal(m.Params, &p); err != nil {
			return nil, &rpcError{codeInvalidParams, "initialize: " + err.Error()}
		}
		c.mu.Lock()
		c.canElicit = len(p.Capabilities.Elicitation) > 0 && string(p.Capabilities.Elicitation) != "null"
		c.mu.Unlock()
		version := protocolVersions[0]
		if slices.Contains(protocolVersions, p.ProtocolVersion) {
			version = p.ProtocolVersion
		}
		return map[string]any{
			"protocolVersion": version,
			"capabilities":    map[string]any{"tools": map[string]any{}},
			"serverInfo":      map[string]string{"name": "rein", "version": c.srv.opts.Version},
		}, nil
	case "ping":
		return struct{}{}, nil
	case "tools/list":
		return ToolList{Tools: c.srv.tools}, nil
	}
	return nil, &rpcError{codeNoMethod, fmt.Sprintf("method %q is not one rein's MCP server answers (it serves tools: tools/list, tools/call)", m.Method)}
}

// notified takes a notification: a cancelled call is stopped as ^C stops
// a command; the others need nothing.
func (c *conn) notified(m incoming) {
	if m.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	c.mu.Lock()
	cancel := c.calls[string(p.RequestID)]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// answered hands the client's response to the request of the server's
// that waits for it.
func (c *conn) answered(m incoming) {
	var id int64
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	c.mu.Lock()
	ch := c.waiting[id]
	delete(c.waiting, id)
	c.mu.Unlock()
	if ch != nil {
		ch <- m
	}
}

// ask sends the client a request and waits for its result.
func (c *conn) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	ch := make(chan incoming, 1)
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.waiting[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.waiting, id)
		c.mu.Unlock()
	}()
	if err := c.write(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	select {
	case m := <-ch:
		if len(m.Error) > 0 && string(m.Error) != "null" {
			var e rpcError
			if json.Unmarshal(m.Error, &e) != nil || e.Message == "" {
				e = rpcError{codeInternal, "the client answered with an error: " + string(m.Error)}
			}
			return nil, &e
		}
		return m.Result, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// reply answers the request id (nil: a message whose id is unknown).
func (c *conn) reply(id json.RawMessage, result any, rerr *rpcError) {
	if id == nil {
		id = json.RawMessage("null")
	}
	msg := map[string]any{"jsonrpc": "2.0", "id": id}
	if rerr != nil {
		msg["error"] = rerr
	} else {
		msg["result"] = result
	}
	if err := c.write(msg); err != nil && rerr == nil {
		// A result that cannot be written as JSON is still answered.
		c.write(map[string]any{"jsonrpc": "2.0", "id": id, "error": &rpcError{codeInternal, "rein could not encode its answer: " + err.Error()}})
	}
}

// write sends one message, a whole line at a time.
func (c *conn) write(msg any) error {
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err = c.out.Write(append(b, '\n'))
	return err
}

// call runs tools/call.
func (s *Server) call(ctx context.Context, c *conn, raw json.RawMessage) (any, *rpcError) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, &rpcError{codeInvalidParams, "tools/call: " + err.Error()}
	}
	if !slices.ContainsFunc(s.tools, func(t Tool) bool { return t.Name == p.Name }) {
		return nil, &rpcError{codeInvalidParams, fmt.Sprintf("unknown tool %q; tools/list names the tools", p.Name)}
	}
	if s.opts.Refuse != "" {
		return textResult("rein: "+s.opts.Refuse, nil, true), nil
	}
	args := p.Arguments
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	out := s.set.Call(context.WithValue(ctx, callKey{}, c), p.Name, string(args))
	if out.Invalid {
		// The tool set's own check (every caller's), answered as the
		// protocol's invalid-params error.
		return nil, &rpcError{codeInvalidParams, errorText(out)}
	}
	id := fmt.Sprintf("mcp_%d", s.calls.Add(1))
	if rec := s.opts.Recorder; rec != nil {
		rec.Message(message.NewCall(message.Call{ID: id, Name: p.Name, Arguments: string(args)}))
		rec.Message(message.NewResult(message.Result{ToolCallID: id, Name: p.Name, Output: out.Output, Success: out.Success}, out.Summary))
	}
	return result(out), nil
}

type callKey struct{}

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

// textResult is a tools/call result of one text, with structured content
// when there is some.
func textResult(text string, structured map[string]any, isError bool) map[string]any {
	res := map[string]any{"content": []map[string]string{{"type": "text", "text": text}}, "isError": isError}
	if structured != nil {
		res["structuredContent"] = structured
	}
	return res
}

// result renders an outcome: readable text first (a denial names its rule
// and the allowed alternatives), the JSON result as structured content.
func result(out tools.Outcome) map[string]any {
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
	return textResult(text, structured, !out.Success)
}

// Approver confirms ask verdicts by asking the person through the client
// (elicitation/create), when the client can; otherwise they are refused
// with a clear message.
func Approver() tools.Approver {
	return func(ctx context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
		c, _ := ctx.Value(callKey{}).(*conn)
		if c == nil {
			return tools.Approval{Note: "no MCP call to ask through"}, nil
		}
		c.mu.Lock()
		can := c.canElicit
		c.mu.Unlock()
		if !can {
			return tools.Approval{Note: "this MCP client cannot ask the user (no elicitation support), so commands that need confirmation are refused"}, nil
		}
		// rein's own words first; the model's reason quoted, escaped and
		// cut short, so that it cannot pad the command off the screen or
		// pose as rein's verdict.
		msg := fmt.Sprintf("rein: run %q?", req.Command)
		if req.Decision != nil {
			msg += fmt.Sprintf(" (%s by rule %s: %s)", req.Decision.Verdict, req.Decision.Rule, req.Decision.Reason)
		}
		if req.Reason != "" {
			reason := req.Reason
			if r := []rune(reason); len(r) > 200 {
				reason = string(r[:200]) + "…"
			}
			msg += fmt.Sprintf(" The model's reason: %q.", reason)
		}
		raw, err := c.ask(ctx, "elicitation/create", map[string]any{"message": msg,
			"requestedSchema": json.RawMessage(`{"type":"object","properties":{"note":{"type":"string","description":"optional note for the model"}}}`)})
		if err != nil {
			return tools.Approval{Note: "the MCP client did not answer the confirmation: " + err.Error()}, nil
		}
		var answer struct {
			Action  string `json:"action"`
			Content struct {
				Note string `json:"note"`
			} `json:"content"`
		}
		if json.Unmarshal(raw, &answer) != nil {
			return tools.Approval{Note: "the client answered the confirmation with something else"}, nil
		}
		return tools.Approval{Approved: answer.Action == "accept", Note: answer.Content.Note}, nil
	}
}

// Pipe serves the server to a client in the same process: for a Go program
// that embeds rein's tools, and for tests that drive the server through a
// real MCP client. The client reads the server's messages from r and writes
// its own to w; closing w ends the server, which then closes r.
func (s *Server) Pipe(ctx context.Context) (r io.ReadCloser, w io.WriteCloser) {
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	go func() {
		err := s.Serve(ctx, toServer, fromServer)
		toServer.CloseWithError(io.ErrClosedPipe)
		fromServer.CloseWithError(err)
	}()
	return toClient, fromClient
}
