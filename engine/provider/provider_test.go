package provider

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/message"
)

// serve answers every request with body as an event stream; got receives
// each request's body and headers.
func serve(t *testing.T, body string, got func(*http.Request, []byte)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if got != nil {
			got(r, b)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func fixture(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "providers", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func client(t *testing.T, provider, baseURL string) Provider {
	t.Helper()
	spec, err := ParseModel(provider+":test-model", baseURL, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := New(spec, Options{Getenv: func(string) string { return "test-key" }})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

var tools = []Tool{{Name: "run_command", Description: "run", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}}

func callsOf(r *Response) []string {
	var out []string
	for _, c := range r.ToolCalls {
		out = append(out, c.ID+" "+c.Name+" "+c.Arguments)
	}
	return out
}

func TestOpenAIParallelSplitCalls(t *testing.T) {
	var sent map[string]any
	srv := serve(t, fixture(t, "openai-parallel-split.sse"), func(r *http.Request, b []byte) {
		json.Unmarshal(b, &sent)
		if r.Header.Get("Authorization") != "Bearer test-key" {
			t.Errorf("authorization header %q", r.Header.Get("Authorization"))
		}
	})
	var streamed strings.Builder
	resp, err := client(t, "openai", srv.URL+"/v1").Stream(context.Background(), Request{Model: "test-model", Tools: tools,
		Messages: []message.Message{message.Text(message.System, "be brief"), message.Text(message.User, "why?")}},
		func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`call_aa run_command {"command": "go build ./...", "reason": "see the error"}`,
		`call_bb file_read {"path": "go.mod"}`,
	}
	if strings.Join(callsOf(resp), "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s", strings.Join(callsOf(resp), "\n"))
	}
	if resp.Text != "Checking both. " || streamed.String() != resp.Text {
		t.Errorf("text %q streamed %q", resp.Text, streamed.String())
	}
	if resp.Usage != (Usage{321, 45}) || resp.StopReason != "tool_calls" {
		t.Errorf("usage %+v stop %q", resp.Usage, resp.StopReason)
	}
	if sent["stream"] != true || sent["stream_options"] == nil || len(sent["tools"].([]any)) != 1 {
		t.Errorf("request: %v", sent)
	}
}

func TestOpenAICompatibleWithoutIndex(t *testing.T) {
	srv := serve(t, fixture(t, "compat-no-index.sse"), nil)
	resp, err := client(t, "openai-compatible", srv.URL).Stream(context.Background(), Request{Model: "m"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`t1 run_command {"command": "git status"}`, `t2 glob {"pattern": "**/*.go"}`}
	if strings.Join(callsOf(resp), "\n") != strings.Join(want, "\n") {
		t.Errorf("calls:\n%s", strings.Join(callsOf(resp), "\n"))
	}
}

func TestAnthropicTextThenToolUse(t *testing.T) {
	var sent aRequest
	var headers http.Header
	srv := serve(t, fixture(t, "anthropic-text-tool.sse"), func(r *http.Request, b []byte) {
		headers = r.Header
		json.Unmarshal(b, &sent)
	})
	history := []message.Message{
		message.Text(message.System, "sys"),
		message.Text(message.User, "q"),
		message.Text(message.Assistant, "looking"),
		message.NewCall(message.Call{ID: "c1", Name: "run_command", Arguments: `{"command":"ls"}`}),
		message.NewCall(message.Call{ID: "c2", Name: "glob", Arguments: `not json`}),
		message.NewResult(message.Result{ToolCallID: "c1", Output: `{"stdout":"a"}`, Success: true}, ""),
		message.NewResult(message.Result{ToolCallID: "c2", Output: `{"error":"bad"}`}, ""),
	}
	var streamed strings.Builder
	resp, err := client(t, "anthropic", srv.URL).Stream(context.Background(), Request{Model: "claude-test", Messages: history, Tools: tools},
		func(s string) { streamed.WriteString(s) })
	if err != nil {
		t.Fatal(err)
	}
	if headers.Get("x-api-key") != "test-key" || headers.Get("anthropic-version") != anthropicVersion {
		t.Errorf("headers %v", headers)
	}
	if sent.System != "sys" || len(sent.Messages) != 3 || sent.Messages[1].Role != "assistant" || len(sent.Messages[1].Content) != 3 ||
		sent.Messages[2].Role != "user" || len(sent.Messages[2].Content) != 2 || !sent.Messages[2].Content[1].IsError ||
		string(sent.Messages[1].Content[2].Input) != "{}" || sent.Tools[0].Name != "run_command" || !sent.Stream {
		b, _ := json.MarshalIndent(sent, "", " ")
		t.Errorf("wire request:\n%s", b)
	}
	if resp.Text != "Let me look at the log." || streamed.String() != resp.Text {
		t.Errorf("text %q", resp.Text)
	}
	if got := strings.Join(callsOf(resp), "\n"); got != `toolu_rein1 run_command {"command": "git log --oneline -5", "reason": "recent work"}` {
		t.Errorf("calls %s", got)
	}
	if resp.Usage != (Usage{210, 58}) || resp.StopReason != "tool_use" {
		t.Errorf("usage %+v stop %q", resp.Usage, resp.StopReason)
	}
}

// The recorded real streams in ../shared/fixtures, when present.
func TestSharedFixtures(t *testing.T) {
	root := filepath.Join("..", "..", "..", "shared", "fixtures")
	if _, err := os.Stat(root); err != nil {
		t.Skip("../shared/fixtures not present")
	}
	tests := []struct {
		file, provider string
		calls          []string // name + " " + arguments
	}{
		{"openai/gpt-4o-parallel-tool-calls.sse", "openai", []string{`GetWeatherArgs {"city": "Edinburgh", "country": "GB", "units": "c"}`, `get_stock_price {"ticker": "AAPL", "exchange": "NASDAQ"}`}},
		{"openai/gpt-4o-tool-call-a.sse", "openai", []string{`GetWeatherArgs {"city":"Edinburgh","country":"UK","units":"c"}`}},
		{"openai/gpt-4o-tool-call-b.sse", "openai", []string{`get_weather {"city":"San Francisco","state":"CA"}`}},
		{"compat/deepseek-tool-call.chunks.jsonl", "openai-compatible", []string{`weather {"location": "San Francisco"}`}},
		{"compat/groq-tool-call.chunks.jsonl", "openai-compatible", []string{`weather {}`}},
		{"compat/mistral-tool-call.chunks.jsonl", "openai-compatible", []string{`weather {"location": "San Francisco"}`}},
		{"compat/xai-tool-call.chunks.jsonl", "openai-compatible", []string{`weather {"location":"San Francisco"}`}},
		{"anthropic/basic_response.sse", "anthropic", nil},
		{"anthropic/tool_use_response.sse", "anthropic", []string{`get_weather {"location": "Paris"}`}},
		{"anthropic/incomplete_partial_json_response.sse", "anthropic", []string{"make_file " + incompleteArgs}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(root, tt.file))
			if err != nil {
				t.Skip(err)
			}
			body := string(b)
			if strings.HasSuffix(tt.file, ".jsonl") {
				body = jsonlToSSE(body)
			}
			srv := serve(t, body, nil)
			base := srv.URL
			if tt.provider == "openai" {
				base += "/v1"
			}
			resp, err := client(t, tt.provider, base).Stream(context.Background(), Request{Model: "m", Tools: tools}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range resp.ToolCalls {
				got = append(got, c.Name+" "+c.Arguments)
			}
			if strings.Join(got, "\n") != strings.Join(tt.calls, "\n") {
				t.Errorf("calls:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.calls, "\n"))
			}
		})
	}
}

const incompleteArgs = "{\"filename\": \"taxes.txt\", \"lines_of_text\": [\n\"# COMPREHENSIVE TAX GUIDE FOR INDIVIDUALS WITH MULTIPLE W-2s\",\n\"\",\n\"## INTRODUCTION\",\n\"\",\n\"Filing taxes"

func jsonlToSSE(s string) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" {
			b.WriteString("data: " + line + "\n\n")
		}
	}
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

func TestTruncatedStreams(t *testing.T) {
	full := fixture(t, "openai-parallel-split.sse")
	cut := full[:strings.Index(full, `"finish_reason": "tool_calls"`)-200]
	cut = cut[:strings.LastIndex(cut, "\n\n")+2]
	srv := serve(t, cut, nil)
	if _, err := client(t, "openai", srv.URL+"/v1").Stream(context.Background(), Request{Model: "m"}, nil); err == nil || !strings.Contains(err.Error(), "ended before the model finished") {
		t.Errorf("openai truncated: %v", err)
	}
	a := fixture(t, "anthropic-text-tool.sse")
	srv = serve(t, a[:strings.Index(a, "event: message_delta")], nil)
	if _, err := client(t, "anthropic", srv.URL).Stream(context.Background(), Request{Model: "m"}, nil); err == nil || !strings.Contains(err.Error(), "before message_stop") {
		t.Errorf("anthropic truncated: %v", err)
	}
	srv = serve(t, "event: content_block_delta\ndata: {not json\n\n", nil)
	if _, err := client(t, "anthropic", srv.URL).Stream(context.Background(), Request{Model: "m"}, nil); err == nil || !strings.Contains(err.Error(), "garbled") {
		t.Errorf("anthropic garbled: %v", err)
	}
}

func TestHTTPErrors(t *testing.T) {
	for _, name := range []string{"openai", "anthropic"} {
		for _, tt := range []struct {
			status    int
			retry     string
			retryable bool
			wait      time.Duration
		}{{429, "2", true, 2 * time.Second}, {500, "", true, 0}, {529, "", true, 0}, {401, "", false, 0}} {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if tt.retry != "" {
					w.Header().Set("Retry-After", tt.retry)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, `{"error":{"type":"some_error","message":"nope"}}`)
			}))
			base := srv.URL
			if name == "openai" {
				base += "/v1"
			}
			_, err := client(t, name, base).Stream(context.Background(), Request{Model: "m"}, nil)
			srv.Close()
			e, ok := err.(*Error)
			if !ok {
				t.Errorf("%s %d: error %T %v", name, tt.status, err, err)
				continue
			}
			if e.Status != tt.status || e.Retryable() != tt.retryable || e.RetryAfter != tt.wait || !strings.Contains(e.Error(), "nope") {
				t.Errorf("%s %d: %+v", name, tt.status, e)
			}
		}
	}
}

func TestParseModelAndKeys(t *testing.T) {
	tests := []struct {
		in, base, provider, model, url, key, err string
	}{
		{"openai:gpt-4.1", "", "openai", "gpt-4.1", "", "OPENAI_API_KEY", ""},
		{"gpt-4o", "", "openai", "gpt-4o", "", "OPENAI_API_KEY", ""},
		// A bare name: claude-* is Anthropic's, any with a base URL an
		// OpenAI-compatible server's.
		{"claude-sonnet-4-5", "", "anthropic", "claude-sonnet-4-5", "", "ANTHROPIC_API_KEY", ""},
		{"qwen3", "http://127.0.0.1:8000/v1", "openai-compatible", "qwen3", "http://127.0.0.1:8000/v1", "", ""},
		{"anthropic:claude-sonnet-4-5", "", "anthropic", "claude-sonnet-4-5", "", "ANTHROPIC_API_KEY", ""},
		{"ollama:qwen3", "", "ollama", "qwen3", OllamaBaseURL, "", ""},
		{"openai-compatible:llama", "http://localhost:8000/v1", "openai-compatible", "llama", "http://localhost:8000/v1", "", ""},
		{"openai-compatible:llama", "", "", "", "", "", "--base-url"},
		{"bard:x", "", "", "", "", "", "unknown provider"},
		{"openai:", "", "", "", "", "", "no model name"},
		{"openai-compatible:m", "localhost:8000/v1", "", "", "", "", `--base-url "localhost:8000/v1" is not an address rein can call: write it with its scheme, e.g. http://localhost:8000/v1`},
	}
	for _, tt := range tests {
		s, err := ParseModel(tt.in, tt.base, "")
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: err %v", tt.in, err)
			}
			continue
		}
		if err != nil || s.Provider != tt.provider || s.Model != tt.model || s.BaseURL != tt.url || s.KeyEnv != tt.key {
			t.Errorf("%s: %+v %v", tt.in, s, err)
		}
	}
	spec, _ := ParseModel("anthropic:x", "", "")
	if _, err := New(spec, Options{Getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Errorf("missing key: %v", err)
	}
	spec, _ = ParseModel("openai:x", "", "MY_KEY")
	if _, err := New(spec, Options{Getenv: func(string) string { return "" }}); err == nil || !strings.Contains(err.Error(), "set MY_KEY") {
		t.Errorf("api_key_env: %v", err)
	}
}

// The errors a person meets setting a model up say what to try.
func TestErrorHints(t *testing.T) {
	for msg, want := range map[string]string{
		"dial tcp 127.0.0.1:11434: connect: connection refused":    "ollama serve",
		"dial tcp: lookup nosuch.invalid: no such host":            "check the host in --base-url",
		"invalid character '<' looking for value: <!DOCTYPE html>": "answered a web page",
	} {
		if got := (&Error{Provider: "openai", Message: msg}).Error(); !strings.Contains(got, want) {
			t.Errorf("%s: %s", msg, got)
		}
	}
	if got := (&Error{Provider: "openai", Status: 502, Message: "bad gateway"}).Error(); !strings.Contains(got, "HTTP 502: bad gateway; the server failed") {
		t.Errorf("5xx: %s", got)
	}
}

// Azure OpenAI: the deployment in the path, api-version in the query (from
// the base URL, else rein's), the key in the api-key header.
func TestAzureOpenAI(t *testing.T) {
	var path, version, key, auth string
	srv := serve(t, fixture(t, "compat-no-index.sse"), func(r *http.Request, _ []byte) {
		path, version, key, auth = r.URL.Path, r.URL.Query().Get("api-version"), r.Header.Get("api-key"), r.Header.Get("Authorization")
	})
	for _, tt := range []struct{ base, version string }{
		{srv.URL, AzureAPIVersion},
		{srv.URL + "/?api-version=2025-01-01-preview", "2025-01-01-preview"},
	} {
		spec, err := ParseModel("azure:my-gpt-4o", tt.base, "")
		if err != nil {
			t.Fatal(err)
		}
		p, err := New(spec, Options{Getenv: func(name string) string {
			if name == "AZURE_OPENAI_API_KEY" {
				return "azure-key"
			}
			return ""
		}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Stream(context.Background(), Request{Model: spec.Model}, nil); err != nil {
			t.Fatal(err)
		}
		if path != "/openai/deployments/my-gpt-4o/chat/completions" || version != tt.version || key != "azure-key" || auth != "" {
			t.Errorf("%s: path %q api-version %q api-key %q authorization %q", tt.base, path, version, key, auth)
		}
	}
	if _, err := ParseModel("azure:x", "", ""); err == nil || !strings.Contains(err.Error(), "needs --base-url") {
		t.Errorf("azure without a base URL: %v", err)
	}
}

// REIN_API_KEY is the key for any provider when its own variable is unset,
// and for an OpenAI-compatible server, which names none.
func TestAnyProviderKey(t *testing.T) {
	var auth string
	srv := serve(t, fixture(t, "compat-no-index.sse"), func(r *http.Request, _ []byte) { auth = r.Header.Get("Authorization") })
	env := func(name string) string {
		if name == KeyEnvAny {
			return "any-key"
		}
		return ""
	}
	for _, model := range []string{"openai-compatible:m", "openai:m"} {
		base := srv.URL
		if model == "openai:m" {
			base += "/v1"
		}
		spec, _ := ParseModel(model, base, "")
		p, err := New(spec, Options{Getenv: env})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Stream(context.Background(), Request{Model: "m"}, nil); err != nil || auth != "Bearer any-key" {
			t.Errorf("%s: authorization %q, %v", model, auth, err)
		}
	}
}
