package shellparse

import (
	"reflect"
	"testing"
)

func TestGitObjectsOf(t *testing.T) {
	tests := []struct {
		argv string
		want *GitObjects // nil: prints no object it names by id
	}{
		{"git show 7c1c8c3", &GitObjects{Names: []string{"7c1c8c3"}}},
		{"git show HEAD v1.0 --stat", &GitObjects{Names: []string{"HEAD", "v1.0"}}},
		{"git -C sub --no-pager show abc -- src", &GitObjects{Dirs: []string{"sub"}, Names: []string{"abc"}}},
		{"git cat-file -p 7c1c8c3", &GitObjects{Names: []string{"7c1c8c3"}}},
		{"git cat-file blob 7c1c8c3", &GitObjects{Names: []string{"7c1c8c3"}}},
		{"git cat-file --filters --path=a.txt 7c1c8c3", &GitObjects{Names: []string{"7c1c8c3"}}},
		{"git cat-file --batch", &GitObjects{Input: true}},
		{"git cat-file --batch-command", &GitObjects{Input: true}},
		{"git cat-file --batch --batch-all-objects", &GitObjects{All: true}},
		{"git show", nil},                   // HEAD, a commit
		{"git show HEAD:.env", nil},         // a path, checked by the policy
		{"git cat-file -p :0:main.go", nil}, // the index's file, by path
		{"git cat-file -t 7c1c8c3", nil},    // the type only
		{"git cat-file -s 7c1c8c3", nil},    // the size only
		{"git cat-file --batch-check", nil}, // types and sizes
		{"git cat-file --batch-check --batch-all-objects", nil},
		{"git log -p 7c1c8c3", nil},
		{"git", nil},
		{"cat 7c1c8c3", nil},
	}
	for _, tt := range tests {
		got, ok := GitObjectsOf(Analyze(tt.argv).Commands[0])
		switch {
		case tt.want == nil && ok:
			t.Errorf("%s: names objects %+v", tt.argv, got)
		case tt.want != nil && (!ok || !reflect.DeepEqual(got, *tt.want)):
			t.Errorf("%s: got %+v (%v), want %+v", tt.argv, got, ok, *tt.want)
		}
	}
}
