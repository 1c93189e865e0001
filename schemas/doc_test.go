package schemas_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/reinsh/rein/schemas"
)

// node is the part of a JSON Schema the reference follows.
type node struct {
	Ref                  string          `json:"$ref"`
	Properties           map[string]node `json:"properties"`
	Items                *node           `json:"items"`
	AdditionalProperties json.RawMessage `json:"additionalProperties"`
	Defs                 map[string]node `json:"$defs"`
}

// docs/recipe.md names every field of the recipe format: a top-level
// object's fields by their dotted path (sandbox.network), the fields of
// programs, subcommands, rules, tasks and list entries by name.
func TestRecipeReferenceNamesEveryField(t *testing.T) {
	doc, err := os.ReadFile("../docs/recipe.md")
	if err != nil {
		t.Fatal(err)
	}
	var root node
	if err := json.Unmarshal(schemas.Recipe, &root); err != nil {
		t.Fatal(err)
	}
	resolve := func(n node) node {
		if name, ok := strings.CutPrefix(n.Ref, "#/$defs/"); ok {
			return root.Defs[name]
		}
		return n
	}
	// element is what a list's items or an object's values are.
	element := func(n node) node {
		n = resolve(n)
		if n.Items != nil {
			return resolve(*n.Items)
		}
		var values node
		if len(n.AdditionalProperties) > 0 && json.Unmarshal(n.AdditionalProperties, &values) == nil {
			return resolve(values)
		}
		return node{}
	}
	named := func(field string) bool { return strings.Contains(string(doc), "`"+field+"`") }
	for name, field := range root.Properties {
		// An object's own name is enough where its fields are named.
		if len(resolve(field).Properties) == 0 && !named(name) {
			t.Errorf("docs/recipe.md does not name %s", name)
		}
		for sub := range resolve(field).Properties {
			if !named(name + "." + sub) {
				t.Errorf("docs/recipe.md does not name %s.%s", name, sub)
			}
		}
		for sub := range element(field).Properties {
			if !named(sub) {
				t.Errorf("docs/recipe.md does not name the %s field %s", name, sub)
			}
		}
	}
	for _, def := range []string{"program", "subcommand", "task"} {
		for sub := range root.Defs[def].Properties {
			if !named(sub) {
				t.Errorf("docs/recipe.md does not name the %s field %s", def, sub)
			}
		}
	}
}

// The README and docs stand alone: they point to nothing outside the
// repository (a "see SPEC" pointed nowhere a reader could follow).
func TestDocsPointToNothingOutside(t *testing.T) {
	files, _ := filepath.Glob("../docs/*.md")
	for _, f := range append(files, "../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, outside := range []string{"SPEC", "../shared", "reference/"} {
			if strings.Contains(string(b), outside) {
				t.Errorf("%s mentions %q, which is not in the repository", f, outside)
			}
		}
	}
}

// Every relative link in the README and docs names a file of the
// repository (the README's licence line points to LICENSE).
func TestDocsLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#\s]+)(#[^)]*)?\)`)
	files, _ := filepath.Glob("../docs/*.md")
	for _, f := range append(files, "../README.md") {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(f), target)); err != nil {
				t.Errorf("%s links to %s, which is not in the repository", f, target)
			}
		}
	}
	if _, err := os.Stat("../LICENSE"); err != nil {
		t.Error("the repository has no LICENSE file")
	}
}
