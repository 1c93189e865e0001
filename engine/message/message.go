// Package message defines rein's canonical, provider-agnostic conversation:
// system, user, assistant, tool_call and tool_result messages, each with
// human-readable content and structured data. Providers convert to and from
// their wire formats at one boundary each.
package message

import (
	"encoding/json"
	"fmt"
)

// Kind discriminates messages.
type Kind string

const (
	System     Kind = "system"
	User       Kind = "user"
	Assistant  Kind = "assistant"
	ToolCall   Kind = "tool_call"
	ToolResult Kind = "tool_result"
)

// Message is one entry of a conversation.
type Message struct {
	Kind    Kind            `json:"kind"`
	Content string          `json:"content"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Call is the data of a tool_call message.
type Call struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // JSON text as the model sent it
}

// Result is the data of a tool_result message.
type Result struct {
	ToolCallID string `json:"tool_call_id"`
	Name       string `json:"name"`
	Output     string `json:"output"` // what the model is shown (JSON text)
	Success    bool   `json:"success"`
}

// Text makes a system, user or assistant message.
func Text(kind Kind, content string) Message { return Message{Kind: kind, Content: content} }

// NewCall makes a tool_call message.
func NewCall(c Call) Message {
	data, _ := json.Marshal(c)
	return Message{Kind: ToolCall, Content: fmt.Sprintf("%s(%s)", c.Name, c.Arguments), Data: data}
}

// NewResult makes a tool_result message.
func NewResult(r Result, summary string) Message {
	data, _ := json.Marshal(r)
	return Message{Kind: ToolResult, Content: summary, Data: data}
}

// Call returns a tool_call message's data.
func (m Message) Call() (Call, error) {
	var c Call
	if m.Kind != ToolCall {
		return c, fmt.Errorf("message is %s, not tool_call", m.Kind)
	}
	return c, json.Unmarshal(m.Data, &c)
}

// Result returns a tool_result message's data.
func (m Message) Result() (Result, error) {
	var r Result
	if m.Kind != ToolResult {
		return r, fmt.Errorf("message is %s, not tool_result", m.Kind)
	}
	return r, json.Unmarshal(m.Data, &r)
}

// Repair answers every tool call that has no result (a conversation cut
// off between a call and its result) with a synthetic error result placed
// at the end of that call's turn, so that providers accept the history.
func Repair(msgs []Message) []Message {
	answered := map[string]bool{}
	for _, m := range msgs {
		if r, err := m.Result(); err == nil {
			answered[r.ToolCallID] = true
		}
	}
	out := make([]Message, 0, len(msgs))
	var pending []Call
	flush := func() {
		for _, c := range pending {
			if !answered[c.ID] {
				out = append(out, NewResult(Result{ToolCallID: c.ID, Name: c.Name,
					Output: `{"error":"this tool call was interrupted before it returned a result"}`}, "interrupted"))
				answered[c.ID] = true
			}
		}
		pending = nil
	}
	for _, m := range msgs {
		switch m.Kind {
		case ToolCall:
			if c, err := m.Call(); err == nil {
				pending = append(pending, c)
			}
		case ToolResult:
		default:
			flush()
		}
		out = append(out, m)
	}
	flush()
	return out
}
