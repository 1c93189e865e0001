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
	git := ""
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if !filepath.IsAbs(dir) || policy.Inside(dir, workspace) {
			continue
		}
		name := "git"
		if runtime.GOOS == "windows" {
			name = "git.exe"
		}
		if p, err := exec.LookPath(filepath.Join(dir, name)); err == nil {
			git = p
			break
		}
	}
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
		cmd := exec.CommandContext(ctx, git, "--no-optional-locks", "-c", "core.fsmonitor=false", "ls-tree", "HEAD", "--", filepath.Base(path))
		cmd.Dir = filepath.Dir(path)
		cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull, "HOME=" + os.TempDir(), "PATH=" + filepath.Dir(git), "GIT_CEILING_DIRECTORIES=" + filepath.Dir(workspace)}
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
