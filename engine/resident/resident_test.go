package resident_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/resident"
)

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resident engines are Linux's")
	}
}

// Package answer runs its init before most of rein's only while it and
// package resident need nothing that has an initialisation of its own
// (the Go specification orders inits by import path among the ready ones):
// strings waits for unicode, encoding/binary for reflect, os for most of
// the standard library.
func TestAnswerNeedsNoLateInit(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/reinsh/rein/engine/resident/answer").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		switch pkg {
		case "unicode", "reflect", "os", "time", "fmt", "strings", "bytes", "encoding/binary", "crypto/sha256", "golang.org/x/sys/unix":
			t.Errorf("package answer depends on %s", pkg)
		}
	}
}

func TestLong(t *testing.T) {
	if !resident.Long([]string{"--preset", "readonly", "exec", "make"}) || resident.Long([]string{"check", "exec"}) {
		t.Error("only rein exec marks the engine busy")
	}
}

func TestServes(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		terminal bool
		want     bool
	}{
		{[]string{"check", "git status"}, false, true},
		{[]string{"check", "git status"}, true, true},
		{[]string{"--preset", "readonly", "check", "--json", "ls"}, false, true},
		{[]string{"--preset=readonly", "check", "ls"}, false, true},
		{[]string{"--db", "check", "run", "ls"}, false, false}, // --db takes check as its value
		{[]string{"--db", "check", "exec", "ls"}, false, true},
		{[]string{"check"}, true, true}, // says at once what is missing
		{[]string{"hook", "claude-code"}, false, true},
		{[]string{"hook", "claude"}, false, false},
		{[]string{"--recipe", "r.jsonnet", "hook", "codex"}, false, true},
		{[]string{"hook", "gemini"}, true, false}, // a person typing would hold the engine
		{[]string{"hook", "install", "claude"}, false, false},
		{[]string{"hook"}, false, false},
		{[]string{"exec", "ls"}, false, true},
		{[]string{"exec", "ls"}, true, false}, // ^C and ^Z reach the caller, not the engine
		{[]string{"run", "test"}, false, false},
		{[]string{"ask", "hi"}, false, false},
		{[]string{"mcp"}, false, false},
		{[]string{"--", "check", "ls"}, false, false},
		{nil, false, false},
		{[]string{"__sandbox", "check"}, false, false},
		{[]string{resident.ServeArg, "check"}, false, false},
	} {
		if got := resident.Serves(tt.args, tt.terminal); got != tt.want {
			t.Errorf("Serves(%q, terminal %v) = %v, want %v", tt.args, tt.terminal, got, tt.want)
		}
	}
}

// The socket's name follows everything an answer may depend on: another
// environment, another engine build, is another engine; another working
// folder is not.
func TestSocketFollowsCircumstances(t *testing.T) {
	linuxOnly(t)
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	engineFile := filepath.Join(t.TempDir(), "rein-engine")
	os.WriteFile(engineFile, []byte("v1"), 0o755)
	socket := func() string {
		t.Helper()
		s, err := resident.Socket(engineFile)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := socket()
	if filepath.Dir(first) != filepath.Join(os.Getenv("XDG_RUNTIME_DIR"), "rein") {
		t.Errorf("socket %s is not in $XDG_RUNTIME_DIR/rein", first)
	}
	if fi, err := os.Stat(filepath.Dir(first)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket folder: %v %v", fi.Mode(), err)
	}
	t.Setenv("PWD", "/somewhere/else")
	t.Setenv("OLDPWD", "/and/before")
	if socket() != first {
		t.Error("the working folder changed the socket")
	}
	t.Setenv("REIN_DB", "/tmp/other.db")
	second := socket()
	if second == first {
		t.Error("another environment kept the socket")
	}
	os.WriteFile(engineFile, []byte("v2, longer"), 0o755)
	if socket() == second {
		t.Error("another engine build kept the socket")
	}
}

// A socket folder another user could enter, or a link, is not used.
func TestSocketFolderMustBePrivate(t *testing.T) {
	linuxOnly(t)
	engineFile := filepath.Join(t.TempDir(), "rein-engine")
	os.WriteFile(engineFile, []byte("v1"), 0o755)

	open := t.TempDir()
	os.Mkdir(filepath.Join(open, "rein"), 0o755)
	os.Chmod(filepath.Join(open, "rein"), 0o755)
	t.Setenv("XDG_RUNTIME_DIR", open)
	if _, err := resident.Socket(engineFile); err == nil || !strings.Contains(err.Error(), "open to other users") {
		t.Errorf("an open folder: %v", err)
	}

	long := t.TempDir() + "/" + strings.Repeat("x", 80)
	os.MkdirAll(long, 0o700)
	t.Setenv("XDG_RUNTIME_DIR", long)
	if _, err := resident.Socket(engineFile); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Errorf("a long path: %v", err)
	}

	linked := t.TempDir()
	os.Symlink(t.TempDir(), filepath.Join(linked, "rein"))
	t.Setenv("XDG_RUNTIME_DIR", linked)
	if _, err := resident.Socket(engineFile); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Errorf("a link: %v", err)
	}
}
