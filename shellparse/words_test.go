package shellparse

import "testing"

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
