package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A search of a folder another program runs (an agent's Grep) would read
// the secret files below it that are not hidden: SecretInSearch names one,
// leaves hidden files out as ripgrep does, and honours the file pattern.
func TestSecretInSearch(t *testing.T) {
	p, err := loadRecipeText(t, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"src/main.go", "deploy/id_rsa", ".env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600)
	}
	if got := p.SecretInSearch(dir, ""); !strings.HasSuffix(got, filepath.Join("deploy", "id_rsa")) {
		t.Errorf("search of the tree: %q, want deploy/id_rsa", got)
	}
	if got := p.SecretInSearch(dir, "*.go"); got != "" {
		t.Errorf("search of *.go: %q, want none", got)
	}
	if got := p.SecretInSearch(filepath.Join(dir, "src"), ""); got != "" {
		t.Errorf("search of src: %q, want none (.env is hidden and outside)", got)
	}
}
