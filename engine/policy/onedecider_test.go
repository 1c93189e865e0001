package policy_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// Only the policy makes decisions: no other package of rein writes a
// policy.Decision of its own (the runner, the tools, the MCP server and
// the hook adapters gather facts and call policy.Decide). A second place
// that builds a denial is a second place that decides, and the two drift.
func TestOnlyThePolicyBuildsDecisions(t *testing.T) {
	root := filepath.Join("..", "..")
	fset := token.NewFileSet()
	seen := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "node_modules", ".git":
				return filepath.SkipDir
			}
			if filepath.Clean(path) == filepath.Join(root, "engine", "policy") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		seen++
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Decision" {
				if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "policy" {
					t.Errorf("%s builds a policy.Decision of its own; gather the facts and call policy.Decide", fset.Position(lit.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen < 50 {
		t.Fatalf("read only %d Go files from %s", seen, root)
	}
}
