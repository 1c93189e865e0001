package shellparse

import (
	"reflect"
	"slices"
	"testing"
)

func TestNameInputOf(t *testing.T) {
	tests := []struct {
		argv string
		want *NameInput // nil: takes no list of names
	}{
		{"xargs cat", &NameInput{Xargs: true, Command: []string{"cat"}}},
		{"xargs -0 -n 1 cat", &NameInput{Xargs: true, Null: true, MaxArgs: 1, Command: []string{"cat"}}},
		{"xargs -d , -r grep x", &NameInput{Xargs: true, Delim: ",", Command: []string{"grep", "x"}}},
		{"xargs -I{} cat .{}", &NameInput{Xargs: true, Replace: "{}", Command: []string{"cat", ".{}"}}},
		{"xargs -i cat {}", &NameInput{Xargs: true, Replace: "{}", Command: []string{"cat", "{}"}}},
		{"xargs --replace=% cat %", &NameInput{Xargs: true, Replace: "%", Command: []string{"cat", "%"}}},
		{"xargs -a list.txt cat", &NameInput{Xargs: true, File: "list.txt", Command: []string{"cat"}}},
		{"xargs --null --delimiter='\\n' cat", &NameInput{Xargs: true, Null: true, Delim: "\n", Command: []string{"cat"}}},
		{"sort --files0-from=-", &NameInput{Null: true}},
		{"wc -c --files0-from names", &NameInput{Null: true, File: "names"}},
		{"tar -cf - -T list", &NameInput{File: "list"}},
		{"zip out -@", &NameInput{}},
		{"cpio -o", &NameInput{}},
		{"cpio -i", nil},
		{"parallel cat", &NameInput{Replace: "{}", Command: []string{"cat"}}},
		{"parallel cat ::: a b", nil},
		{"git cat-file --batch", &NameInput{}},
		{"git -C sub cat-file --batch-check", &NameInput{}},
		{"git cat-file -p HEAD", nil},
		{"sort names.txt", nil},
		// Long options abbreviated, as getopt_long takes them.
		{"xargs --arg-f=list.txt cat", &NameInput{Xargs: true, File: "list.txt", Command: []string{"cat"}}},
		{"xargs --nu --del=, cat", &NameInput{Xargs: true, Null: true, Delim: ",", Command: []string{"cat"}}},
		{"sort --files0=-", &NameInput{Null: true}},
		{"tar -cf - --files-f=list", &NameInput{File: "list"}},
	}
	for _, tt := range tests {
		s := Analyze(tt.argv)
		got, ok := NameInputOf(s.Commands[0])
		if tt.want == nil {
			if ok {
				t.Errorf("%s: takes a list %+v", tt.argv, got)
			}
			continue
		}
		if !ok || !reflect.DeepEqual(got, *tt.want) {
			t.Errorf("%s: got %+v (%v), want %+v", tt.argv, got, ok, *tt.want)
		}
	}
}

func TestNameInputWords(t *testing.T) {
	x := NameInput{Replace: "{}", Command: []string{"cat", ".{}"}}
	got := x.Words([]byte("env 'a b'\n"))
	for _, want := range []string{"env", ".env", "'a", "b", "env 'a b'", "env a b"} {
		if !slices.Contains(got, want) {
			t.Errorf("Words lacks %q: %q", want, got)
		}
	}
}

func TestResponseFiles(t *testing.T) {
	for argv, want := range map[string][]string{
		"strings @.gitignore":         {".gitignore"},
		"gcc -O2 @opts.rsp @more x.c": {"opts.rsp", "more"},
		"strings -a @":                nil,
		"cat @.gitignore":             nil, // cat reads a file named @.gitignore
		"javac @argfile":              {"argfile"},
	} {
		if got := ResponseFiles(Analyze(argv).Commands[0]); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", argv, got, want)
		}
	}
}
