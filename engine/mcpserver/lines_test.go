package mcpserver

import (
	"io"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestLines(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`not json`,
		``,
		`[1,2]`,
		`{"jsonrpc":"1.0","id":9,"method":"ping"}`,
		`  {"jsonrpc":"2.0","method":"notifications/initialized"}  `,
		`{"jsonrpc":"2.0","id":2`,
	}, "\n")
	var out strings.Builder
	r, w := Lines(strings.NewReader(in), &out)
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"; string(passed) != want {
		t.Errorf("passed on:\n%s\nwant:\n%s", passed, want)
	}
	// A message written in two parts goes out whole.
	w.Write([]byte(`{"jsonrpc":"2.0","id":1,`))
	w.Write([]byte(`"result":{}}` + "\n"))
	w.Close()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	for i, want := range []string{
		`"code":-32700,"message":"parse error: input line 2 is not JSON`,
		`"code":-32600,"message":"invalid request: input line 4 is not a JSON-RPC message object"},"id":null`,
		`"id":9`,
		`"code":-32700,"message":"parse error: input line 7 is not JSON (unexpected end of JSON input)`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		if i >= len(lines) || !strings.Contains(lines[i], want) {
			t.Errorf("line %d of the output lacks %s:\n%s", i+1, want, out.String())
		}
	}
}

// A line past the SDK's limit is answered and dropped; the next one passes.
func TestLinesTooLong(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("a", mcp.DefaultMaxLineLength) + `"}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"
	var out strings.Builder
	r, _ := Lines(strings.NewReader(in), &out)
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if string(passed) != `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n" {
		t.Errorf("passed on %.200q", passed)
	}
	if !strings.Contains(out.String(), "input line 1 is longer than") {
		t.Errorf("the long line was not answered: %q", out.String())
	}
}
