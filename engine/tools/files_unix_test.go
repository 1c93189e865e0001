//go:build unix

package tools_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe in the workspace (a build or test may leave one) is refused,
// not opened: opening it would wait for a writer forever.
func TestReadRefusesNamedPipe(t *testing.T) {
	f, _, dir := setup(t, `{}`)
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal("cannot make a named pipe:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := f.Read("pipe", 0, 0)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("reading a named pipe: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading a named pipe hangs")
	}
}
