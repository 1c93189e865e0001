package recipe

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// OwnFolders are the folders where rein keeps what decides its policy and
// its record: the user recipe's folder, the compile cache and the state
// folder (sessions and the audit log). A command that could write there
// could widen the policy of every later rein run or rewrite the record, so
// rein never writes them for a model and the sandbox never grants them.
func OwnFolders() []string {
	var dirs []string
	if p := UserRecipePath(); p != "" {
		dirs = append(dirs, filepath.Dir(p))
	}
	if d := (Options{}).cacheDir(); d != "" {
		dirs = append(dirs, filepath.Dir(d)) // the folder above recipes/
	}
	if state := StateDir(); state != "" {
		dirs = append(dirs, state)
	}
	return dirs
}

// CacheDir is rein's cache folder (the compiled recipes are in its
// recipes/), or "" when there is none.
func CacheDir() string {
	if d := (Options{}).cacheDir(); d != "" {
		return filepath.Dir(d)
	}
	return ""
}

// TempRoot is the folder in the system's temp folder where each command
// gets a temp folder of its own (TMPDIR), made by the runner.
func TempRoot() string {
	return filepath.Join(os.TempDir(), fmt.Sprintf("rein-%d", os.Getuid()))
}

// StateDir is rein's state folder ($XDG_STATE_HOME/rein or
// ~/.local/state/rein), where its database and the approved recipes live;
// "" when there is no home folder.
func StateDir() string {
	state := os.Getenv("XDG_STATE_HOME")
	if home, err := os.UserHomeDir(); state == "" && err == nil {
		state = filepath.Join(home, ".local", "state")
	}
	if state == "" {
		return ""
	}
	return filepath.Join(state, "rein")
}

// protectOwn adds to the protected paths the files this recipe was compiled
// from (its sources and everything they import), the scripts it allows by
// their path (a model that rewrote one would run anything as it) and rein's
// own folders.
func (r *Recipe) protectOwn(deps map[string]string) {
	add := func(p string) {
		if abs, err := filepath.Abs(p); err == nil {
			r.Paths.Protect = append(r.Paths.Protect, globLiteral(filepath.ToSlash(abs)))
		}
	}
	for _, s := range r.Sources {
		if !strings.HasPrefix(s, "builtin:") {
			add(s)
		}
	}
	for p := range deps {
		if abs, err := filepath.Abs(p); err == nil && !slices.Contains(r.Sources, abs) {
			r.Imports = append(r.Imports, abs)
		}
		add(p)
	}
	sort.Strings(r.Imports)
	r.Scripts = r.scripts()
	for _, s := range r.Scripts {
		add(s)
	}
	for _, d := range OwnFolders() {
		add(d)
		r.Paths.Protect = append(r.Paths.Protect, globLiteral(filepath.ToSlash(d))+"/**")
	}
	r.Paths.Protect = dedupe(r.Paths.Protect)
	// rein's record (every session's transcript) is a secret wherever
	// XDG_STATE_HOME puts it, not only under the default path.
	if state := StateDir(); state != "" {
		r.Paths.Deny = dedupe(append(r.Paths.Deny, globLiteral(filepath.ToSlash(state))+"/**"))
	}
}

// scripts are the programs named by a path in the catalog, the programs
// and the allow and ask globs, as absolute paths.
func (r *Recipe) scripts() []string {
	var names []string
	for _, c := range r.Commands {
		names = append(names, firstWord(c.Command))
	}
	for name := range r.Programs {
		names = append(names, name)
	}
	for _, g := range append(append([]string(nil), r.Allow...), r.Ask...) {
		if w := firstWord(g); !strings.ContainsAny(w, "*?[") {
			names = append(names, w)
		}
	}
	var out []string
	for _, n := range names {
		if !strings.ContainsAny(n, `/\`) {
			continue
		}
		if !filepath.IsAbs(n) {
			n = filepath.Join(r.Workspace, n)
		}
		out = append(out, filepath.Clean(n))
	}
	sort.Strings(out)
	return dedupe(out)
}

// firstWord is a command's program, split as the policy splits catalog
// entries and globs.
func firstWord(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// globLiteral escapes the characters a paths glob gives a meaning to.
func globLiteral(p string) string {
	if !strings.ContainsAny(p, `*?[\`) {
		return p
	}
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[\`, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ownKey is what the cache key needs to know of rein's own folders: a
// recipe compiled with one user recipe folder protects that one.
func ownKey() string {
	return strings.Join(OwnFolders(), "\x00") + "\x00" + os.Getenv("REIN_CACHE_DIR")
}

// WorkspaceCacheVar in a recipe's env.set values and sandbox.write entries
// stands for the workspace's own build cache (WorkspaceCache): the presets
// point the language tools' caches there.
const WorkspaceCacheVar = "$REIN_WORKSPACE_CACHE"

// WorkspaceCache is the folder where the commands of one workspace keep
// their language tools' caches ($XDG_CACHE_HOME/rein-builds/HASH): a
// module or package cache is code other projects and the person run
// later, so a command writes this workspace's copy, never the shared one.
// It is none of rein's own folders. "" without a home folder.
func WorkspaceCache(workspace string) string {
	base := os.Getenv("XDG_CACHE_HOME")
	if home, err := os.UserHomeDir(); base == "" && err == nil {
		base = filepath.Join(home, ".cache")
	}
	if base == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(workspace)))
	return filepath.Join(base, "rein-builds", hex.EncodeToString(sum[:8]))
}

// ExpandWorkspaceCache replaces WorkspaceCacheVar in s, making the folder
// when s names it; ok is false when there is no such folder to be had.
func ExpandWorkspaceCache(s, workspace string) (string, bool) {
	if !strings.Contains(s, WorkspaceCacheVar) {
		return s, true
	}
	dir := WorkspaceCache(workspace)
	if dir == "" || os.MkdirAll(dir, 0o700) != nil {
		return "", false
	}
	return strings.ReplaceAll(s, WorkspaceCacheVar, dir), true
}
