package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The sandbox hides the secret places that exist, except the ones programs
// read for their own configuration (git's ~/.gitconfig, shell start-up
// files), which only may not be named.
func TestHiddenLeavesToolConfigReadable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, name := range []string{".ssh/id_rsa", ".gitconfig", ".bashrc", ".bash_history", ".python_history", ".config/git/config"} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		os.WriteFile(filepath.Join(home, name), nil, 0o600)
	}
	got := hidden([]string{"~/.ssh/**", "~/.gitconfig", "~/.bashrc", "~/.*_history", "~/.bash_history", "~/.config/git/**", "~/.aws/**", "**/.env"}, t.TempDir())
	// ~/.*_history hides the histories there are.
	want := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".bash_history"), filepath.Join(home, ".python_history")}
	if !slices.Equal(got, want) {
		t.Errorf("hidden: %q, want %q", got, want)
	}
}
