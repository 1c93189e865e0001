package recipe

import (
	"os"
	"path/filepath"
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
	state := os.Getenv("XDG_STATE_HOME")
	if home, err := os.UserHomeDir(); state == "" && err == nil {
		state = filepath.Join(home, ".local", "state")
	}
	if state != "" {
		dirs = append(dirs, filepath.Join(state, "rein"))
	}
	return dirs
}

// protectOwn adds to the protected paths the files this recipe was compiled
// from (its sources and everything they import) and rein's own folders.
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
		if abs, err := filepath.Abs(p); err == nil {
			r.Imports = append(r.Imports, abs)
		}
		add(p)
	}
	sort.Strings(r.Imports)
	for _, d := range OwnFolders() {
		add(d)
		r.Paths.Protect = append(r.Paths.Protect, globLiteral(filepath.ToSlash(d))+"/**")
	}
	r.Paths.Protect = dedupe(r.Paths.Protect)
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
