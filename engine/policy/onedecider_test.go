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
// policy.Decision or policy.Result of its own, or sets a verdict on one it
// was given (the runner, the tools, the MCP server and the hook adapters
// gather facts and call policy.Decide). A second place that builds a
// denial, or turns an allow into an ask, is a second place that decides,
// and the two drift. The record keepers (engine/store, engine/session)
// write verdicts into records of what was decided.
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
		records := strings.Contains(filepath.ToSlash(path), "engine/store/") || strings.Contains(filepath.ToSlash(path), "engine/session/")
		ast.Inspect(f, func(n ast.Node) bool {
			for _, msg := range decides(n, records) {
				t.Errorf("%s %s; gather the facts and call policy.Decide", fset.Position(n.Pos()), msg)
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

// decides says how n decides outside the policy: it builds a policy
// Decision or Result, or sets a verdict of its choosing (records may;
// copying a decision's verdict into a report is not deciding).
func decides(n ast.Node, records bool) []string {
	var out []string
	switch n := n.(type) {
	case *ast.CompositeLit:
		if sel, ok := n.Type.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Decision" || sel.Sel.Name == "Result") {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "policy" {
				out = append(out, "builds a policy."+sel.Sel.Name+" of its own")
			}
		}
	case *ast.AssignStmt:
		for i, lhs := range n.Lhs {
			sel, ok := lhs.(*ast.SelectorExpr)
			if !ok || sel.Sel.Name != "Verdict" || records || len(n.Rhs) != len(n.Lhs) {
				continue
			}
			if v, ok := n.Rhs[i].(*ast.SelectorExpr); ok {
				if pkg, ok := v.X.(*ast.Ident); ok && pkg.Name == "policy" {
					out = append(out, "sets the verdict policy."+v.Sel.Name)
				}
			}
		}
	}
	return out
}

// The check above sees each way of deciding: tried on what the tool set
// once did, and on a denial built by hand.
func TestDecidesSeesEachWay(t *testing.T) {
	for src, want := range map[string]bool{
		"package x\nfunc f(d *policy.Decision) { confirm := *d; confirm.Verdict = policy.Ask; _ = confirm }": true,
		"package x\nfunc f() any { return &policy.Decision{Verdict: policy.Deny} }":                          true,
		"package x\nfunc f() any { return policy.Result{policy.Deny, \"r\", \"x\"} }":                        true,
		"package x\nfunc f(d *policy.Decision) bool { return d.Verdict == policy.Allow }":                    false,
		"package x\nfunc f(d *policy.Decision, e *Event) { e.Verdict = d.Verdict.String() }":                 false,
	} {
		f, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		found := false
		ast.Inspect(f, func(n ast.Node) bool {
			found = found || len(decides(n, false)) > 0
			return true
		})
		if found != want {
			t.Errorf("%q: decides %v, want %v", src, found, want)
		}
	}
}
