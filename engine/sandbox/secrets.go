package sandbox

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The workspace's own secret files (.env, a service account's key, terraform
// state): vetting refuses a command that names one, and where the command
// gets its own mount namespace the sandbox covers each with an empty file,
// so that a script, a test or a build finds nothing in it either — unless
// the recipe grants it to that command (paths.grant, Config.Reveal).

// secretWalkMax bounds the folders one walk of the workspace reads: a huge
// tree is walked that far, and vetting still refuses the names it did not
// reach.
const secretWalkMax = 5000

// secretWalkSkip are folders the walk does not enter: git's own (its config
// is git's to read) and npm's tree, whose files are the packages' and not
// the project's, and which can hold more folders than the walk reads.
var secretWalkSkip = map[string]bool{".git": true, "node_modules": true}

// workspaceSecrets are the files and folders of the workspace that the
// secret globs (paths.deny) name: "**/NAME" globs match a name at any
// depth, and relative globs (private/**, config/*.key) their place.
//
// It also returns the workspace's hidden entries (.envrc, .github) and the
// recipes below its top: the places that run later (see Options.HiddenWritable).
func workspaceSecrets(workspace string, globs []string, cacheDir string) (secrets, hidden []string) {
	if workspace == "" {
		return nil, nil
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
	w := secretWalk{names: names, budget: secretWalkMax, now: time.Now(), top: workspace}
	w.load(cacheDir, workspace)
	w.walk(workspace)
	w.keep()
	out = append(out, w.found...)
	slices.Sort(out)
	return slices.Compact(out), w.hidden
}

// secretWalk finds the files of secret names in a tree. What each folder
// held is kept in rein's cache (where no command may write) with the
// folder's change time (ctime), which a name made, removed or renamed in it
// changes and which no command can set back: a later walk reads again only
// the folders that changed, and stats the rest. A time less than a second
// old is not trusted: file times are coarse.
type secretWalk struct {
	names  []string
	budget int
	now    time.Time
	top    string
	found  []string
	hidden []string
	cache  string
	old    map[string]walkedFolder // by folder, from the cache
	seen   map[string]walkedFolder
	// changed: a folder was read again, or one is gone.
	changed bool
}

type walkedFolder struct {
	CTime   int64    `json:"c"`
	Folders []string `json:"d,omitempty"` // the subfolders to walk
	Found   []string `json:"f,omitempty"` // secret entries
	Hidden  []string `json:"h,omitempty"` // hidden entries, and a recipe
}

func (w *secretWalk) load(cacheDir, workspace string) {
	w.seen = map[string]walkedFolder{}
	if cacheDir == "" {
		return
	}
	h := sha256.Sum256([]byte("3\x00" + workspace + "\x00" + strings.Join(w.names, "\x00")))
	w.cache = filepath.Join(cacheDir, "secret-files", hex.EncodeToString(h[:16])+".json")
	if b, err := os.ReadFile(w.cache); err == nil {
		json.Unmarshal(b, &w.old)
	}
}

func (w *secretWalk) keep() {
	if w.cache == "" || !w.changed && len(w.seen) == len(w.old) {
		return
	}
	if b, err := json.Marshal(w.seen); err == nil {
		os.MkdirAll(filepath.Dir(w.cache), 0o700)
		writeAside(w.cache, b)
	}
}

// walk reads the tree breadth first, within the budget, the folders the
// last walk read before new ones: those were within the budget then, so a
// command that makes thousands of folders does not push a folder the last
// walk read, and the secret in it, out of this one.
func (w *secretWalk) walk(top string) {
	type item struct {
		dir      string
		inHidden bool
	}
	known, fresh := []item{{top, false}}, []item(nil)
	for len(known)+len(fresh) > 0 {
		if w.budget == 0 {
			return
		}
		var it item
		if len(known) > 0 {
			it, known = known[0], known[1:]
		} else {
			it, fresh = fresh[0], fresh[1:]
		}
		w.budget--
		f, ok := w.visit(it.dir, it.inHidden)
		if !ok {
			continue
		}
		for _, n := range f.Folders {
			child := item{filepath.Join(it.dir, n), it.inHidden || strings.HasPrefix(n, ".")}
			if _, ok := w.old[child.dir]; ok {
				known = append(known, child)
			} else {
				fresh = append(fresh, child)
			}
		}
	}
}

// visit is one folder's entry: kept from an earlier walk when the folder
// has not changed since, read again otherwise.
func (w *secretWalk) visit(dir string, inHidden bool) (walkedFolder, bool) {
	st, err := os.Stat(dir)
	if err != nil {
		return walkedFolder{}, false
	}
	ctime := changedAt(st)
	f, ok := w.old[dir]
	if !ok || f.CTime != ctime.UnixNano() || w.now.Sub(ctime) < time.Second {
		if f, ok = w.read(dir, inHidden); !ok {
			return walkedFolder{}, false
		}
		f.CTime, w.changed = ctime.UnixNano(), true
	}
	w.seen[dir] = f
	for _, n := range f.Found {
		w.found = append(w.found, filepath.Join(dir, n))
	}
	for _, n := range f.Hidden {
		w.hidden = append(w.hidden, filepath.Join(dir, n))
	}
	return f, true
}

// read lists a folder's secret entries, its hidden entries (but inside a
// hidden folder, which holds them), and the subfolders to walk.
func (w *secretWalk) read(dir string, inHidden bool) (walkedFolder, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return walkedFolder{}, false
	}
	var f walkedFolder
	for _, e := range entries {
		n := e.Name()
		if !inHidden && (strings.HasPrefix(n, ".") && n != ".git" || n == "rein.jsonnet" && dir != w.top) {
			f.Hidden = append(f.Hidden, n)
		}
		if slices.ContainsFunc(w.names, func(g string) bool { ok, _ := filepath.Match(g, n); return ok }) {
			// Not a link: a mount would cover where it leads, and
			// vetting refuses reading through it.
			if e.Type()&os.ModeSymlink == 0 {
				f.Found = append(f.Found, n)
			}
			continue
		}
		if e.IsDir() && !secretWalkSkip[n] {
			f.Folders = append(f.Folders, n)
		}
	}
	return f, true
}

// revealed reports whether p is one of the paths the command is granted
// (Config.Reveal: * may stand in the last part).
func revealed(p string, reveal []string) bool {
	return slices.ContainsFunc(reveal, func(r string) bool {
		ok, _ := filepath.Match(r, p)
		return ok || within(p, r)
	})
}

// gitAdmin are the entries of the workspace's .git folder that git does
// not write as it works (writes: those it does): hooks, info, worktrees,
// modules, commondir … Nothing when there is no such folder, or no list.
func gitAdmin(workspace string, writes []string) []string {
	if len(writes) == 0 {
		return nil
	}
	dir := filepath.Join(workspace, ".git")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !slices.Contains(writes, e.Name()) && !strings.HasSuffix(e.Name(), ".lock") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	return out
}
