package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

// Repositories below the workspace's top. The person's git finds the
// nearest .git above the folder it runs in, and editors look for
// repositories in the workspace's folders (VS Code one level down, by
// default): a repository a command makes at src/.git, or a folder shaped
// like a bare one, runs its config's programs and its hooks there, outside
// rein. The workspace's own repository is kept file by file (keep.go);
// these are found after each run by a walk of the workspace, and what a
// run made or changed in them that names a program is taken back.

// nestedWalkMax bounds the folders one walk reads (about 10 µs each): a
// walk stops there rather than slow every command in a huge tree.
const nestedWalkMax = 20000

// nestedSlack is how far before a run's start a change still counts as the
// run's: file systems stamp times from a coarse clock.
const nestedSlack = time.Second

// maxNotes bounds the lines one walk adds to a command's output.
const maxNotes = 20

// nestedSkip are folders the walk does not enter: package managers' trees,
// which editors do not scan for repositories either.
var nestedSkip = map[string]bool{"node_modules": true}

// nestedRepositories walks the workspace for repositories below its top
// that changed since the run started and returns a note for each thing it
// took back.
func (r *Runner) nestedRepositories(start, fence time.Time, hiddenBefore []string) []string {
	k := r.kept.find(r)
	if !k.walkNested {
		return nil
	}
	w := nestedWalk{r: r, since: start.Add(-nestedSlack), fence: fence, own: k.gitDir, budget: nestedWalkMax}
	w.before = hiddenBefore
	w.gitAdmin()
	w.folder(r.workspace, true)
	if n := len(w.notes); n > maxNotes {
		w.notes = append(w.notes[:maxNotes], fmt.Sprintf("rein: and %d more like these", n-maxNotes))
	}
	if w.budget == 0 {
		w.notes = append(w.notes, fmt.Sprintf("rein: the workspace has more than %d folders, and rein looked at only that many for hidden files, recipes and repositories the command may have made, which programs you run later read: look at what it made before you run them (git status --ignored)", nestedWalkMax))
	}
	return w.notes
}

// gitAdmin takes back the entries of the workspace's own .git that git
// does not write as it works (recipe.GitWrites) and that the run made or
// renamed: a repository for a submodule in modules/, a worktree's
// commondir, an info/attributes.
func (w *nestedWalk) gitAdmin() {
	// A repository the run made (git init) is git's own; its hooks and
	// config are checked as a nested one's are.
	if w.own == "" {
		return
	}
	if t, ok := madeAt(w.own); ok && t.After(w.fence) {
		return
	}
	entries, err := os.ReadDir(w.own)
	if err != nil {
		return
	}
	// What rein keeps file by file (hooks, commondir, config.worktree) it
	// has put back already.
	k := w.r.kept.find(w.r)
	keptHere := map[string]bool{}
	for _, list := range [][]kept{k.files, k.agent, k.configs, k.folders} {
		for _, f := range list {
			keptHere[f.path] = true
		}
	}
	for _, e := range entries {
		p := filepath.Join(w.own, e.Name())
		switch {
		case keptHere[p]:
		case slices.Contains(recipe.GitWrites, e.Name()) || strings.HasSuffix(e.Name(), ".lock") || strings.HasSuffix(e.Name(), ".rejected"):
		case e.Name() == "modules" || e.Name() == "worktrees" || e.Name() == "info":
			// Where one was there before (and not mounted read-only,
			// without namespaces), what the run made in it.
			if w.made(p) {
				w.takeBack(p)
				continue
			}
			sub, _ := os.ReadDir(p)
			for _, s := range sub {
				if q := filepath.Join(p, s.Name()); !strings.HasSuffix(s.Name(), ".rejected") && w.made(q) {
					w.takeBack(q)
				}
			}
		case w.made(p):
			w.takeBack(p)
		}
	}
}

// made reports whether the run made p, or renamed or linked it there: it
// was made after the run started, or it changed then and was not there
// as the run started (before, where rein looked).
func (w *nestedWalk) made(p string) bool {
	st, err := os.Lstat(p)
	if err != nil || !changedAt(st).After(w.fence) {
		return false
	}
	if t, ok := madeAt(p); ok && t.After(w.fence) {
		return true
	}
	return w.before != nil && !slices.Contains(w.before, p)
}

type nestedWalk struct {
	r     *Runner
	since time.Time
	// fence is the file clock's time as the run started (fileClock): what
	// has a later time, the run made or changed.
	fence time.Time
	// before are the hidden entries as the run started (sandbox Hidden;
	// nil where rein did not look).
	before []string
	own    string // the workspace's repository, kept on its own
	budget int
	notes  []string
}

func (w *nestedWalk) folder(dir string, top bool) {
	if w.budget == 0 {
		return
	}
	w.budget--
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	names := map[string]bool{}
	for _, e := range entries {
		names[e.Name()] = true
	}
	// A folder shaped like a bare repository is one to a git started in it.
	if !top && names["HEAD"] && names["objects"] && names["refs"] && dir != w.own {
		w.repository(dir)
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case e.Name() == ".git":
			if !top {
				w.dotGit(p)
			}
		case (recipe.HiddenName(e.Name()) || e.Name() == "rein.jsonnet" && !top) && w.runsLater(p):
			w.takeBack(p)
		case e.IsDir() && !nestedSkip[e.Name()]:
			w.folder(p, false)
		}
	}
}

// runsLater reports whether the run made p, a hidden entry or a recipe
// below the top, that commands may not write (sandbox.hidden_write).
func (w *nestedWalk) runsLater(p string) bool {
	if st, err := os.Lstat(p); err != nil || !changedAt(st).After(w.fence) {
		return false
	}
	if rel, err := filepath.Rel(w.r.workspace, p); err != nil || filepath.Base(p) != "rein.jsonnet" && recipe.HiddenWritableAt(rel, w.r.recipe.Sandbox.HiddenWrite) {
		return false
	}
	return true
}

// takeBack takes out of the workspace a hidden entry or recipe the run
// made, which a program the person runs later would read: direnv an
// .envrc, git a hooks folder, an agent its settings, rein a recipe. One the
// run only changed (where the command had no namespaces to keep it
// read-only) is left, and said.
func (w *nestedWalk) takeBack(p string) {
	if !w.made(p) {
		w.notes = append(w.notes, fmt.Sprintf("rein: the command changed %s, which programs you run later read (hidden files, recipes); rein cannot put it back here: look at it before you run them", p))
		return
	}
	w.notes = append(w.notes, w.r.reject(p, "which programs you run later read (hidden files, recipes), outside rein"))
}

// reject moves what a command made out of the workspace, into rein's state
// folder (where no command may write: left in the workspace, a later
// command could move it back), and says where; where it cannot be moved
// there (another file system), it is removed. Both go through the
// workspace's folders by descriptor, following no link out of it: a
// folder on the way that became a link leads nowhere.
func (r *Runner) reject(p, why string) string {
	rel, err := filepath.Rel(r.workspace, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("rein: the command made %s, %s; rein left it, as it is not inside the workspace", p, why)
	}
	root, err := os.OpenRoot(r.workspace)
	if err != nil {
		return fmt.Sprintf("rein: the command made %s, %s, and rein could not take it away: %v; remove it before you run anything there", p, why, err)
	}
	defer root.Close()
	if state := recipe.StateDir(); state != "" {
		dest := filepath.Join(state, "rejected", time.Now().Format("20060102-150405.000000"), rel)
		if os.MkdirAll(filepath.Dir(dest), 0o700) == nil && moveOut(root, rel, dest) == nil {
			return fmt.Sprintf("rein: the command made %s, %s; rein moved it to %s (sandbox.hidden_write lets commands write it)", p, why, dest)
		}
	}
	if err := root.RemoveAll(rel); err != nil {
		return fmt.Sprintf("rein: the command made %s, %s, and rein could not take it away: %v; remove it before you run anything there", p, why, err)
	}
	return fmt.Sprintf("rein: the command made %s, %s; rein removed it (sandbox.hidden_write lets commands write it)", p, why)
}

// new reports whether path changed since the run started.
func (w *nestedWalk) new(path string) bool {
	st, err := os.Lstat(path)
	return err == nil && !changedAt(st).Before(w.since)
}

// dotGit looks at a .git below the top: a folder is a repository; a file
// or link naming another folder is removed unless it names one of the
// workspace's own repository's (a submodule, a linked worktree).
func (w *nestedWalk) dotGit(path string) {
	st, err := os.Lstat(path)
	if err != nil {
		return
	}
	if st.IsDir() {
		w.repository(path)
		return
	}
	if !w.new(path) {
		return
	}
	if st.Mode().IsRegular() && w.own != "" {
		if b, err := os.ReadFile(path); err == nil && len(b) < 4096 {
			if target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:"); ok {
				target = strings.TrimSpace(target)
				if !filepath.IsAbs(target) {
					target = filepath.Join(filepath.Dir(path), target)
				}
				// Into the workspace's own repository, to what is there
				// (a submodule's folder in modules/ the run did not make).
				if _, err := os.Stat(target); err == nil && policy.Inside(filepath.Clean(target), w.own) {
					return
				}
			}
		}
	}
	note := fmt.Sprintf("rein: the command made %s, which sends git there to another folder's config and hooks, outside rein; rein removed it", path)
	if err := w.r.removeBeneath(path); err != nil {
		note = fmt.Sprintf("rein: the command made %s, which sends git to another folder's config and hooks, and rein could not remove it: %v; remove it before you run git there", path, err)
	}
	w.notes = append(w.notes, note)
}

// repository takes back, from a repository the run made or changed, what
// makes git run a program: config entries, hooks, and a commondir that
// sends git elsewhere.
func (w *nestedWalk) repository(dir string) {
	config, worktree, commondir, hooks := filepath.Join(dir, "config"), filepath.Join(dir, "config.worktree"), filepath.Join(dir, "commondir"), filepath.Join(dir, "hooks")
	if !w.new(dir) && !w.new(config) && !w.new(worktree) && !w.new(commondir) && !w.new(hooks) {
		return
	}
	for _, c := range []string{config, worktree} {
		if !w.new(c) && !w.new(dir) {
			continue
		}
		// A config that is a link is not read (it may lead to a secret,
		// and what rein says about it would tell): git would read where
		// it leads, so it goes.
		if st, err := os.Lstat(c); err == nil && st.Mode()&os.ModeSymlink != 0 {
			w.remove(c, "a link: git reads the config where it leads")
			continue
		}
		now := copyOf(c)
		added := w.r.codeEntries(now, fileCopy{})
		if len(added) == 0 {
			continue
		}
		note := fmt.Sprintf("rein: the command left %s setting %s there, keys that can make git run programs outside rein; rein took the file back", c, strings.Join(added, ", "))
		if now.exists && now.mode.IsRegular() && keepAside(c, now.data) {
			note += ", keeping it in " + c + ".rejected"
		}
		if err := os.Remove(c); err != nil {
			note = fmt.Sprintf("rein: the command left %s setting %s, and rein could not take it back: %v; remove it before you run git there", c, strings.Join(added, ", "), err)
		}
		w.notes = append(w.notes, note)
	}
	if w.new(commondir) {
		w.remove(commondir, "git reads config and hooks from the folder it names")
	}
	if st, err := os.Lstat(hooks); err == nil && !st.IsDir() {
		w.remove(hooks, "git runs the hooks it leads to")
		return
	}
	entries, _ := os.ReadDir(hooks)
	for _, e := range entries {
		if p := filepath.Join(hooks, e.Name()); !strings.HasSuffix(e.Name(), ".sample") && w.new(p) {
			w.remove(p, "git runs its hooks outside rein")
		}
	}
}

func (w *nestedWalk) remove(path, why string) {
	note := fmt.Sprintf("rein: the command made %s (%s); rein removed it", path, why)
	if err := w.r.removeBeneath(path); err != nil {
		note = fmt.Sprintf("rein: the command made %s (%s) and rein could not remove it: %v; remove it before you run git there", path, why, err)
	}
	w.notes = append(w.notes, note)
}

// removeBeneath removes p, in the workspace, going through its folders by
// descriptor: a folder on the way that a command made a link leads
// nowhere, rather than to what rein would then remove elsewhere.
func (r *Runner) removeBeneath(p string) error {
	rel, err := filepath.Rel(r.workspace, p)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Errorf("%s is not inside the workspace", p)
	}
	root, err := os.OpenRoot(r.workspace)
	if err != nil {
		return err
	}
	defer root.Close()
	return root.RemoveAll(rel)
}
