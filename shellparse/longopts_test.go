package shellparse

import (
	"slices"
	"testing"
)

func TestFullOption(t *testing.T) {
	tests := []struct{ program, in, want string }{
		{"grep", "--incl=*env", "--include=*env"},
		{"grep", "--recur", "--recursive"},
		{"grep", "--dereference-rec", "--dereference-recursive"},
		{"grep", "--include=x", "--include=x"},
		{"grep", "--exclude", "--exclude"},           // exact, though --exclude-dir starts so too
		{"grep", "--exc=x", "--exc=x"},               // short for several: grep refuses it
		{"grep", "--bogus", "--bogus"},               // no such option
		{"sort", "--files0=-", "--files0-from=-"},    // sort --files0=- reads names from its input
		{"tar", "--recursive", "--recursive-unlink"}, // tar has no --recursive
		{"tar", "--file", "--file"},
		{"egrep", "--incl=x", "--include=x"},
		{"cat", "--show-a", "--show-a"}, // a program rein has no list for
		{"grep", "-r", "-r"},
	}
	for _, tt := range tests {
		if got := fullOption(tt.program, tt.in); got != tt.want {
			t.Errorf("fullOption(%s, %s) = %s, want %s", tt.program, tt.in, got, tt.want)
		}
	}
	argv := []string{"grep", "--recur", "--incl=*.go", "x", "--", "--incl"}
	if got := fullOptions("grep", argv); !slices.Equal(got, []string{"grep", "--recursive", "--include=*.go", "x", "--", "--incl"}) {
		t.Errorf("fullOptions = %q", got)
	}
	if argv[1] != "--recur" {
		t.Error("fullOptions changed its argument")
	}
}
