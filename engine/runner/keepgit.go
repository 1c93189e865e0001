package runner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/programs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/policy"
)

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

// maxKeptRepositories bounds the submodules (and linked worktrees) a run
// keeps: each costs a few reads before and after every command.
const maxKeptRepositories = 64

// submoduleGitDirs finds the git folders of the submodules under a
// repository's git folder (modules/NAME, where NAME may hold slashes, and
// their own modules in turn).
func submoduleGitDirs(gitDir string) []string {
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > 8 {
			return
		}
		for _, e := range entries {
			if !e.IsDir() || len(out) == maxKeptRepositories {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if st, err := os.Stat(filepath.Join(p, "HEAD")); err == nil && st.Mode().IsRegular() {
				out = append(out, p)
				walk(filepath.Join(p, "modules"), depth+1)
			} else {
				walk(p, depth+1)
			}
		}
	}
	walk(filepath.Join(gitDir, "modules"), 0)
	return out
}

// codeEntries are the entries of a git config, now, that were not in it
// before and set a key a command may not set (programs.GitRepositoryKey:
// anything but data git reads). git itself reads both files (so nothing
// it would read is missed); without git, any change counts.
func (r *Runner) codeEntries(now, before fileCopy) []string {
	if !now.exists {
		return nil
	}
	if now.unread {
		return []string{"keys rein cannot read (not a small file)"}
	}
	after, err := r.gitConfigList(now.data)
	if err != nil {
		return []string{"keys rein cannot check (" + err.Error() + ")"}
	}
	var was []string
	if before.exists {
		if was, err = r.gitConfigList(before.data); err != nil {
			was = nil
		}
	}
	var added []string
	for _, e := range after {
		if key, _, _ := strings.Cut(e, "\n"); !programs.GitRepositoryKey(key) && !slices.Contains(was, e) {
			added = append(added, key)
		}
	}
	return added
}

// gitConfigList lists a config's entries ("key\nvalue") as git reads them,
// without following includes (include.path is itself an entry that counts).
func (r *Runner) gitConfigList(data []byte) ([]string, error) {
	git := r.trustedGit()
	if git == "" {
		return nil, errors.New("no git outside the folders commands may write")
	}
	// The config goes to git on its standard input: no copy in a temp
	// folder that the sandboxed git may not read, or a command could swap.
	argv := []string{"git", "config", "--no-includes", "--file", "-", "--list", "-z"}
	env := []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=/"}
	ctx, cancel := context.WithTimeout(context.Background(), gitQueryTimeout)
	defer cancel()
	var out, errOut bytes.Buffer
	// Started as every program rein runs is (in the sandbox, if any).
	po, err := r.process(git, argv, env, "/", bytes.NewReader(data), &out, &errOut).run(ctx)
	if err == nil && po.code != 0 {
		err = fmt.Errorf("exit %d: %s", po.code, strings.TrimSpace(errOut.String()))
	}
	if err != nil {
		return nil, fmt.Errorf("git cannot read it: %w", err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00"), nil
}

// trustedGit is the git on rein's PATH that no command could have put
// there: rein runs it unconfined, so a folder inside the workspace or a
// sandbox grant (a PATH entry direnv added, say) does not count.
func (r *Runner) trustedGit() string {
	r.kept.gitOnce.Do(func() {
		writable := []string{r.workspace}
		if r.sandbox != nil {
			writable = append(append(writable, r.sandbox.Write...), r.sandbox.TempDir)
		}
		for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
			if !filepath.IsAbs(dir) || slices.ContainsFunc(writable, func(w string) bool { return w != "" && policy.Inside(dir, w) }) {
				continue
			}
			name := "git"
			if runtime.GOOS == "windows" {
				name = "git.exe"
			}
			if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
				r.kept.git = p
				return
			}
		}
	})
	return r.kept.git
}
