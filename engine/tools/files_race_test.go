package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy/policytest"
)

// Between a path's check and its opening another process can swap the
// file, or a folder above it, for a link: to a file outside the workspace
// or to a secret inside it. The open goes through the workspace as an
// os.Root and must find the file it checked, so the swap gets an error,
// never the other file's content, and never a write to it.
func TestSwapAfterCheck(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	outside := t.TempDir()
	secretOutside := filepath.Join(outside, "secret.txt")
	tests := []struct {
		name string
		// swap replaces what was checked; dir is the workspace.
		swap func(t *testing.T, dir string)
		do   func(f *Files) (string, error)
	}{
		{"read: file becomes a link out", func(t *testing.T, dir string) { relink(t, secretOutside, filepath.Join(dir, "notes.txt")) },
			func(f *Files) (string, error) { r, err := f.Read("notes.txt", 0, 0); return output(r, err) }},
		{"read: file becomes a link to a secret inside", func(t *testing.T, dir string) { relink(t, filepath.Join(dir, ".env"), filepath.Join(dir, "notes.txt")) },
			func(f *Files) (string, error) { r, err := f.Read("notes.txt", 0, 0); return output(r, err) }},
		{"read: folder above becomes a link out", func(t *testing.T, dir string) { relinkDir(t, outside, filepath.Join(dir, "sub")) },
			func(f *Files) (string, error) { r, err := f.Read("sub/secret.txt", 0, 0); return output(r, err) }},
		{"grep: file becomes a link out", func(t *testing.T, dir string) { relink(t, secretOutside, filepath.Join(dir, "notes.txt")) },
			func(f *Files) (string, error) {
				r, err := f.Grep("TOKEN", "notes.txt", "")
				if err == nil && r.Count == 0 {
					return "", os.ErrNotExist // nothing read: the swap was refused
				}
				return grepOutput(r, err)
			}},
		{"list: folder becomes a link out", func(t *testing.T, dir string) { relinkDir(t, outside, filepath.Join(dir, "sub")) },
			func(f *Files) (string, error) {
				r, err := f.List("sub")
				if r == nil {
					return "", err
				}
				var names []string
				for _, e := range r.Entries {
					names = append(names, e.Name)
				}
				return strings.Join(names, " "), err // the folder outside holds TOKEN-listing
			}},
		{"write: file becomes a link out", func(t *testing.T, dir string) { relink(t, secretOutside, filepath.Join(dir, "notes.txt")) },
			func(f *Files) (string, error) {
				r, err := f.Write("notes.txt", "overwritten", false)
				return writeOutput(r, err)
			}},
		{"write: new name taken by a link out", func(t *testing.T, dir string) { relink(t, secretOutside, filepath.Join(dir, "new.txt")) },
			func(f *Files) (string, error) {
				r, err := f.Write("new.txt", "overwritten", false)
				return writeOutput(r, err)
			}},
		{"write: new folder taken by a link out", func(t *testing.T, dir string) { relinkDir(t, outside, filepath.Join(dir, "newdir")) },
			func(f *Files) (string, error) {
				r, err := f.Write("newdir/secret.txt", "overwritten", false)
				return writeOutput(r, err)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.WriteFile(secretOutside, []byte("TOKEN=outside\n"), 0o644)
			os.WriteFile(filepath.Join(outside, "TOKEN-listing"), nil, 0o644)
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ paths: { write: ['**'] } }`), 0o644)
			os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes\n"), 0o644)
			os.WriteFile(filepath.Join(dir, ".env"), []byte("TOKEN=inside\n"), 0o644)
			os.Mkdir(filepath.Join(dir, "sub"), 0o755)
			os.WriteFile(filepath.Join(dir, "sub", "secret.txt"), []byte("sub\n"), 0o644)
			_, p := policytest.Load(t, dir, "")
			f := NewFiles(p)
			f.checked = func(string) { tt.swap(t, dir) }
			out, err := tt.do(f)
			if err == nil {
				t.Errorf("the swap went unnoticed: %q", out)
			}
			if strings.Contains(out, "TOKEN") {
				t.Errorf("read the other file: %q", out)
			}
			if b, _ := os.ReadFile(secretOutside); string(b) != "TOKEN=outside\n" {
				t.Errorf("the file outside was written: %q", b)
			}
			if _, err := os.Stat(filepath.Join(outside, "sub")); err == nil {
				t.Error("a folder was made outside the workspace")
			}
		})
	}
}

func relink(t *testing.T, target, link string) {
	t.Helper()
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func relinkDir(t *testing.T, target, link string) {
	t.Helper()
	os.RemoveAll(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// text is a tool result's text, or "" when the tool failed.
func text[T any](r *T, err error, get func(*T) string) (string, error) {
	if r == nil {
		return "", err
	}
	return get(r), err
}

func output(r *ReadResult, err error) (string, error) {
	return text(r, err, func(r *ReadResult) string { return r.Output })
}

func grepOutput(r *SearchResult, err error) (string, error) {
	return text(r, err, func(r *SearchResult) string { return r.Output })
}

func writeOutput(r *WriteResult, err error) (string, error) {
	return text(r, err, func(r *WriteResult) string { return r.Output })
}
