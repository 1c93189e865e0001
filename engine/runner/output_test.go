package runner

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCapBuffer(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes []string
		want   string
	}{
		{"fits", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly", 6, []string{"abcdef"}, "abcdef"},
		{"cut in one write", 6, []string{"abcdefghij"}, "abc\n[… rein cut 4 bytes of output here …]\nhij"},
		{"cut over many writes", 6, []string{"ab", "cd", "ef", "gh", "ij"}, "abc\n[… rein cut 4 bytes of output here …]\nhij"},
		{"big write after small", 6, []string{"abcd", "efghijklmn"}, "abc\n[… rein cut 8 bytes of output here …]\nlmn"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newCapBuffer(tt.limit)
			for _, w := range tt.writes {
				b.write([]byte(w))
			}
			if got := b.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			total := len(strings.Join(tt.writes, ""))
			if kept := len(b.head) + b.tailLen; int64(kept)+b.dropped != int64(total) {
				t.Errorf("kept %d + dropped %d != written %d", kept, b.dropped, total)
			}
		})
	}
}

// combined goes to a model or client only when both streams have
// something: else it repeats the one that does.
func TestCombinedNotRepeated(t *testing.T) {
	for _, c := range []struct {
		res  Result
		want bool
	}{
		{Result{Stdout: "a\n", Combined: "a\n"}, false},
		{Result{Stderr: "e\n", Combined: "e\n"}, false},
		{Result{Stdout: "a\n", Stderr: "e\n", Combined: "a\ne\n"}, true},
	} {
		b, _ := json.Marshal(&c.res)
		if got := strings.Contains(string(b), `"combined"`); got != c.want {
			t.Errorf("%s", b)
		}
	}
}
