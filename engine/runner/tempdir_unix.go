//go:build unix

package runner

import (
	"errors"
	"github.com/reinsh/rein/engine/recipe"
	"io/fs"
	"os"
	"syscall"
)

// commandTempDir makes a command's private temp folder inside rein's own
// folder in the system's temp folder (/tmp/rein-UID: made once, mode 0700,
// the user's), so that running commands leaves /tmp itself unchanged and
// what rein keeps about it (the ssh-agent folders there) stays valid. A
// folder of that name that is not the user's own, private folder (another
// user made it first, or a link) is not used: the command's folder is then
// made in /tmp directly.
func commandTempDir() (string, error) {
	parent := recipe.TempRoot()
	if err := os.Mkdir(parent, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return os.MkdirTemp("", "rein-tmp-")
	}
	st, err := os.Lstat(parent)
	if err != nil || !st.IsDir() || st.Mode().Perm() != 0o700 {
		return os.MkdirTemp("", "rein-tmp-")
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
		return os.MkdirTemp("", "rein-tmp-")
	}
	return os.MkdirTemp(parent, "tmp-")
}
