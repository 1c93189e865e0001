package agent

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// step is one scripted model response.
type step struct {
	status     int    // HTTP error status instead of a stream
	retryAfter string // Retry-After header with the error
	body       string // error body
	text       string
	calls      [][2]string // name, arguments
	truncate   bool        // cut the stream before finish_reason
}

// scripted is an OpenAI-compatible server that answers requests in order
// and records what it received.
type scripted struct {
	srv      *httptest.Server
	mu       sync.Mutex
	steps    []step
	requests []map[string]any
	// fast skips decoding requests (benchmarks: the server's work is not
	// rein's overhead).
	fast bool
	n    int
}

func newScripted(t testing.TB, steps ...step) *scripted {
	s := &scripted{steps: steps}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *scripted) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := s.n
	s.n++
	if !s.fast {
		b, _ := io.ReadAll(r.Body)
		var req map[string]any
		json.Unmarshal(b, &req)
		s.requests = append(s.requests, req)
	} else {
		io.Copy(io.Discard, r.Body)
	}
	var st step
	if n < len(s.steps) {
		st = s.steps[n]
	} else {
		st = step{text: "out of script"}
	}
	s.mu.Unlock()
	if st.status != 0 {
		if st.retryAfter != "" {
			w.Header().Set("Retry-After", st.retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(st.status)
		body := st.body
		if body == "" {
			body = `{"error":{"message":"scripted failure","type":"server_error"}}`
		}
		io.WriteString(w, body)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, sse(n, st))
}

func sse(n int, st step) string {
	var b strings.Builder
	chunk := func(delta map[string]any, finish any, usage any) {
		d := map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			d = map[string]any{"id": "x", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []any{}, "usage": usage}
		}
		j, _ := json.Marshal(d)
		fmt.Fprintf(&b, "data: %s\n\n", j)
	}
	chunk(map[string]any{"role": "assistant"}, nil, nil)
	if st.text != "" {
		half := len(st.text) / 2
		chunk(map[string]any{"content": st.text[:half]}, nil, nil)
		chunk(map[string]any{"content": st.text[half:]}, nil, nil)
	}
	for i, c := range st.calls {
		args := c[1]
		cut := len(args) / 2
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": fmt.Sprintf("call_%d_%d", n, i), "type": "function",
			"function": map[string]any{"name": c[0], "arguments": args[:cut]}}}}, nil, nil)
		chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": args[cut:]}}}}, nil, nil)
	}
	if st.truncate {
		return b.String()
	}
	finish := "stop"
	if len(st.calls) > 0 {
		finish = "tool_calls"
	}
	chunk(map[string]any{}, finish, nil)
	chunk(nil, nil, map[string]any{"prompt_tokens": 100 + n, "completion_tokens": 10, "total_tokens": 110 + n})
	b.WriteString("data: [DONE]\n\n")
	return b.String()
}

// toolResults returns the tool messages of request i.
func (s *scripted) toolResults(i int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	if i >= len(s.requests) {
		return nil
	}
	for _, m := range s.requests[i]["messages"].([]any) {
		mm := m.(map[string]any)
		if mm["role"] == "tool" {
			out = append(out, mm["content"].(string))
		}
	}
	return out
}
