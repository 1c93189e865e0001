package tools_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tools"
)

func setup(t *testing.T, recipeText string) (*tools.Files, *policy.Policy, string) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(recipeText), 0o644)
	os.MkdirAll(filepath.Join(dir, "src", "pkg"), 0o755)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# demo\nline two\nline three\nTODO: four\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "src", "main.go"), []byte("package main\n// TODO: fix\nfunc main() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "src", "pkg", "util.go"), []byte("package pkg\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("SECRET=1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "blob.bin"), []byte("TODO\x00binary"), 0o644)
	return reload(t, dir)
}

// reload loads the recipe in dir again (after the test changed its files).
func reload(t *testing.T, dir string) (*tools.Files, *policy.Policy, string) {
	t.Helper()
	_, p := policytest.Load(t, dir, "")
	return tools.NewFiles(p), p, dir
}

func TestRefusesPathsOutside(t *testing.T) {
	f, _, dir := setup(t, `{}`)
	link := filepath.Join(dir, "etc-link")
	if runtime.GOOS != "windows" {
		if err := os.Symlink("/etc", link); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		path, want string
	}{
		{"../x", "outside the workspace"},
		{"src/../../x", "outside the workspace"},
		{"/etc/passwd", "/etc/passwd, outside the workspace"},
		{"etc-link/passwd", "symbolic link to /etc/passwd"},
		{".env", "paths.deny"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if runtime.GOOS == "windows" && strings.Contains(tt.path, "etc") {
				t.Skip("POSIX paths")
			}
			if _, err := f.Read(tt.path, 0, 0); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("read %s: %v, want an error containing %q", tt.path, err, tt.want)
			}
			if _, err := f.Write(tt.path, "x", false); err == nil {
				t.Errorf("write %s was allowed", tt.path)
			}
			if _, err := f.List(tt.path); err == nil && tt.path != ".env" {
				t.Errorf("list %s was allowed", tt.path)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "x")); err == nil {
		t.Error("a file was written outside the workspace")
	}
}

func TestReadWindow(t *testing.T) {
	f, _, _ := setup(t, `{}`)
	tests := []struct {
		offset, limit int
		want          string
		truncated     bool
	}{
		{0, 0, "# demo\nline two\nline three\nTODO: four\n", false},
		{2, 2, "line two\nline three\n", true},
		{4, 10, "TODO: four\n", false},
		{9, 1, "", false},
	}
	for _, tt := range tests {
		res, err := f.Read("README.md", tt.offset, tt.limit)
		if err != nil {
			t.Fatal(err)
		}
		if res.Output != tt.want || res.Truncated != tt.truncated || res.Bytes != len(tt.want) {
			t.Errorf("offset %d limit %d: %+v", tt.offset, tt.limit, res)
		}
	}
}

func TestSizeLimits(t *testing.T) {
	f, _, dir := setup(t, `{ limits: { max_file_bytes: 16 } }`)
	res, err := f.Read("README.md", 0, 0)
	if err != nil || !res.Truncated || len(res.Output) != 16 {
		t.Errorf("read over the limit: %+v %v", res, err)
	}
	if _, err := f.Write("big.txt", strings.Repeat("x", 17), false); err == nil || !strings.Contains(err.Error(), "max_file_bytes") {
		t.Errorf("write over the limit: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "big.txt")); err == nil {
		t.Error("big.txt was written")
	}
}

func TestWriteAndAppend(t *testing.T) {
	f, _, dir := setup(t, `{ paths: { write: ['out/**'] } }`)
	if _, err := f.Write("out/a/b.txt", "one\n", false); err != nil {
		t.Fatal(err)
	}
	res, err := f.Write("out/a/b.txt", "two\n", true)
	if err != nil || res.Bytes != 4 {
		t.Fatalf("append: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out", "a", "b.txt")); string(b) != "one\ntwo\n" {
		t.Errorf("content %q", b)
	}
	if _, err := f.Write("src/main.go", "x", false); err == nil || !strings.Contains(err.Error(), "paths.write") {
		t.Errorf("write outside paths.write: %v", err)
	}
	// Protected paths are readable, never written, whatever paths.write says.
	f, _, dir = setup(t, `{ paths: { write: ['**'] } }`)
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-commit.sample"), []byte("#!/bin/sh\n"), 0o755)
	for _, p := range []string{".git/hooks/pre-commit", "sub/.git", ".git/modules/lib/config"} {
		if _, err := f.Write(p, "#!/bin/sh\ncurl x | sh\n", false); err == nil || !strings.Contains(err.Error(), "paths.protect") {
			t.Errorf("write %s: %v", p, err)
		}
	}
	if res, err := f.Read(".git/hooks/pre-commit.sample", 0, 0); err != nil || res.Output == "" {
		t.Errorf("reading a hook: %+v %v", res, err)
	}
	// Nor the recipe: a model that rewrote it would choose its own leash.
	dir = t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`(import 'policy.libsonnet') + { paths: { write: ['**'] }, commands: [{ command: './scripts/lint.sh' }] }`), 0o644)
	os.WriteFile(filepath.Join(dir, "policy.libsonnet"), []byte(`{ allow: ['ls'] }`), 0o644)
	f, _, _ = reload(t, dir)
	for _, p := range []string{"rein.jsonnet", "policy.libsonnet", "src/rein.jsonnet", "scripts/lint.sh"} {
		if _, err := f.Write(p, "{ allow: ['*'] }", false); err == nil || !strings.Contains(err.Error(), "paths.protect") {
			t.Errorf("write %s: %v", p, err)
		}
	}
}

func TestGrepGlobList(t *testing.T) {
	f, _, _ := setup(t, `{}`)
	res, err := f.Grep("TODO", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Count != 2 || !strings.Contains(res.Output, "README.md:4: TODO: four\n") || !strings.Contains(res.Output, "src/main.go:2: // TODO: fix\n") {
		t.Errorf("grep: %+v", res)
	}
	if strings.Contains(res.Output, "blob.bin") || strings.Contains(res.Output, ".env") {
		t.Errorf("grep read a binary or secret file: %s", res.Output)
	}
	if res, _ := f.Grep("TODO", "src", "*.md"); res.Count != 0 {
		t.Errorf("glob filter: %+v", res)
	}
	if _, err := f.Grep("(", "", ""); err == nil || !strings.Contains(err.Error(), "RE2") {
		t.Errorf("bad pattern: %v", err)
	}
	g, err := f.Glob("**/*.go", "")
	if err != nil || g.Count != 2 || g.Output != "src/main.go\nsrc/pkg/util.go" {
		t.Errorf("glob: %+v %v", g, err)
	}
	l, err := f.List("src")
	if err != nil || len(l.Entries) != 2 || l.Entries[0].Name != "main.go" || l.Entries[0].Type != "file" || l.Entries[1].Type != "dir" {
		t.Errorf("list: %+v %v", l, err)
	}
}

// Bad arguments from a model get an error that says how to call the tool.
func TestBadArguments(t *testing.T) {
	f, _, _ := setup(t, `{}`)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"negative offset", func() error { _, err := f.Read("README.md", -1, 0); return err }, "must not be negative"},
		{"read of a folder", func() error { _, err := f.Read("src", 0, 0); return err }, "use list_directory"},
		{"glob without a pattern", func() error { _, err := f.Glob("", ""); return err }, "e.g. **/*.go"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.call(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestSystemInfo(t *testing.T) {
	_, p, dir := setup(t, `local rein = import 'rein.libsonnet'; rein.presets.go`)
	r := runner.New(p, runner.Options{})
	info := tools.System(context.Background(), r, dir)
	if info.OS != runtime.GOOS || info.CPUs < 1 || info.Shell != "embedded" || info.Workspace != dir {
		t.Errorf("info %+v", info)
	}
	if v := info.Tools["go"]; v == nil || !strings.HasPrefix(*v, "go version") {
		t.Errorf("go version through the runner: %v", v)
	}
	if v, ok := info.Tools["cargo"]; !ok || v != nil && !strings.Contains(*v, "cargo") {
		t.Errorf("cargo: %v", v)
	}
}

// glob, grep and list_directory are capped by bytes
// (limits.max_output_bytes) as command output is, and say so; folders'
// entries carry their path and how many entries they hold.
func TestFileToolsAreCappedByBytes(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly + { limits+: { max_output_bytes: 1024 } }`), 0o644)
	many := filepath.Join(dir, "many")
	os.MkdirAll(filepath.Join(many, "sub"), 0o755)
	for i := range 200 {
		os.WriteFile(filepath.Join(many, fmt.Sprintf("a-rather-long-file-name-%03d.txt", i)), []byte("needle\n"), 0o644)
	}
	os.WriteFile(filepath.Join(many, "sub", "x"), nil, 0o644)
	_, p := policytest.Load(t, dir, "")
	f := tools.NewFiles(p)
	g, err := f.Glob("**/*.txt", "")
	if err != nil || !g.LimitReached || len(g.Output) > 1200 || !strings.Contains(g.Output, "limits.max_output_bytes") {
		t.Errorf("glob: %v %+v (%d bytes)", err, g.Limit, len(g.Output))
	}
	m, err := f.Grep("needle", "", "")
	if err != nil || !m.LimitReached || len(m.Output) > 1300 {
		t.Errorf("grep: %v %+v (%d bytes)", err, m.Limit, len(m.Output))
	}
	l, err := f.List("many")
	if err != nil || !l.LimitReached || len(l.Entries) == 0 || len(l.Entries) >= 201 {
		t.Fatalf("list: %v %+v (%d entries)", err, l.Limit, len(l.Entries))
	}
	if e := l.Entries[0]; e.Path != "many/a-rather-long-file-name-000.txt" {
		t.Errorf("entry %+v", e)
	}
	if l, _ := f.List(""); !slices.ContainsFunc(l.Entries, func(e tools.Entry) bool { return e.Name == "many" && e.Items == 201 }) {
		t.Errorf("the folder's entry does not count its 201 entries: %+v", l.Entries)
	}
}
