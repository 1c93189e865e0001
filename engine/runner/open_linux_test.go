package runner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rein opens a redirect's file itself, outside the sandbox, after checking
// where its path leads: a link a command swaps in between the check and
// the open (a folder of the path replaced by a link to the home folder)
// makes the open fail instead of reaching elsewhere.
func TestRedirectOpensWhatWasChecked(t *testing.T) {
	ws, elsewhere := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(ws, "d"), 0o755)
	os.WriteFile(filepath.Join(ws, "d", "f"), []byte("checked"), 0o644)
	os.WriteFile(filepath.Join(elsewhere, "f"), []byte("SECRET"), 0o644)
	checked := reach(filepath.Join(ws, "d", "f"), 0)
	// The swap, after the check.
	os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "d.old"))
	os.Symlink(elsewhere, filepath.Join(ws, "d"))
	f, err, ok := openResolved(checked, os.O_RDONLY, 0)
	if !ok {
		t.Skip("no openat2 on this kernel")
	}
	if err == nil {
		b := make([]byte, 10)
		n, _ := f.Read(b)
		f.Close()
		t.Fatalf("the open followed the swapped link and read %q", b[:n])
	}
	if !strings.Contains(err.Error(), "changed while rein checked") {
		t.Errorf("err %v", err)
	}
	// Unswapped, it opens, for reading and for writing.
	f, err, _ = openChecked(filepath.Join(ws, "d.old", "f"), filepath.Join(ws, "d.old", "f"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("+")
	f.Close()
	if b, _ := os.ReadFile(filepath.Join(ws, "d.old", "f")); string(b) != "checked+" {
		t.Errorf("wrote %q", b)
	}
}
