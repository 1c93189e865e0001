package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/reinsh/rein/engine/message"
)

// AnthropicBaseURL is where Anthropic's API lives.
const AnthropicBaseURL = "https://api.anthropic.com"

const anthropicVersion = "2023-06-01"

type anthropic struct {
	baseURL string
	key     string
	http    *http.Client
}

func newAnthropic(spec Spec, key string, hc *http.Client) *anthropic {
	base := spec.BaseURL
	if base == "" {
		base = AnthropicBaseURL
	}
	return &anthropic{baseURL: strings.TrimSuffix(base, "/"), key: key, http: hc}
}

func (p *anthropic) Name() string { return "anthropic" }

type aBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   string          `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
}

type aMessage struct {
	Role    string   `json:"role"`
	Content []aBlock `json:"content"`
}

type aTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// AnthropicTools is the tool list as the Messages API receives it.
func AnthropicTools(tools []Tool) []aTool {
	out := make([]aTool, 0, len(tools))
	for _, t := range tools {
		out = append(out, aTool{Name: t.Name, Description: t.Description, InputSchema: t.Parameters})
	}
	return out
}

type aRequest struct {
	Model       string     `json:"model"`
	MaxTokens   int        `json:"max_tokens"`
	System      string     `json:"system,omitempty"`
	Messages    []aMessage `json:"messages"`
	Tools       []aTool    `json:"tools,omitempty"`
	Stream      bool       `json:"stream"`
	Temperature *float64   `json:"temperature,omitempty"`
}

// toAnthropic converts canonical messages: system text goes to "system",
// tool calls are tool_use blocks of the assistant, results are tool_result
// blocks of the user, and consecutive messages of one role are merged.
func toAnthropic(msgs []message.Message) (string, []aMessage) {
	var system []string
	var out []aMessage
	add := func(role string, b aBlock) {
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, b)
			return
		}
		out = append(out, aMessage{Role: role, Content: []aBlock{b}})
	}
	for _, m := range msgs {
		switch m.Kind {
		case message.System:
			system = append(system, m.Content)
		case message.User:
			add("user", aBlock{Type: "text", Text: m.Content})
		case message.Assistant:
			if m.Content != "" {
				add("assistant", aBlock{Type: "text", Text: m.Content})
			}
		case message.ToolCall:
			c, err := m.Call()
			if err != nil {
				continue
			}
			input := json.RawMessage(c.Arguments)
			var obj map[string]any
			if json.Unmarshal(input, &obj) != nil {
				input = json.RawMessage(`{}`) // the call's result says what was wrong
			}
			add("assistant", aBlock{Type: "tool_use", ID: c.ID, Name: c.Name, Input: input})
		case message.ToolResult:
			r, err := m.Result()
			if err != nil {
				continue
			}
			add("user", aBlock{Type: "tool_result", ToolUseID: r.ToolCallID, Content: r.Output, IsError: !r.Success})
		}
	}
	return strings.Join(system, "\n\n"), out
}

func (p *anthropic) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	system, msgs := toAnthropic(req.Messages)
	wire := aRequest{Model: req.Model, MaxTokens: req.MaxTokens, System: system, Messages: msgs, Stream: true, Temperature: req.Temperature}
	if wire.MaxTokens == 0 {
		wire.MaxTokens = 8192
	}
	wire.Tools = AnthropicTools(req.Tools)
	body, err := json.Marshal(wire)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, p.baseURL+"/v1/messages", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("content-type", "application/json")
	hreq.Header.Set("x-api-key", p.key)
	hreq.Header.Set("anthropic-version", anthropicVersion)
	hreq.Header.Set("accept", "text/event-stream")
	resp, err := p.http.Do(hreq)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Provider: "anthropic", Message: err.Error()}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, anthropicHTTPError(resp)
	}
	return readAnthropicStream(resp.Body, onText)
}

func anthropicHTTPError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	e := &Error{Provider: "anthropic", Status: resp.StatusCode, RetryAfter: retryAfter(resp.Header), Message: strings.TrimSpace(string(b))}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(b, &body) == nil && body.Error.Message != "" {
		e.Message = body.Error.Type + ": " + body.Error.Message
	}
	e.NoTools = noToolsHint(e.Message)
	return e
}

// anthropicEvent is the union of the stream's event payloads.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage struct {
			InputTokens  int `json:"input_tokens"`
			OutputTokens int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
	ContentBlock struct {
		Type string `json:"type"`
		ID   string `json:"id"`
		Name string `json:"name"`
		Text string `json:"text"`
	} `json:"content_block"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage struct {
		OutputTokens int `json:"output_tokens"`
	} `json:"usage"`
	Error struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"error"`
}

// readAnthropicStream assembles a Messages stream.
func readAnthropicStream(r io.Reader, onText func(string)) (*Response, error) {
	sse := newSSEReader(r)
	resp := &Response{}
	var text strings.Builder
	blocks := map[int]*message.Call{}
	var order []int
	stopped := false
	for {
		ev, err := sse.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{Provider: "anthropic", Message: "reading the stream: " + err.Error()}
		}
		if ev.Data == "" {
			continue
		}
		var e anthropicEvent
		if err := json.Unmarshal([]byte(ev.Data), &e); err != nil {
			return nil, &Error{Provider: "anthropic", Message: fmt.Sprintf("garbled stream event %q: %v", truncate(ev.Data, 200), err)}
		}
		switch e.Type {
		case "message_start":
			resp.Usage.PromptTokens = e.Message.Usage.InputTokens
			resp.Usage.CompletionTokens = e.Message.Usage.OutputTokens
		case "content_block_start":
			if e.ContentBlock.Type == "tool_use" {
				blocks[e.Index] = &message.Call{ID: e.ContentBlock.ID, Name: e.ContentBlock.Name}
				order = append(order, e.Index)
			} else if e.ContentBlock.Text != "" {
				text.WriteString(e.ContentBlock.Text)
				if onText != nil {
					onText(e.ContentBlock.Text)
				}
			}
		case "content_block_delta":
			switch e.Delta.Type {
			case "text_delta":
				text.WriteString(e.Delta.Text)
				if onText != nil {
					onText(e.Delta.Text)
				}
			case "input_json_delta":
				if c := blocks[e.Index]; c != nil {
					c.Arguments += e.Delta.PartialJSON
				}
			}
		case "message_delta":
			if e.Delta.StopReason != "" {
				resp.StopReason = e.Delta.StopReason
			}
			if e.Usage.OutputTokens > 0 {
				resp.Usage.CompletionTokens = e.Usage.OutputTokens
			}
		case "message_stop":
			stopped = true
		case "error":
			e := &Error{Provider: "anthropic", Message: e.Error.Type + ": " + e.Error.Message}
			if strings.Contains(e.Message, "overloaded") {
				e.Status = 529
			}
			return nil, e
		}
	}
	if !stopped {
		return nil, &Error{Provider: "anthropic", Message: "the response stream ended before message_stop: the connection was cut or the server failed"}
	}
	resp.Text = text.String()
	for _, i := range order {
		c := *blocks[i]
		if strings.TrimSpace(c.Arguments) == "" {
			c.Arguments = "{}"
		}
		resp.ToolCalls = append(resp.ToolCalls, c)
	}
	return resp, nil
}
