package policy

import (
	"slices"
	"strings"
	"testing"
)

func TestFlagValues(t *testing.T) {
	tests := []struct {
		name  string
		args  string
		names []string
		want  []string
	}{
		{"long with =", "--output=out.txt in", []string{"--output"}, []string{"out.txt"}},
		{"long and next word", "--output out.txt in", []string{"--output"}, []string{"out.txt"}},
		{"long abbreviated", "--out=x in", []string{"--output"}, []string{"x"}},
		{"long abbreviated, next word", "--outp x", []string{"--output"}, []string{"x"}},
		{"long not a prefix", "--outputs=x", []string{"--output"}, nil},
		{"letter and next word", "-o out in", []string{"-o"}, []string{"out"}},
		{"letter attached", "-oout in", []string{"-o"}, []string{"out"}},
		{"letter with = is read both ways", "-o=/tmp/x", []string{"-o"}, []string{"=/tmp/x", "/tmp/x"}},
		{"end of a cluster", "-uo out in", []string{"-o"}, []string{"out"}},
		{"inside a cluster", "-uoout in", []string{"-o"}, []string{"out"}},
		{"cluster without it", "-uv in", []string{"-o"}, nil},
		{"value of another letter", "-W=o x", []string{"-o"}, nil},
		{"go-style word with =", "-coverprofile=/tmp/c.out ./...", []string{"-coverprofile"}, []string{"/tmp/c.out"}},
		{"go-style word, next word", "-coverprofile /tmp/c.out ./...", []string{"-coverprofile"}, []string{"/tmp/c.out"}},
		{"go-style word with two dashes", "--coverprofile=/tmp/c.out", []string{"-coverprofile"}, []string{"/tmp/c.out"}},
		{"go-style word, not a prefix", "-coverprofiles=x", []string{"-coverprofile"}, nil},
		{"several names and uses", "-o a --output b -o=c", []string{"-o", "--output"}, []string{"a", "b", "=c", "c"}},
		{"after -- are operands", "-- -o x", []string{"-o"}, nil},
		{"last word has no next", "-o", []string{"-o"}, nil},
		{"letter with two dashes, as Go reads it", "--o=/x --o y", []string{"-o"}, []string{"/x", "y"}},
		{"operands are not options", "o x", []string{"-o"}, nil},
		{"go-style names: words are not clusters", "-count=1 -cover -o x -coverprofile=c.out", []string{"-o", "-coverprofile"}, []string{"x", "c.out"}},
		{"go-style names: -o=V is V", "-o=/tmp/x --o y", []string{"-o", "-trace"}, []string{"/tmp/x", "y"}},
		{"go-style names: no attached letter values", "-ofile", []string{"-o", "-trace"}, nil},
		{"ldflags value", `-ldflags=-extld=sh .`, []string{"-ldflags"}, []string{"-extld=sh"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &CmdEnv{Args: strings.Fields(tt.args)}
			if got := flagValues(c, tt.names...); !slices.Equal(got, tt.want) {
				t.Errorf("flagValues(%q, %q) = %q, want %q", tt.args, tt.names, got, tt.want)
			}
		})
	}
	if flagValues(nil, "-o") != nil {
		t.Error("a missing command has no values")
	}
}
