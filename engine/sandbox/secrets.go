package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The workspace's own secret files (.env, a service account's key, terraform
// state): vetting refuses a command that names one, and where the command
// gets its own mount namespace the sandbox covers each with an empty file,
// so that a script, a test or a build finds nothing in it either — unless
// the recipe grants it to that command (paths.grant, Config.Reveal).

// secretWalkMax bounds the folders one walk of the workspace reads (about
// 10 µs each): a huge tree is walked that far, and vetting still refuses
// the names it did not reach.
const secretWalkMax = 20000

// secretWalkSkip are folders the walk does not enter: git's own (its config
// is git's to read) and package managers' trees, whose files are the
// packages' and not the project's.
var secretWalkSkip = map[string]bool{".git": true, "node_modules": true}

// workspaceSecrets are the files and folders of the workspace that the
// secret globs (paths.deny) name: "**/NAME" globs match a name at any
// depth, and relative globs (private/**, config/*.key) their place.
func workspaceSecrets(workspace string, globs []string) []string {
	if workspace == "" {
		return nil
	}
	var names, places []string
	for _, g := range globs {
		switch {
		case strings.HasPrefix(g, "~") || filepath.IsAbs(g):
		case strings.HasPrefix(g, "**/"):
			if rest := g[3:]; !strings.Contains(rest, "/") {
				names = append(names, rest)
			}
		default:
			places = append(places, g)
		}
	}
	var out []string
	for _, g := range places {
		g = strings.TrimSuffix(strings.TrimSuffix(g, "/**"), "/*")
		p := filepath.Join(workspace, filepath.FromSlash(g))
		if strings.ContainsAny(filepath.Dir(g), "*?[") {
			continue
		}
		matches := []string{p}
		if strings.ContainsAny(g, "*?[") {
			matches, _ = filepath.Glob(p)
		}
		for _, m := range matches {
			if _, err := os.Lstat(m); err == nil {
				out = append(out, m)
			}
		}
	}
	if len(names) > 0 {
		budget := secretWalkMax
		walkSecrets(workspace, names, &budget, &out)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func walkSecrets(dir string, names []string, budget *int, out *[]string) {
	if *budget == 0 {
		return
	}
	*budget--
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		p := filepath.Join(dir, n)
		if slices.ContainsFunc(names, func(g string) bool { ok, _ := filepath.Match(g, n); return ok }) {
			// Not a link: a mount would cover where it leads, and
			// vetting refuses reading through it.
			if e.Type()&os.ModeSymlink == 0 {
				*out = append(*out, p)
			}
			continue
		}
		if e.IsDir() && !secretWalkSkip[n] {
			walkSecrets(p, names, budget, out)
		}
	}
}

// revealed reports whether p is one of the paths the command is granted
// (Config.Reveal: * may stand in the last part).
func revealed(p string, reveal []string) bool {
	return slices.ContainsFunc(reveal, func(r string) bool {
		ok, _ := filepath.Match(r, p)
		return ok || within(p, r)
	})
}
