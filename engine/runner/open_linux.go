package runner

import (
	"errors"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// openChecked opens target, the file rein checked that abs, the path as
// written, leads to: a path with no link in it, opened following none, so
// that a link a command swaps in after the check makes the open fail
// rather than lead elsewhere. ok is false where rein leaves the open to
// the shell: the devices and descriptors a shell opens by name
// (/dev/null, /dev/stdout, /dev/fd/3, which lead to its own streams), or
// a kernel without openat2.
func openChecked(abs, target string, flag int, perm os.FileMode) (*os.File, error, bool) {
	if shellSpecial(abs) {
		return nil, nil, false
	}
	return openResolved(target, flag, perm)
}

// shellSpecial reports whether abs is a device or descriptor a shell opens
// by name.
func shellSpecial(abs string) bool {
	switch abs {
	case "/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/full", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty":
		return true
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if n, ok := strings.CutPrefix(abs, dir); ok && n != "" && strings.Trim(n, "0123456789") == "" {
			return true
		}
	}
	return false
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
