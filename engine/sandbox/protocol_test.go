package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rein uses the small helper beside it only when it was built from a
// release, and the file is one no command could have written: outside the
// workspace and the write grants, executable, writable by its owner alone.
func TestHelperChoice(t *testing.T) {
	release := func() string { return "github.com/reinsh/rein@v1.2.3/" + configShape() }
	defer func(p func() string) { protocol = p }(protocol)
	bin, workspace := t.TempDir(), t.TempDir()
	self := filepath.Join(bin, "rein")
	sibling := filepath.Join(bin, SiblingHelper)
	c := &Config{Mode: "workspace-write", Workspace: workspace}

	protocol = release
	if got := c.Helper(self); got != self {
		t.Errorf("no sibling: %s", got)
	}
	os.WriteFile(sibling, []byte("#!/bin/sh\n"), 0o755)
	if got := c.Helper(self); got != sibling {
		t.Errorf("a sibling from a release: %s, want %s", got, sibling)
	}
	os.Chmod(sibling, 0o775)
	if got := c.Helper(self); got != self {
		t.Errorf("a group-writable sibling: %s", got)
	}
	os.Chmod(sibling, 0o755)
	for _, tt := range []struct {
		name string
		c    *Config
	}{
		{"rein inside the workspace", &Config{Mode: "read-only", Workspace: bin}},
		{"rein inside a write grant", &Config{Mode: "workspace-write", Workspace: workspace, Write: []string{filepath.Dir(bin)}}},
	} {
		if got := tt.c.Helper(self); got != self {
			t.Errorf("%s: %s", tt.name, got)
		}
	}
	protocol = func() string { return "/" + configShape() } // a working-tree build
	if got := c.Helper(self); got != self {
		t.Errorf("a build from a working tree: %s", got)
	}
}

// The helper accepts the configuration of its own build and no other.
func TestCheckProtocol(t *testing.T) {
	if err := checkProtocol(Config{Protocol: protocol()}); err != nil {
		t.Error(err)
	}
	for _, p := range []string{"", "github.com/reinsh/rein@v0.0.1/" + configShape(), "/0000000000000000"} {
		if err := checkProtocol(Config{Protocol: p}); err == nil || !strings.Contains(err.Error(), "other sources") {
			t.Errorf("%q: %v", p, err)
		}
	}
	if configShape() != configShape() || len(configShape()) != 16 {
		t.Error("the shape is not a stable fingerprint")
	}
}
