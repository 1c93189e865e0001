package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInitEachKind(t *testing.T) {
	kinds := []struct {
		name  string
		files map[string]string
		allow []string
	}{
		{"go", map[string]string{"go.mod": "module x\n\ngo 1.21\n"}, []string{"go build ./...", "go test ./..."}},
		{"node", map[string]string{"package.json": `{"scripts":{"test":"vitest run","build":"tsc -p ."}}`}, []string{"npm test", "npm run build"}},
		{"yarn", map[string]string{"package.json": `{"scripts":{"lint":"eslint ."}}`, "yarn.lock": ""}, []string{"yarn run lint"}},
		{"python", map[string]string{"pyproject.toml": "[project]\nname='x'\n"}, []string{"pytest", "python -m pytest -q"}},
		{"rust", map[string]string{"Cargo.toml": "[package]\nname='x'\n"}, []string{"cargo build", "cargo test"}},
		{"make", map[string]string{"Makefile": ".PHONY: test\nOUT := build\n# Build everything\nbuild:\n\t@echo building $(OUT)\ntest: build ## Run the tests\n\tls -la $(OUT)\nVERSION := 1\n%.o: %.c\n\tcc -c $<\n"}, []string{"make", "make build", "make test"}},
		{"git and scripts", map[string]string{".git/HEAD": "ref: refs/heads/main\n", "scripts/check.sh": "#!/bin/sh\n# Check the repository\necho ok\n"}, []string{"git status", "./scripts/check.sh"}},
		{"empty", map[string]string{}, []string{"ls -la"}},
	}
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range k.files {
				p := filepath.Join(dir, name)
				os.MkdirAll(filepath.Dir(p), 0o755)
				mode := os.FileMode(0o644)
				if strings.HasPrefix(name, "scripts/") {
					mode = 0o755
				}
				os.WriteFile(p, []byte(content), mode)
			}
			out, errOut, code := rein(t, dir, "", "init")
			if code != exitOK || !strings.Contains(out, "wrote "+filepath.Join(dir, "rein.jsonnet")) {
				t.Fatalf("init: %d %s %s", code, out, errOut)
			}
			if out, errOut, code := rein(t, dir, "", "test", "--no-presets"); code != exitOK {
				b, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet"))
				t.Fatalf("rein test on the new recipe: %d\n%s%s\n%s", code, out, errOut, b)
			}
			for _, cmd := range k.allow {
				if out, _, code := rein(t, dir, "", "check", cmd); code != exitOK {
					t.Errorf("%q not allowed:\n%s", cmd, out)
				}
			}
			for _, cmd := range []string{"rm -rf /", "rm -rf .", "rm -rf ~/x"} {
				if _, _, code := rein(t, dir, "", "check", cmd); code != exitDeny {
					t.Errorf("%q not denied", cmd)
				}
			}
			// Deleting in the workspace is asked (dev) or refused, saying so.
			if out, _, code := rein(t, dir, "", "check", "rm -rf build"); code == exitOK || !strings.Contains(out, "deletes files for good") {
				t.Errorf("rm -rf build: %d %s", code, out)
			}
			if _, errOut, code := rein(t, dir, "", "init"); code != exitUsage || !strings.Contains(errOut, "never overwrites") {
				t.Errorf("second init: %d %q", code, errOut)
			}
		})
	}
}

func TestInitDescriptions(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("# Build everything\nbuild:\n\ttrue\ntest: build ## Run the tests\n\ttrue\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"scripts":{"build":"tsc -p ."}}`), 0o644)
	out, _, code := rein(t, dir, "", "init", "--print")
	if code != exitOK {
		t.Fatal(code)
	}
	for _, want := range []string{`rein.presets.node + rein.presets.make`, `rein.command("make build", "Makefile target: Build everything")`,
		`rein.command("make test", "Makefile target: Run the tests")`, `rein.command("npm run build", "package.json script: tsc -p .")`} {
		if !strings.Contains(out, want) {
			t.Errorf("recipe lacks %s:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "rein.jsonnet")); err == nil {
		t.Error("--print wrote a file")
	}
}

// rein init does not catalogue a make target whose commands the recipe it
// writes would not run on their own: make publish (twine upload) asks, and
// the recipe says why.
func TestInitVetsMakeTargets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Makefile"), []byte("PY = python3\nlist: ## List files\n\tls -la\npublish: ## Upload a release\n\t$(PY) -m twine upload dist/*\ninstall:\n\t-pip install -e .\n"), 0o644)
	if out, errOut, code := rein(t, dir, "", "init"); code != exitOK {
		t.Fatalf("init: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet"))
	text := string(b)
	if strings.Contains(text, `rein.command("make publish"`) || strings.Contains(text, `rein.command("make install"`) || !strings.Contains(text, `rein.command("make list"`) {
		t.Errorf("catalogue:\n%s", text)
	}
	if !strings.Contains(text, "make publish: python3 -m twine upload dist/* is deny") {
		t.Errorf("no reason for make publish:\n%s", text)
	}
	for cmd, want := range map[string]int{"make list": exitOK, "make publish": exitAsk, "make install": exitAsk} {
		if out, _, code := rein(t, dir, "", "check", cmd); code != want {
			t.Errorf("%s: exit %d, want %d\n%s", cmd, code, want, out)
		}
	}
	if out, errOut, code := rein(t, dir, "", "test", "--no-presets"); code != exitOK {
		t.Errorf("rein test on the new recipe: %d\n%s%s", code, out, errOut)
	}
}

// rein allow adds a command rein asked about to the recipe (a catalog
// entry and a test); a command a rule refuses or asks about by name is
// not added, and the file is left as it was.
func TestAllowWritesTheRecipe(t *testing.T) {
	dir := t.TempDir()
	recipePath := filepath.Join(dir, "rein.jsonnet")
	os.WriteFile(recipePath, []byte("local rein = import 'rein.libsonnet';\nrein.presets.dev\n"), 0o644)
	if out, _, code := rein(t, dir, "", "check", "mytool --check src"); code != exitAsk {
		t.Fatalf("before: %d %s", code, out)
	}
	if out, errOut, code := rein(t, dir, "", "allow", "-d", "Check the sources", "mytool --check"); code != exitOK || !strings.Contains(out, "added") {
		t.Fatalf("allow: %d %s %s", code, out, errOut)
	}
	if out, _, code := rein(t, dir, "", "check", "mytool --check src"); code != exitOK {
		t.Errorf("after: %d %s", code, out)
	}
	if out, errOut, code := rein(t, dir, "", "test", "--no-presets"); code != exitOK {
		t.Errorf("rein test: %d %s %s", code, out, errOut)
	}
	b, _ := os.ReadFile(recipePath)
	if !strings.Contains(string(b), "{ command: 'mytool --check', description: 'Check the sources' }") || !strings.Contains(string(b), "allow+: ['mytool --check']") {
		t.Errorf("the recipe:\n%s", b)
	}
	for _, refused := range []string{"rm -rf build", "git push"} {
		if _, errOut, code := rein(t, dir, "", "allow", refused); code == exitOK || !strings.Contains(errOut, refused) {
			t.Errorf("allow %s: %d %s", refused, code, errOut)
		}
		if now, _ := os.ReadFile(recipePath); string(now) != string(b) {
			t.Errorf("allow %s changed the recipe:\n%s", refused, now)
		}
	}
}
