package shellparse

import (
	"fmt"
	"testing"
)

func TestXargsCommands(t *testing.T) {
	for _, c := range []struct {
		x     NameInput
		input string
		want  string
		exact bool
	}{
		{NameInput{Command: []string{"sed"}}, "-i s/x/y/ f\n", "[[sed -i s/x/y/ f]]", false},
		{NameInput{}, "a 'b c' \"d\\\" e\\ f\n", `[[echo a b c d\ e f]]`, false},
		{NameInput{Command: []string{"wc"}, MaxArgs: 2}, "a b c", "[[wc a b] [wc c]]", true},
		{NameInput{Command: []string{"wc"}, MaxLines: 1}, "a b\nc \nd\ne", "[[wc a b] [wc c d] [wc e]]", true},
		{NameInput{Command: []string{"cat", "{}", "x{}y"}, Replace: "{}"}, "  a b\nc\n", "[[cat a b xa by] [cat c xcy]]", true},
		{NameInput{Command: []string{"ls"}, Null: true}, "a b\x00c\x00", "[[ls a b c]]", false},
		{NameInput{Command: []string{"ls"}, Delim: ","}, "a,b c,", "[[ls a b c]]", false},
		{NameInput{Command: []string{"ls"}, EOF: "STOP"}, "a STOP b", "[[ls a]]", false},
		{NameInput{Command: []string{"ls"}, MaxArgs: 1, Sized: true}, "a b", "[[ls a] [ls b]]", false},
	} {
		got, exact, err := c.x.Commands([]byte(c.input))
		if err != nil || fmt.Sprint(got) != c.want || exact != c.exact {
			t.Errorf("%+v %q: %v %v %v, want %s %v", c.x, c.input, got, exact, err, c.want, c.exact)
		}
	}
	if _, _, err := (NameInput{}).Commands([]byte("'open\n")); err == nil {
		t.Error("an unmatched quote read")
	}
}
