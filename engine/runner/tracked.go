package runner

import (
	"bytes"
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/policy"
)

// Tracked returns a fact for the policy (policy.Options.Tracked): whether
// a file is a script git tracks in the workspace's repository exactly as
// HEAD has it, so that running it runs the repository's code, as npm test
// does, and not something a command wrote a moment ago.
//
// It asks a git found on PATH outside the workspace for the blob HEAD
// holds (git ls-tree, which reads objects only: no filter, hook or
// fsmonitor of the repository's config runs) and compares it with the
// file's own hash. Anything unclear is "not tracked".
func Tracked(workspace string) func(path string) bool {
	git := outsideGit(workspace)
	return func(path string) bool {
		if git == "" || !filepath.IsAbs(path) || !policy.Inside(path, workspace) {
			return false
		}
		real, err := filepath.EvalSymlinks(path)
		if err != nil || real != path && !policy.Inside(real, workspace) {
			return false
		}
		st, err := os.Lstat(path)
		if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
			return false
		}
		f, err := os.Open(path)
		if err != nil {
			return false
		}
		h := sha1.New()
		fmt.Fprintf(h, "blob %d\x00", st.Size())
		_, err = io.Copy(h, io.LimitReader(f, 1<<20))
		f.Close()
		if err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		cmd := quietGit(ctx, git, workspace, "ls-tree", "HEAD", "--", filepath.Base(path))
		cmd.Dir = filepath.Dir(path)
		var out bytes.Buffer
		cmd.Stdout = &out
		if cmd.Run() != nil {
			return false
		}
		// "100755 blob SHA\tNAME"
		fields := strings.Fields(out.String())
		return len(fields) >= 3 && fields[1] == "blob" && fields[2] == fmt.Sprintf("%x", h.Sum(nil))
	}
}

// Untracked returns a fact for the sandbox (sandbox.Options.Untracked):
// which of the workspace's secret files are not in the repository as they
// are. One HEAD holds with the same content is the repository's, for anyone
// with it to read (a Vite project's committed .env of defaults), and a
// build may need it; any other is the person's own. HEAD, not the index,
// and the file's content, not its name: a command can stage or commit a
// name, but not the content it cannot read. Anything unclear counts as
// the person's.
func Untracked(workspace string) func(paths []string) []string {
	return func(paths []string) []string {
		git := outsideGit(workspace)
		if git == "" || len(paths) == 0 {
			return paths
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		top := gitTop(ctx, git, workspace)
		if top == "" {
			return paths
		}
		args := []string{"ls-tree", "-z", "--full-tree", "HEAD", "--"}
		for _, p := range paths {
			rel, err := filepath.Rel(top, p)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return paths
			}
			args = append(args, filepath.ToSlash(rel))
		}
		cmd := quietGit(ctx, git, workspace, args...)
		cmd.Dir = top
		out, err := cmd.Output()
		if err != nil {
			return paths
		}
		inHead := map[string]string{} // path: blob
		for _, line := range strings.Split(string(out), "\x00") {
			// "100644 blob SHA\tNAME"
			meta, name, ok := strings.Cut(line, "\t")
			if f := strings.Fields(meta); ok && len(f) == 3 && f[1] == "blob" {
				inHead[filepath.Join(top, filepath.FromSlash(name))] = f[2]
			}
		}
		var untracked []string
		for _, p := range paths {
			if blob, ok := inHead[p]; !ok || blobHash(p) != blob {
				untracked = append(untracked, p)
			}
		}
		return untracked
	}
}

// blobHash is the git object name of a file's content ("" if unreadable).
func blobHash(path string) string {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", st.Size())
	if _, err := io.Copy(h, io.LimitReader(f, 1<<20)); err != nil {
		return ""
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

// gitTop is the top of the working tree holding dir ("" when none).
func gitTop(ctx context.Context, git, dir string) string {
	cmd := quietGit(ctx, git, dir, "rev-parse", "--show-toplevel")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// outsideGit is the git found on PATH outside the workspace ("" if none):
// one a command put in the workspace is not run for rein.
func outsideGit(workspace string) string {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) || policy.Inside(dir, workspace) {
			continue
		}
		name := "git"
		if runtime.GOOS == "windows" {
			name = "git.exe"
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			return p
		}
	}
	return ""
}

// quietGit is git reading only what rein asks of it: no user or system
// config, no fsmonitor or optional lock of the repository's, and no
// repository above the workspace's folder.
func quietGit(ctx context.Context, git, workspace string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, git, append([]string{"--no-optional-locks", "-c", "core.fsmonitor=false"}, args...)...)
	cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + os.TempDir(), "PATH=" + filepath.Dir(git), "GIT_CEILING_DIRECTORIES=" + filepath.Dir(workspace)}
	return cmd
}
