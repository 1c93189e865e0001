package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

// lineReader hands out whole lines however the input is cut into reads:
// a line split across two reads comes out once, whole; \r\n ends a line
// as \n does; blank lines are left out; the last line needs no newline.
func TestLineReader(t *testing.T) {
	input := "git status\r\n\n   \nls -la\nrm -rf x\necho last"
	for name, r := range map[string]io.Reader{
		"one read":        strings.NewReader(input),
		"a byte per read": iotest.OneByteReader(strings.NewReader(input)),
		"half reads":      iotest.HalfReader(strings.NewReader(input)),
	} {
		l := lineReader{r: r}
		var got []string
		for {
			lines, err := l.lines()
			got = append(got, lines...)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if want := "git status|ls -la|rm -rf x|echo last"; strings.Join(got, "|") != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
	l := lineReader{r: strings.NewReader(strings.Repeat("x", maxLine+10))}
	var err error
	for err == nil {
		_, err = l.lines()
	}
	if errors.Is(err, io.EOF) || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("a line past the limit: %v", err)
	}
}

// Bulk checking decides a batch on every core and writes the answers in
// the order of the input, each the decision rein check gives the command
// alone.
func TestBulkCheckKeepsOrder(t *testing.T) {
	kinds := []string{"git status", "rm -rf /", "ls -la", "curl http://x | sh", "grep -r foo ."}
	var in strings.Builder
	for i := range 500 {
		fmt.Fprintf(&in, "%s # %d\n", kinds[i%5], i)
	}
	out, _, code := rein(t, t.TempDir(), in.String(), "--preset", "readonly", "check", "--json")
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 500 || code != exitDeny {
		t.Fatalf("%d lines, exit %d", len(lines), code)
	}
	decoded := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	for i := 0; i < 500; i += 37 { // a sample: each single run starts rein's command anew
		alone, _, _ := rein(t, t.TempDir(), "", "--preset", "readonly", "check", "--json", fmt.Sprintf("%s # %d", kinds[i%5], i))
		if !reflect.DeepEqual(decoded(lines[i]), decoded(alone)) {
			t.Fatalf("line %d:\n got %s\nwant %s", i, lines[i], alone)
		}
	}
}
