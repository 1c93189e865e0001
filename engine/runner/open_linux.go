package runner

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// openChecked opens the file abs reaches, as checked: the path its links
// lead to, opened with no link followed on the way (openat2), so that a
// link a command swaps in after the check makes the open fail rather than
// lead elsewhere. ok is false where rein leaves the open to the shell: a
// device or /proc (/dev/null, /dev/stdout, which lead to the shell's own
// streams), or a kernel without openat2.
func openChecked(abs string, flag int, perm os.FileMode) (*os.File, error, bool) {
	abs = filepath.Clean(abs)
	if strings.HasPrefix(abs, "/dev/") || strings.HasPrefix(abs, "/proc/") {
		return nil, nil, false
	}
	real := reach(abs, 0)
	if real == "" {
		real = abs
	}
	return openResolved(real, flag, perm)
}

// openResolved opens real, a path with no link in it, following none: one
// made there since fails the open (ELOOP).
func openResolved(real string, flag int, perm os.FileMode) (*os.File, error, bool) {
	how := unix.OpenHow{Flags: uint64(flag | unix.O_CLOEXEC), Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	if flag&os.O_CREATE != 0 {
		how.Mode = uint64(perm.Perm())
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, real, &how)
	switch {
	case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
		// No openat2 here, or a container's filter refuses it.
		return nil, nil, false
	case errors.Is(err, unix.ELOOP):
		return nil, errors.New("refused by rein: a link on the way changed while rein checked it"), true
	case err != nil:
		return nil, err, true
	}
	return os.NewFile(uintptr(fd), real), nil, true
}
