package policy

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Facts about the project a command runs in, for rules: whether a name is
// one of its own tools or scripts. They read the workspace as it is when
// the command is vetted; what they name is the project's code, which the
// presets that build and test run anyway (npm test).

// projectRoot is the nearest folder from the command's folder up to the
// workspace holding name (package.json, node_modules), or "".
func projectRoot(c *CmdEnv, name string) string {
	if c == nil || c.pol == nil {
		return ""
	}
	ws := c.pol.workspace
	dir := c.cwd
	if dir == "" || !Inside(dir, ws) {
		dir = ws
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
		if dir == ws || filepath.Dir(dir) == dir {
			return ""
		}
		dir = filepath.Dir(dir)
	}
}

// localBin reports whether tool is one of the project's own installed
// binaries (node_modules/.bin/TOOL, .venv/bin/TOOL): npx tsc runs the
// project's TypeScript, not a package fetched from the registry.
func localBin(c *CmdEnv, tool string) bool {
	if tool == "" || strings.ContainsAny(tool, `/\@`) || strings.HasPrefix(tool, ".") {
		return false
	}
	for _, d := range []string{filepath.Join("node_modules", ".bin"), filepath.Join(".venv", "bin")} {
		if root := projectRoot(c, d); root != "" {
			if st, err := os.Stat(filepath.Join(root, d, tool)); err == nil && !st.IsDir() {
				return true
			}
		}
	}
	return false
}

// maxPackageJSON bounds what a rule reads of a package.json.
const maxPackageJSON = 1 << 20

// packageScript reports whether name is a script of the project's
// package.json (pnpm validate, yarn lint run it).
func packageScript(c *CmdEnv, name string) bool {
	root := projectRoot(c, "package.json")
	if root == "" || name == "" {
		return false
	}
	f, err := os.Open(filepath.Join(root, "package.json"))
	if err != nil {
		return false
	}
	defer f.Close()
	var pkg struct{ Scripts map[string]json.RawMessage }
	if json.NewDecoder(io.LimitReader(f, maxPackageJSON)).Decode(&pkg) != nil {
		return false
	}
	_, ok := pkg.Scripts[name]
	return ok
}
