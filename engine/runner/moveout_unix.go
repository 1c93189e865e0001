//go:build unix

package runner

import (
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// moveOut renames rel, inside root, to dest outside it: the folder it is
// in is opened through root (no link followed out of it), and the entry
// is renamed from that folder, itself, a link or not.
func moveOut(root *os.Root, rel, dest string) error {
	dir, err := root.Open(filepath.Dir(rel))
	if err != nil {
		return err
	}
	defer dir.Close()
	return unix.Renameat(int(dir.Fd()), filepath.Base(rel), unix.AT_FDCWD, dest)
}
