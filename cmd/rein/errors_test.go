package main

import (
	"bytes"
	"strings"
	"testing"
)

// Mistakes a person makes at the command line end in exit 2 and a message
// that says what was wrong and what to do instead.
func TestUsageErrorsSayWhatToDo(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"audit with a bad --since", []string{"audit", "--since", "xyz"}, []string{`--since "xyz"`, "24h"}},
		{"log of an unknown session", []string{"log", "nosuch"}, []string{`no session named "nosuch"`, "rein sessions"}},
		{"replay of an unknown session", []string{"replay", "nosuch"}, []string{`no session named "nosuch"`}},
		{"run of an unknown task", []string{"run", "nosuch"}, []string{`no task "nosuch"`, "no tasks"}},
		{"ask without a model", []string{"ask", "q"}, []string{"no model", "--model"}},
		{"ask with an empty model name", []string{"ask", "-m", "openai:", "q"}, []string{"has no model name", "openai:gpt"}},
		{"ask without an API key", []string{"ask", "-m", "openai:gpt-4.1", "q"}, []string{"OPENAI_API_KEY"}},
		{"openai-compatible without a base URL", []string{"ask", "-m", "openai-compatible:m", "q"}, []string{"--base-url"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, errOut, code := rein(t, dir, "", tt.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, exitUsage, out, errOut)
			}
			for _, w := range tt.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr %q does not say %q", errOut, w)
				}
			}
		})
	}
}

// rein init never overwrites a recipe, and says how to go on.
func TestInitRefusesToOverwrite(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := rein(t, dir, "", "init"); code != exitOK {
		t.Fatalf("first init: exit %d: %s", code, errOut)
	}
	_, errOut, code := rein(t, dir, "", "init")
	if code != exitUsage || !strings.Contains(errOut, "already exists") || !strings.Contains(errOut, "never overwrites") {
		t.Errorf("second init: exit %d: %s", code, errOut)
	}
}

// rein check with no command on a terminal explains both ways to give one.
func TestCheckWithoutCommand(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("REIN_CACHE_DIR", t.TempDir())
	var out, errb bytes.Buffer
	code := run([]string{"--dir", t.TempDir(), "check"}, &env{stdin: strings.NewReader(""), stdinTerminal: true, stdout: &out, stderr: &errb})
	if code != exitUsage || !strings.Contains(errb.String(), "give a command to check") || !strings.Contains(errb.String(), "standard input") {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}
