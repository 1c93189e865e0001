package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// MaxLineLength is the longest message a client may send: 16 MiB, as MCP
// SDKs' own stdio transports take.
const MaxLineLength = 16 << 20

// Lines guards a newline-delimited JSON-RPC stream: a line that is not
// JSON is answered with a parse error (JSON-RPC's -32700, id null) and
// dropped, instead of ending the connection.
// The returned reader yields the good lines; the returned writer is out,
// written a whole line at a time so that an error line never lands inside
// a message.
func Lines(in io.Reader, out io.Writer) (io.ReadCloser, io.WriteCloser) {
	w := &lineWriter{out: out}
	pr, pw := io.Pipe()
	go func() {
		r := bufio.NewReader(in)
		for n := 1; ; n++ {
			line, long, err := readLine(r, MaxLineLength)
			if long {
				w.Write(reply(nil, -32600, fmt.Sprintf("invalid request: input line %d is longer than %d bytes", n, MaxLineLength)))
			} else if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
				if reply := check(n, trimmed); reply != nil {
					w.Write(reply)
				} else if _, werr := pw.Write(append(trimmed, '\n')); werr != nil {
					return
				}
			}
			if err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr, w
}

// readLine reads one line of at most limit bytes; a longer one is read to
// its end and dropped (long), so that one client line cannot hold rein's
// memory.
func readLine(r *bufio.Reader, limit int) (line []byte, long bool, err error) {
	for {
		part, err := r.ReadSlice('\n')
		if !long {
			line = append(line, part...)
			if len(line) > limit {
				line, long = nil, true
			}
		}
		if err != bufio.ErrBufferFull {
			return line, long, err
		}
	}
}

// check is the error reply a line gets, or nil for a line to pass on: not
// JSON is a parse error (-32700), JSON that is not a JSON-RPC 2.0 message
// an invalid request (-32600), answered with its id when it has one.
func check(n int, line []byte) []byte {
	var v any
	if err := json.Unmarshal(line, &v); err != nil {
		return reply(nil, -32700, fmt.Sprintf("parse error: input line %d is not JSON (%v); send one JSON-RPC message per line", n, err))
	}
	m, ok := v.(map[string]any)
	if !ok {
		return reply(nil, -32600, fmt.Sprintf("invalid request: input line %d is not a JSON-RPC message object", n))
	}
	if m["jsonrpc"] != "2.0" {
		return reply(m["id"], -32600, fmt.Sprintf("invalid request: input line %d has jsonrpc %v; it must be \"2.0\"", n, m["jsonrpc"]))
	}
	return nil
}

func reply(id any, code int, msg string) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return append(b, '\n')
}

// lineWriter writes whole lines to out under a lock, holding a partial line
// until its end arrives.
type lineWriter struct {
	mu      sync.Mutex
	out     io.Writer
	pending []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending = append(w.pending, p...)
	i := bytes.LastIndexByte(w.pending, '\n')
	if i < 0 {
		return len(p), nil
	}
	if _, err := w.out.Write(w.pending[:i+1]); err != nil {
		return 0, err
	}
	w.pending = append(w.pending[:0], w.pending[i+1:]...)
	return len(p), nil
}

func (w *lineWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.pending) > 0 {
		w.out.Write(w.pending)
		w.pending = nil
	}
	return nil // out (standard output) stays open: rein may still print
}
