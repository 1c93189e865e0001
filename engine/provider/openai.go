package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	openai "github.com/sashabaranov/go-openai"

	"github.com/reinsh/rein/engine/message"
)

type openAI struct {
	name   string
	client *openai.Client
	doer   *headerRecorder
}

// headerRecorder remembers the last response's Retry-After, which go-openai
// does not expose on its errors.
type headerRecorder struct {
	client *http.Client
	mu     sync.Mutex
	retry  http.Header
}

func (h *headerRecorder) Do(req *http.Request) (*http.Response, error) {
	resp, err := h.client.Do(req)
	if resp != nil {
		h.mu.Lock()
		h.retry = resp.Header.Clone()
		h.mu.Unlock()
	}
	return resp, err
}

func (h *headerRecorder) lastHeader() http.Header {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.retry
}

func newOpenAI(spec Spec, key string, hc *http.Client) *openAI {
	cfg := openai.DefaultConfig(key)
	if spec.BaseURL != "" {
		cfg.BaseURL = spec.BaseURL
	}
	return newOpenAIWith(spec, cfg, hc)
}

// newAzure speaks to an Azure OpenAI deployment: its key goes in the
// api-key header, the deployment is in the path
// (/openai/deployments/NAME/chat/completions) and api-version in the query.
func newAzure(spec Spec, key string, hc *http.Client) *openAI {
	cfg := openai.DefaultAzureConfig(key, spec.BaseURL)
	cfg.APIVersion = spec.APIVersion
	// The model is the deployment's name, as written.
	cfg.AzureModelMapperFunc = func(model string) string { return model }
	return newOpenAIWith(spec, cfg, hc)
}

func newOpenAIWith(spec Spec, cfg openai.ClientConfig, hc *http.Client) *openAI {
	// Servers send keep-alive comment lines while a model thinks; go-openai
	// counts them as empty messages and fails the stream after 300 by
	// default. A long think is not an error.
	cfg.EmptyMessagesLimit = 1 << 30
	doer := &headerRecorder{client: hc}
	cfg.HTTPClient = doer
	return &openAI{name: spec.Provider, client: openai.NewClientWithConfig(cfg), doer: doer}
}

func (p *openAI) Name() string { return p.name }

func (p *openAI) Stream(ctx context.Context, req Request, onText func(string)) (*Response, error) {
	wire := openai.ChatCompletionRequest{
		Model:         req.Model,
		Messages:      toOpenAI(req.Messages),
		Stream:        true,
		StreamOptions: &openai.StreamOptions{IncludeUsage: true},
		// max_tokens, not max_completion_tokens: the OpenAI-compatible
		// servers (Ollama, vLLM, llama.cpp) all take the older name, not all the newer.
		MaxTokens: req.MaxTokens, //lint:ignore SA1019 see above
	}
	if req.Temperature != nil {
		wire.Temperature = float32(*req.Temperature)
	}
	wire.Tools = OpenAITools(req.Tools)
	stream, err := p.client.CreateChatCompletionStream(ctx, wire)
	if err != nil {
		return nil, p.wrap(err)
	}
	defer stream.Close()
	var acc Accumulator
	for {
		chunk, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, p.wrap(err)
		}
		acc.Add(chunk, onText)
	}
	resp, err := acc.Response()
	if err != nil {
		msg := err.Error()
		if h := p.doer.lastHeader(); h != nil && strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			msg = "the server answered with <html>, not an event stream"
		}
		return nil, &Error{Provider: p.name, Message: msg}
	}
	return resp, nil
}

// OpenAITools is the tool list as Chat Completions receives it.
func OpenAITools(tools []Tool) []openai.Tool {
	out := make([]openai.Tool, 0, len(tools))
	for _, t := range tools {
		out = append(out, openai.Tool{Type: openai.ToolTypeFunction, Function: &openai.FunctionDefinition{
			Name: t.Name, Description: t.Description, Parameters: t.Parameters}})
	}
	return out
}

// wrap turns go-openai's errors into *Error with status and Retry-After.
func (p *openAI) wrap(err error) error {
	e := &Error{Provider: p.name, Message: err.Error()}
	var api *openai.APIError
	var reqErr *openai.RequestError
	switch {
	case errors.As(err, &api):
		e.Status, e.Message = api.HTTPStatusCode, api.Message
	case errors.As(err, &reqErr):
		e.Status = reqErr.HTTPStatusCode
		if reqErr.Err != nil {
			e.Message = reqErr.Err.Error()
		}
		if len(reqErr.Body) > 0 {
			e.Message = fmt.Sprintf("%s: %s", e.Message, truncate(string(reqErr.Body), 300))
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	if e.Status != 0 {
		if h := p.doer.lastHeader(); h != nil {
			e.RetryAfter = retryAfter(h)
		}
	}
	e.NoTools = noToolsHint(e.Message)
	return e
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// toOpenAI converts canonical messages: consecutive tool calls join the
// assistant message before them; results become role "tool".
func toOpenAI(msgs []message.Message) []openai.ChatCompletionMessage {
	var out []openai.ChatCompletionMessage
	for _, m := range msgs {
		switch m.Kind {
		case message.System:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: m.Content})
		case message.User:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content})
		case message.Assistant:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content})
		case message.ToolCall:
			c, err := m.Call()
			if err != nil {
				continue
			}
			tc := openai.ToolCall{ID: c.ID, Type: openai.ToolTypeFunction, Function: openai.FunctionCall{Name: c.Name, Arguments: c.Arguments}}
			if n := len(out); n > 0 && out[n-1].Role == openai.ChatMessageRoleAssistant {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, tc)
			} else {
				out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, ToolCalls: []openai.ToolCall{tc}})
			}
		case message.ToolResult:
			r, err := m.Result()
			if err != nil {
				continue
			}
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleTool, ToolCallID: r.ToolCallID, Content: r.Output})
		}
	}
	return out
}

// Accumulator assembles a streamed Chat Completions response: text, tool
// calls whose arguments arrive in pieces (several in parallel, with or
// without an index, with null ids and names in later chunks), and the
// usage chunk that has no choices.
type Accumulator struct {
	text     []byte
	calls    []*message.Call
	byIndex  map[int]*message.Call
	byID     map[string]*message.Call
	last     *message.Call
	usage    Usage
	finished string
}

// Add folds one chunk in; text deltas also go to onText.
func (a *Accumulator) Add(chunk openai.ChatCompletionStreamResponse, onText func(string)) {
	if chunk.Usage != nil {
		a.usage = Usage{PromptTokens: chunk.Usage.PromptTokens, CompletionTokens: chunk.Usage.CompletionTokens}
	}
	for _, choice := range chunk.Choices {
		if choice.Index != 0 {
			continue // only the first choice is used
		}
		if d := choice.Delta.Content; d != "" {
			a.text = append(a.text, d...)
			if onText != nil {
				onText(d)
			}
		}
		for _, tc := range choice.Delta.ToolCalls {
			a.addCall(tc)
		}
		if choice.FinishReason != "" {
			a.finished = string(choice.FinishReason)
		}
	}
}

func (a *Accumulator) addCall(tc openai.ToolCall) {
	if a.byIndex == nil {
		a.byIndex, a.byID = map[int]*message.Call{}, map[string]*message.Call{}
	}
	var c *message.Call
	switch {
	case tc.Index != nil:
		c = a.byIndex[*tc.Index]
		if c == nil && tc.ID != "" {
			c = a.byID[tc.ID]
		}
	case tc.ID != "":
		// No index: a new id starts a new call, a known one continues it.
		c = a.byID[tc.ID]
	default:
		c = a.last
	}
	if c == nil {
		c = &message.Call{}
		a.calls = append(a.calls, c)
	}
	if tc.Index != nil {
		a.byIndex[*tc.Index] = c
	}
	if tc.ID != "" && c.ID == "" {
		c.ID = tc.ID
		a.byID[tc.ID] = c
	}
	if tc.Function.Name != "" && c.Name == "" {
		c.Name = tc.Function.Name
	}
	c.Arguments += tc.Function.Arguments
	a.last = c
}

// Response returns the assembled response, or an error when the stream
// ended before the model said it was finished.
func (a *Accumulator) Response() (*Response, error) {
	if a.finished == "" {
		return nil, errors.New("the response stream ended before the model finished (no finish_reason): the connection was cut or the server failed")
	}
	resp := &Response{Text: string(a.text), Usage: a.usage, StopReason: a.finished}
	for i, c := range a.calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d", i+1)
		}
		resp.ToolCalls = append(resp.ToolCalls, *c)
	}
	return resp, nil
}
