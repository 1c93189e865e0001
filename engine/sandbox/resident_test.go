package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/reinsh/rein/engine/resident"
)

// The folder of rein's resident engines is hidden from commands wherever
// package resident puts it (the sandbox may not import it: it names the
// folder itself, and this test holds the two together).
func TestResidentFolderIsHidden(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "")
	t.Setenv("TMPDIR", t.TempDir())
	dir := resident.SocketDir()
	if dir == "" {
		t.Skip("no resident engines here")
	}
	os.MkdirAll(dir, 0o700)
	if got := serviceSockets(nil, t.TempDir()); !slices.Contains(got, dir) {
		t.Errorf("with $TMPDIR: %s is not among the hidden %q", dir, got)
	}
	runtimeDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	if dir := resident.SocketDir(); filepath.Dir(dir) != runtimeDir || !slices.Contains(serviceSockets(nil, t.TempDir()), runtimeDir) {
		t.Errorf("with $XDG_RUNTIME_DIR: %s is not inside a hidden %s", dir, runtimeDir)
	}
}
