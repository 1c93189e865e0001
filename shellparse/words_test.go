package shellparse

import (
	"path"
	"slices"
	"strings"
	"testing"
)

func TestGlobDir(t *testing.T) {
	tests := []struct {
		word, dir string
		ok        bool
	}{
		{"~/.ssh/*", "~/.ssh", true},
		{"/etc/sudoers.d/*", "/etc/sudoers.d", true},
		{"~/.ss*/*", "~", true},
		{"/*", "/", true},
		{"src/*.go", "src", true},
		{"*.go", "", false},            // the working folder
		{"~/notes.txt", "", false},     // not a glob
		{"$HOME/.ssh/*", "", false},    // dynamic besides the glob
		{"'~/.ssh'/*", "~/.ssh", true}, // quoted parts are literal
		{`~/.ssh/\*`, "", false},       // an escaped star is no glob
	}
	for _, tt := range tests {
		s := Analyze("cat " + tt.word)
		if len(s.Commands) != 1 || len(s.Commands[0].Words) != 2 {
			t.Fatalf("%s: %+v", tt.word, s.Commands)
		}
		dir, ok := s.Commands[0].Words[1].GlobDir()
		if dir != tt.dir || ok != tt.ok {
			t.Errorf("%s: GlobDir() = %q, %v; want %q, %v", tt.word, dir, ok, tt.dir, tt.ok)
		}
	}
}

func TestUnescapeUnquoted(t *testing.T) {
	for in, want := range map[string]string{
		`\;`: ";", `\(`: "(", `a\;`: "a;", `\\`: `\`, `\\x`: `\x`, `\a\b`: "ab", "\\\nx": "x", `x`: "x", `\`: `\`, `\é`: "é", `\;\;`: ";;",
	} {
		if got := unescapeUnquoted(in); got != want {
			t.Errorf("unescapeUnquoted(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBareNameKnownFromAnalysis: the shape recorded while resolving a word
// agrees with IsBareName of its value, whatever the quoting.
func TestBareNameKnownFromAnalysis(t *testing.T) {
	for _, word := range []string{"x", ".env", "a.b", "a..b", "..", "../x", "a/b", "~", "~/x", "HEAD:x", `a\b`, "'a/b'", `"x"`,
		"'..'", "-la", "--x=y", "{a,b}", "é.pem", "id_rsa", "''", `\.env`} {
		s := Analyze("cat " + word)
		if len(s.Commands) != 1 || len(s.Commands[0].Words) < 2 {
			t.Fatalf("%s: %+v", word, s.Commands)
		}
		for _, w := range s.Commands[0].Words[1:] {
			if w.Dynamic {
				continue
			}
			if got, want := w.BareName(), IsBareName(w.Value); got != want {
				t.Errorf("%s: word %q BareName() = %v, IsBareName = %v", word, w.Value, got, want)
			}
		}
	}
	for s, want := range map[string]bool{"x": true, ".env": true, "": false, "..": false, "a..b": false, "a.b": true, "a/b": false, `a\b`: false, "~x": false, "a:b": false, "...": false} {
		if got := IsBareName(s); got != want {
			t.Errorf("IsBareName(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestProgramNameIsBaseName(t *testing.T) {
	for _, v := range []string{"git", "/usr/bin/git", `C:\Git\bin\git.exe`, "./x.sh", "a/b/", "/", "./", "", `a\`, "dir//", "a/b\\c", "..", "../x"} {
		want := v
		if strings.ContainsAny(v, `/\`) {
			want = path.Base(strings.ReplaceAll(v, `\`, "/"))
		}
		if got := programName(v); got != want {
			t.Errorf("programName(%q) = %q, want %q", v, got, want)
		}
	}
}

// JoinArgv's text, read by the shell, is the argv again.
func TestJoinArgvReadsBack(t *testing.T) {
	for _, argv := range [][]string{
		{"ls", "-la"}, {"echo", "a b", "x;y", "$HOME", "*.go"}, {"echo", "it's", `a"b`}, {"find", ".", "-exec", "rm", "{}", ""},
		{"printf", "%s\n", "tab\there"}, {"x"},
	} {
		text := JoinArgv(argv)
		s := Analyze(text)
		if len(s.Commands) == 0 || !slices.Equal(s.Commands[0].Argv, argv) { // [0]: find -exec adds its inner command
			t.Errorf("JoinArgv(%q) = %s, which reads back as %v", argv, text, s.Commands)
		}
	}
}
