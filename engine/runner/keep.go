package runner

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/sandbox"
)

// What a command may not change, even where the sandbox lets it write (a
// workspace is writable as a whole, and macOS and Windows have no sandbox):
// the files that decide what runs later, outside this command. rein's recipe
// (and what it imports, the scripts it allows) is the policy of the next
// run; the repository's hooks, and git config entries that name programs,
// run on the user's next git command; without a sandbox, the shell's
// start-up files and the folders of programs started at login run on the
// user's next shell or login. Each run notes them before and puts back what
// the run changed, saying so.

// keptFiles are the places a runner keeps, found once.
type keptFiles struct {
	once  sync.Once
	files []kept // kept whole
	agent []kept // kept whole, never mounted read-only
	// gitFile is the workspace's .git where there was none: one a command
	// makes as a file or a link (gitdir: ELSEWHERE) is removed.
	gitFile string
	// gitDir is the workspace's repository (or where one would be made);
	// ceiling is the folder above its working tree, where git started by
	// a command stops looking for one.
	gitDir, ceiling string
	// walkNested: commands can write the workspace, so each run looks for
	// repositories made or changed below its top (nested.go).
	walkNested bool
	configs    []kept // git configs: kept from naming new programs
	folders    []kept // kept from new or changed entries
	// readOnly and pin are what the sandbox's own mount namespace, where
	// there is one, keeps the command from changing at all (sandbox.Config).
	readOnly, pin []string
	// git reads configs for rein (trustedGit).
	gitOnce sync.Once
	git     string
}

// kept is one kept place and why it is kept; skip leaves entries of a
// folder out (git never runs a hook named *.sample).
type kept struct {
	path, why string
	skip      func(name string) bool
}

func (k *keptFiles) find(r *Runner) *keptFiles {
	k.once.Do(func() { k.collect(r.recipe, r.workspace, r.sandbox) })
	return k
}

func (k *keptFiles) collect(rec *recipe.Recipe, workspace string, box *sandbox.Config) {
	policy := "the recipe or a script it allows: they decide what the next run may do"
	for _, s := range rec.Sources {
		if !strings.HasPrefix(s, "builtin:") {
			k.files = append(k.files, kept{path: s, why: policy})
		}
	}
	for _, p := range append(append([]string(nil), rec.Imports...), rec.Scripts...) {
		k.files = append(k.files, kept{path: p, why: policy})
	}
	// The workspace's repository, or the one a command may make there.
	dir := gitDir(workspace)
	if dir == "" {
		dir = filepath.Join(workspace, ".git")
	}
	k.gitDir = dir
	k.walkNested = box.Writable(workspace)
	if top := workingTree(workspace); top != "" {
		k.ceiling = filepath.Dir(realFolder(top))
	} else {
		k.ceiling = filepath.Dir(realFolder(workspace))
	}
	sample := func(name string) bool { return strings.HasSuffix(name, ".sample") }
	k.configs = append(k.configs, kept{path: filepath.Join(dir, "config")}, kept{path: filepath.Join(dir, "config.worktree")})
	k.folders = append(k.folders, kept{path: filepath.Join(dir, "hooks"), why: "git runs its hooks outside rein", skip: sample})
	// A .git made at the workspace's top (a folder, or a file saying
	// gitdir: ELSEWHERE) becomes the repository git reads config and hooks
	// from there, in place of the one above it or of none.
	// A repository a command makes there is kept as the workspace's own
	// (its config may not name programs, its hooks are put back); a .git
	// that is a file or a link is removed.
	if _, err := os.Lstat(filepath.Join(workspace, ".git")); errors.Is(err, fs.ErrNotExist) {
		k.gitFile = filepath.Join(workspace, ".git")
		if made := filepath.Join(workspace, ".git"); made != dir {
			k.configs = append(k.configs, kept{path: filepath.Join(made, "config")}, kept{path: filepath.Join(made, "config.worktree")})
			k.folders = append(k.folders, kept{path: filepath.Join(made, "hooks"), why: "git runs its hooks outside rein", skip: sample})
		}
	}
	// commondir sends git to another folder's config and hooks; the hooks
	// folder core.hooksPath names (husky's .husky/_) runs as .git/hooks does.
	k.files = append(k.files, kept{path: filepath.Join(dir, "commondir"), why: "git reads its config and hooks from the folder it names"})
	top := workingTree(workspace)
	if top == "" {
		top = workspace
	}
	if hooks := hooksPath(filepath.Join(dir, "config"), top); hooks != "" {
		k.folders = append(k.folders, kept{path: hooks, why: "git runs the hooks there outside rein (core.hooksPath)", skip: sample})
	}
	// Submodules' repositories (git status in the workspace runs git in
	// each, with its config and hooks) and linked worktrees' configs.
	for _, sub := range submoduleGitDirs(dir) {
		k.configs = append(k.configs, kept{path: filepath.Join(sub, "config")}, kept{path: filepath.Join(sub, "config.worktree")})
		k.folders = append(k.folders, kept{path: filepath.Join(sub, "hooks"), why: "git runs a submodule's hooks outside rein", skip: sample})
	}
	if linked, err := filepath.Glob(filepath.Join(dir, "worktrees", "*", "HEAD")); err == nil {
		for _, head := range linked[:min(len(linked), maxKeptRepositories)] {
			k.configs = append(k.configs, kept{path: filepath.Join(filepath.Dir(head), "config.worktree")})
		}
	}
	// Agents' and editors' configuration in the workspace: it decides what
	// the agent that calls rein (or the editor that opens the folder)
	// runs next, outside rein. Kept, not mounted read-only: a checkout of
	// another branch may change a tracked one, and is then put back.
	agent := "agents and editors run what it says, outside rein"
	for _, name := range recipe.AgentConfig {
		k.agent = append(k.agent, kept{path: filepath.Join(workspace, filepath.FromSlash(name)), why: agent})
	}
	if box == nil || box.Mode == "off" {
		k.keepStartup()
	}
	k.mountable(box, dir, workspace)
}

// mountable picks, of the kept places a command could write, those the
// sandbox's mount namespace makes read-only: the recipe's files, the hooks,
// and a .git file (it names the repository's folder). The repository's
// config stays writable (git writes a new branch's upstream there; rein
// takes back only entries that run programs), and its folder is pinned, so
// that it cannot be moved aside and remade without read-only hooks.
func (k *keptFiles) mountable(box *sandbox.Config, gitDir, workspace string) {
	for _, list := range [][]kept{k.files, k.folders} {
		for _, f := range list {
			if box.Writable(f.path) {
				k.readOnly = append(k.readOnly, f.path)
			}
		}
	}
	if top := workingTree(workspace); top != "" {
		if dotgit := filepath.Join(top, ".git"); dotgit != gitDir && box.Writable(dotgit) {
			k.readOnly = append(k.readOnly, dotgit)
		}
	}
	if box.Writable(gitDir) {
		k.pin = append(k.pin, gitDir)
	}
}

// Kept lists the places a run under this recipe and sandbox puts back when
// a command changed them (for rein doctor).
func Kept(rec *recipe.Recipe, box *sandbox.Config) []string {
	var k keptFiles
	k.collect(rec, rec.Workspace, box)
	var out []string
	for _, list := range [][]kept{k.files, k.agent, k.configs, k.folders} {
		for _, p := range list {
			out = append(out, p.path)
		}
	}
	return out
}

// ReadOnly lists the kept places a command under this sandbox cannot
// change at all: the sandbox mounts them read-only (for rein doctor).
func ReadOnly(rec *recipe.Recipe, box *sandbox.Config) []string {
	if box == nil || !box.Isolate {
		return nil
	}
	var k keptFiles
	k.collect(rec, rec.Workspace, box)
	return k.readOnly
}

// fileCopy is a file as a run found it (absent: exists is false), with
// the folder it is in as the path resolved then.
type fileCopy struct {
	path, dir string
	exists    bool
	data      []byte // what reading it gives (through a link too)
	mode      fs.FileMode
	// unread: not a folder, but not a small file either (a named pipe, a
	// link to /dev/zero, a file grown huge), so not read: reading could
	// block rein or fill its memory.
	unread bool
}

// keptMax bounds what rein reads of a kept file: recipes, hooks and
// configs are small.
const keptMax = 1 << 20

func copyOf(path string) fileCopy {
	c := fileCopy{path: path, dir: realFolder(filepath.Dir(path))}
	st, err := os.Lstat(path)
	if err != nil {
		return c
	}
	c.exists, c.mode = true, st.Mode()
	if st.IsDir() {
		return c
	}
	if target, err := os.Stat(path); err != nil || !target.Mode().IsRegular() || target.Size() > keptMax {
		c.unread = true
		return c
	}
	if f, err := os.Open(path); err == nil {
		c.data, err = io.ReadAll(io.LimitReader(f, keptMax+1))
		f.Close()
		c.unread = err != nil || len(c.data) > keptMax
	}
	return c
}

func (c fileCopy) same(now fileCopy) bool {
	return c.exists == now.exists && c.mode == now.mode && !now.unread && bytes.Equal(c.data, now.data)
}

// putBack makes the file what it was. Only in the folder it was in: a run
// that replaced the folder with a link would have rein, which no sandbox
// holds, remove or write files wherever the link leads. The file is removed
// first, so that a link the run left there is not followed.
func (c fileCopy) putBack() error {
	if realFolder(filepath.Dir(c.path)) != c.dir {
		return fmt.Errorf("its folder is no longer %s", c.dir)
	}
	if err := os.RemoveAll(c.path); err != nil && !os.IsNotExist(err) {
		return err
	}
	if !c.exists || !c.mode.IsRegular() {
		return nil // a link or folder that was there is not remade
	}
	return os.WriteFile(c.path, c.data, c.mode.Perm())
}

// realFolder is dir with links resolved, as far as it exists (a folder
// the run may create is where it would be); "" when it cannot be resolved.
func realFolder(dir string) string {
	real, err := policy.ResolveExisting(dir)
	if err != nil {
		return ""
	}
	return real
}

// keepAside writes the changed text beside the file (path.rejected), never
// through a link the run left at that name.
func keepAside(path string, data []byte) bool {
	aside := path + ".rejected"
	if err := os.Remove(aside); err != nil && !os.IsNotExist(err) {
		return false
	}
	f, err := os.OpenFile(aside, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false
	}
	_, werr := f.Write(data)
	return f.Close() == nil && werr == nil
}

// folderCopy is a kept folder as a run found it: the folder itself, where
// it led, and its entries.
type folderCopy struct {
	kept
	self    fileCopy
	inside  string
	entries map[string]fileCopy
}

func folderOf(k kept) folderCopy {
	f := folderCopy{kept: k, self: copyOf(k.path), inside: realFolder(k.path)}
	f.entries = f.list()
	return f
}

func (f folderCopy) list() map[string]fileCopy {
	entries, _ := os.ReadDir(f.path)
	out := map[string]fileCopy{}
	for _, e := range entries {
		if f.skip == nil || !f.skip(e.Name()) {
			out[e.Name()] = copyOf(filepath.Join(f.path, e.Name()))
		}
	}
	return out
}

// keeping is what one run noted before it started.
type keeping struct {
	start time.Time
	// fence is the time the kernel stamps files with, as the run
	// started: what has a later time, the run made or changed.
	fence time.Time
	// hidden: the workspace's hidden entries as the run started
	// (sandbox.Config.Hidden), nil where rein does not mount them.
	hidden  []string
	files   []keptCopy
	configs []fileCopy
	folders []folderCopy
}

// keptCopy is a kept file as a run found it, and why it is kept.
type keptCopy struct {
	fileCopy
	why string
}

// keep notes the kept files before a run.
func (r *Runner) keep() *keeping {
	r.inFlight.mu.Lock()
	defer r.inFlight.mu.Unlock()
	if r.inFlight.n == 0 {
		r.inFlight.kp = r.snapshot()
	}
	r.inFlight.n++
	return r.inFlight.kp
}

// inFlight counts the runs going on at once on a runner (rein mcp's calls,
// rein ask's parallel tools). They share one snapshot, taken when the first
// starts, and what they changed is put back when the last ends: a snapshot
// taken while another run was changing the files held that change, and its
// put-back put it there again.
type inFlight struct {
	mu sync.Mutex
	n  int
	kp *keeping
}

// snapshot copies what a run must not change.
func (r *Runner) snapshot() *keeping {
	k := r.kept.find(r)
	kp := &keeping{start: time.Now(), fence: fileClock(), hidden: r.sandbox.Hidden()}
	// A file rein could not read before the run cannot be put back.
	for _, f := range append(k.files[:len(k.files):len(k.files)], k.agent...) {
		if c := copyOf(f.path); !c.unread {
			kp.files = append(kp.files, keptCopy{c, f.why})
		}
	}
	for _, f := range k.configs {
		if c := copyOf(f.path); !c.unread {
			kp.configs = append(kp.configs, c)
		}
	}
	for _, f := range k.folders {
		kp.folders = append(kp.folders, folderOf(f))
	}
	return kp
}

// restore ends a run that keep started: the last of the runs in flight
// puts back what they changed and returns a note for each change, for the
// command's stderr; the others return "".
func (r *Runner) restore(kp *keeping) string {
	r.inFlight.mu.Lock()
	defer r.inFlight.mu.Unlock()
	if r.inFlight.n--; r.inFlight.n > 0 {
		return ""
	}
	r.inFlight.kp = nil
	return r.putBack(kp)
}

// putBack puts back what changed since kp was taken, and says what.
func (r *Runner) putBack(kp *keeping) string {
	var notes []string
	undo := func(c fileCopy, what string) {
		did, done := "changed", "put it back"
		switch {
		case !c.exists:
			did, done = "added", "removed it"
		case c.mode.IsDir():
			did, done = "replaced the folder", "made it again"
		}
		note := fmt.Sprintf("rein: the command %s %s (%s); rein %s", did, c.path, what, done)
		if now := copyOf(c.path); now.exists && now.mode.IsRegular() && c.exists && now.dir == c.dir {
			// Keep the changed text beside it: a person may have been
			// editing it while the command ran.
			if keepAside(c.path, now.data) {
				note += ", keeping the changed version in " + c.path + ".rejected"
			}
		}
		if err := c.putBack(); err != nil {
			note = fmt.Sprintf("rein: the command %s %s (%s) and rein could not undo it: %v; look at it before you run git or rein again", did, c.path, what, err)
		}
		notes = append(notes, note)
	}
	for _, c := range kp.files {
		if !c.same(copyOf(c.path)) {
			undo(c.fileCopy, c.why)
		}
	}
	for _, c := range kp.configs {
		if now := copyOf(c.path); !c.same(now) {
			if added := r.codeEntries(now, c); len(added) > 0 {
				undo(c, "it now sets "+strings.Join(added, ", ")+": only data keys may change there, the rest can make git run programs")
			}
		}
	}
	for _, f := range kp.folders {
		if now := copyOf(f.path); now.exists && now.mode != f.self.mode && (f.self.exists || !now.mode.IsDir()) {
			// The folder itself was replaced (by a link to other hooks):
			// remove what is there, make the folder again. (A folder
			// made where there was none is looked into below.)
			undo(f.self, f.why)
			if f.self.mode.IsDir() && os.Mkdir(f.path, f.self.mode.Perm()) == nil {
				for _, c := range f.entries {
					c.putBack()
				}
			}
			continue
		}
		now := f.list()
		for name, c := range f.entries {
			if !c.unread && !c.same(now[name]) {
				undo(c, f.why)
			}
		}
		for name, c := range now {
			if _, ok := f.entries[name]; !ok {
				undo(fileCopy{path: c.path, dir: f.inside}, f.why)
			}
		}
	}
	if g := r.kept.find(r).gitFile; g != "" {
		if st, err := os.Lstat(g); err == nil && !st.IsDir() {
			note := fmt.Sprintf("rein: the command made %s, which sends git to another folder's config and hooks outside rein; rein removed it", g)
			if err := os.Remove(g); err != nil {
				note = fmt.Sprintf("rein: the command made %s, which sends git to another folder's config and hooks, and rein could not remove it: %v; remove it before you run git", g, err)
			}
			notes = append(notes, note)
		}
	}
	notes = append(notes, r.nestedRepositories(kp.start, kp.fence, kp.hidden)...)
	if len(notes) == 0 {
		return ""
	}
	return strings.Join(notes, "\n") + "\n"
}

// hooksPath is the folder a repository's config names as core.hooksPath,
// relative ones from the working tree (as git reads them), or "". It reads
// the file as text: rein does not run git to learn where git's hooks are.
func hooksPath(config, workTree string) string {
	b, err := os.ReadFile(config)
	if err != nil {
		return ""
	}
	section, value := "", ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = ""
			if f := strings.Fields(strings.Trim(line, "[]")); len(f) > 0 {
				section = strings.ToLower(strings.Trim(f[0], `"`))
			}
			continue
		}
		key, v, ok := strings.Cut(line, "=")
		if ok && section == "core" && strings.EqualFold(strings.TrimSpace(key), "hookspath") {
			value = strings.Trim(strings.TrimSpace(v), `"`)
		}
	}
	switch {
	case value == "":
		return ""
	case strings.HasPrefix(value, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		return filepath.Join(home, value[2:])
	case filepath.IsAbs(value):
		return filepath.Clean(value)
	}
	return filepath.Join(workTree, value)
}
