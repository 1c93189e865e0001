//go:build unix

package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command's temp folder is made in rein's own private folder, which
// leaves the system's temp folder unchanged; a folder of that name that is
// not the user's private folder is passed by.
func TestCommandTempDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	parent := filepath.Join(tmp, fmt.Sprintf("rein-%d", os.Getuid()))
	before, _ := os.Stat(tmp)
	d, err := commandTempDir()
	if err != nil || filepath.Dir(d) != parent {
		t.Fatalf("%s, %v; want a folder in %s", d, err, parent)
	}
	if st, _ := os.Stat(parent); st.Mode().Perm() != 0o700 {
		t.Errorf("rein's folder is %v", st.Mode())
	}
	os.Remove(d)
	// Made once: later commands leave the temp folder's time alone.
	os.Chtimes(tmp, before.ModTime(), before.ModTime())
	d2, _ := commandTempDir()
	os.Remove(d2)
	if after, _ := os.Stat(tmp); !after.ModTime().Equal(before.ModTime()) {
		t.Error("a command's temp folder changed the system's temp folder")
	}
	for name, make := range map[string]func(){
		"shared": func() { os.Mkdir(parent, 0o777); os.Chmod(parent, 0o777) },
		"a link": func() { os.Symlink(t.TempDir(), parent) },
		"a file": func() { os.WriteFile(parent, nil, 0o600) },
	} {
		os.RemoveAll(parent)
		make()
		d, err := commandTempDir()
		if err != nil || filepath.Dir(d) != tmp || !strings.HasPrefix(filepath.Base(d), "rein-tmp-") {
			t.Errorf("%s: %s, %v; want a folder of its own in %s", name, d, err, tmp)
		}
		os.Remove(d)
	}
}
