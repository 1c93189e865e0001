package runner

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// What a command may not change, even where the sandbox lets it write (a
// workspace is writable as a whole, and macOS and Windows have no sandbox):
// the files that decide what runs later, outside this command. rein's recipe
// (and what it imports) is the policy of the next run; the repository's
// hooks, and the config entries that name programs, run on the user's next
// git command. Each run notes them before and puts back what the run
// changed, saying so.

// keptFiles are the places a runner keeps, found once.
type keptFiles struct {
	once   sync.Once
	recipe []string // recipe sources and imports
	config string   // the workspace repository's config
	hooks  string   // and its hooks folder
}

func (k *keptFiles) find(r *Runner) *keptFiles {
	k.once.Do(func() {
		for _, s := range r.recipe.Sources {
			if !strings.HasPrefix(s, "builtin:") {
				k.recipe = append(k.recipe, s)
			}
		}
		k.recipe = append(k.recipe, r.recipe.Imports...)
		k.recipe = append(k.recipe, r.recipe.Scripts...)
		if dir := gitDir(r.workspace); dir != "" {
			k.config, k.hooks = filepath.Join(dir, "config"), filepath.Join(dir, "hooks")
		}
	})
	return k
}

// gitDir is the folder of the repository holding dir: its .git folder, or
// the one a .git file names.
func gitDir(dir string) string {
	top := workingTree(dir)
	if top == "" {
		return ""
	}
	dotgit := filepath.Join(top, ".git")
	st, err := os.Stat(dotgit)
	if err != nil {
		return ""
	}
	if st.IsDir() {
		return dotgit
	}
	b, err := os.ReadFile(dotgit)
	if err != nil {
		return ""
	}
	target, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir:")
	if !ok {
		return ""
	}
	target = strings.TrimSpace(target)
	if !filepath.IsAbs(target) {
		target = filepath.Join(top, target)
	}
	return filepath.Clean(target)
}

// fileCopy is a file as a run found it (absent: exists is false), with
// the folder it is in as the path resolved then.
type fileCopy struct {
	path, dir string
	exists    bool
	data      []byte // what reading it gives (through a link too)
	mode      fs.FileMode
}

func copyOf(path string) fileCopy {
	c := fileCopy{path: path}
	c.dir, _ = filepath.EvalSymlinks(filepath.Dir(path))
	st, err := os.Lstat(path)
	if err != nil {
		return c
	}
	c.exists, c.mode = true, st.Mode()
	if !st.IsDir() {
		c.data, _ = os.ReadFile(path)
	}
	return c
}

func (c fileCopy) same(now fileCopy) bool {
	return c.exists == now.exists && c.mode == now.mode && bytes.Equal(c.data, now.data)
}

// putBack makes the file what it was. Only in the folder it was in: a run
// that replaced the folder with a link would have rein, which no sandbox
// holds, remove or write files wherever the link leads. The file is removed
// first, so that a link the run left there is not followed.
func (c fileCopy) putBack() error {
	if dir, _ := filepath.EvalSymlinks(filepath.Dir(c.path)); dir != c.dir {
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

// keeping is what one run noted before it started.
type keeping struct {
	recipe []fileCopy
	config fileCopy
	hooks  fileCopy            // the folder
	inside string              // the hooks folder, resolved
	hooked map[string]fileCopy // the hooks there were (samples aside: git never runs them)
}

// keep notes the kept files before a run.
func (r *Runner) keep() *keeping {
	k := r.kept.find(r)
	kp := &keeping{}
	for _, p := range k.recipe {
		kp.recipe = append(kp.recipe, copyOf(p))
	}
	if k.config != "" {
		kp.config, kp.hooks = copyOf(k.config), copyOf(k.hooks)
		kp.inside, _ = filepath.EvalSymlinks(k.hooks)
		kp.hooked = hooksIn(k.hooks)
	}
	return kp
}

func hooksIn(dir string) map[string]fileCopy {
	entries, _ := os.ReadDir(dir)
	hooks := map[string]fileCopy{}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sample") {
			hooks[e.Name()] = copyOf(filepath.Join(dir, e.Name()))
		}
	}
	return hooks
}

// restore puts back what the run changed and returns a note for each
// change, for the command's stderr.
func (r *Runner) restore(kp *keeping) string {
	var notes []string
	undo := func(c fileCopy, what string) {
		note := fmt.Sprintf("rein: the command changed %s (%s); rein put it back", c.path, what)
		if now := copyOf(c.path); now.exists && now.mode.IsRegular() && c.exists && now.dir == c.dir {
			// Keep the changed text beside it: a person may have been
			// editing it while the command ran.
			if keepAside(c.path, now.data) {
				note += ", keeping the changed version in " + c.path + ".rejected"
			}
		}
		if err := c.putBack(); err != nil {
			note = fmt.Sprintf("rein: the command changed %s (%s) and rein could not put it back: %v; look at it before you run git or rein again", c.path, what, err)
		}
		notes = append(notes, note)
	}
	for _, c := range kp.recipe {
		if !c.same(copyOf(c.path)) {
			undo(c, "the recipe or a script it allows: they decide what the next run may do")
		}
	}
	if kp.config.path != "" {
		if now := copyOf(kp.config.path); !kp.config.same(now) {
			if added := r.codeEntries(now, kp.config); len(added) > 0 {
				undo(kp.config, "it now makes git run "+strings.Join(added, ", "))
			}
		}
		if now := copyOf(kp.hooks.path); now.exists && now.mode != kp.hooks.mode {
			// The folder itself was replaced (by a link to other hooks):
			// remove what is there, make the folder again.
			undo(kp.hooks, "git's hooks folder: git runs what is in it outside rein")
			if kp.hooks.mode.IsDir() && os.Mkdir(kp.hooks.path, kp.hooks.mode.Perm()) == nil {
				for _, c := range kp.hooked {
					c.putBack()
				}
			}
			return strings.Join(notes, "\n") + "\n"
		}
		now := hooksIn(kp.hooks.path)
		for name, c := range kp.hooked {
			if !c.same(now[name]) {
				undo(c, "a git hook: git runs it outside rein")
			}
		}
		for name, c := range now {
			if _, ok := kp.hooked[name]; !ok {
				undo(fileCopy{path: c.path, dir: kp.inside}, "a new git hook: git would run it outside rein")
			}
		}
	}
	if len(notes) == 0 {
		return ""
	}
	return strings.Join(notes, "\n") + "\n"
}

// codeEntries are the entries of a git config, now, that name a program to
// run and were not in it before. git itself reads both files (so nothing
// it would read is missed); without git, any change counts.
func (r *Runner) codeEntries(now, before fileCopy) []string {
	if !now.exists {
		return nil
	}
	after, err := r.gitConfigList(now.data)
	if err != nil {
		return []string{"commands rein cannot check (" + err.Error() + ")"}
	}
	var was []string
	if before.exists {
		if was, err = r.gitConfigList(before.data); err != nil {
			was = nil
		}
	}
	var added []string
	for _, e := range after {
		if key, value, _ := strings.Cut(e, "\n"); runsCode(key, value) && !slices.Contains(was, e) {
			added = append(added, key)
		}
	}
	return added
}

// gitConfigList lists a config's entries ("key\nvalue") as git reads them,
// without following includes (include.path is itself an entry that counts).
func (r *Runner) gitConfigList(data []byte) ([]string, error) {
	git, err := exec.LookPath("git")
	if err != nil {
		return nil, err
	}
	f, err := os.CreateTemp("", "rein-gitconfig-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, werr := f.Write(data)
	if cerr := f.Close(); werr != nil || cerr != nil {
		return nil, fmt.Errorf("cannot copy the config: %v %v", werr, cerr)
	}
	cmd := exec.Command(git, "config", "--no-includes", "--file", f.Name(), "--list", "-z")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1", "HOME=" + os.TempDir()}
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cannot read it: %v", err)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), nil
}

// runsCode reports whether a git config entry names a program git runs (or
// a file of more config): the entries a change to a repository's config
// must not add.
func runsCode(key, value string) bool {
	key = strings.ToLower(key)
	section, rest, _ := strings.Cut(key, ".")
	name := rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		name = rest[i+1:]
	}
	switch section {
	case "alias":
		return strings.HasPrefix(strings.TrimSpace(value), "!") // others are git's own commands
	case "include", "includeif", "pager", "filter", "browser", "man", "difftool", "mergetool", "gpg":
		return true
	case "core":
		switch name {
		case "fsmonitor", "pager", "editor", "sshcommand", "hookspath", "askpass", "gitproxy", "alternaterefscommand", "worktree":
			return true
		}
	case "diff", "merge":
		switch name {
		case "external", "command", "textconv", "driver", "tool":
			return true
		}
	case "credential":
		return name == "helper"
	case "remote":
		switch name {
		case "uploadpack", "receivepack", "vcs", "proxy":
			return true
		}
	case "submodule":
		return name == "update"
	case "sequence":
		return name == "editor"
	case "uploadpack":
		return name == "packobjectshook"
	case "protocol", "url":
		return true // ext:: transports run commands
	case "sendemail":
		return name == "smtpserver"
	case "interactive":
		return name == "difffilter"
	case "web":
		return name == "browser"
	case "extensions":
		return name == "worktreeconfig" // config.worktree files are read then
	}
	return false
}
