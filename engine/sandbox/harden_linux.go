package sandbox

import (
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// Harden makes rein's own process unreadable to other processes of the same
// user, the commands it runs among them: /proc/PID/environ (which holds the
// model's API key), mem, fd, cwd and root become the superuser's
// (PR_SET_DUMPABLE 0). Path rules deny naming them too; this holds when a
// command finds them by itself (grep -a KEY /proc/*/environ run by a script).
// rein itself and what it runs in-process are unaffected.
//
// It also closes, on exec, every descriptor rein inherited beyond the
// standard three: an agent's pipes and sockets, a terminal's or a
// jobserver's, reach none of the programs rein runs, which get their
// standard streams and nothing else.
func Harden() error {
	closeInheritedOnExec()
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}

// closeInheritedOnExec marks descriptors 3 and up close-on-exec: at once
// where the kernel has close_range (5.11), else one by one from /proc.
func closeInheritedOnExec() {
	if unix.CloseRange(3, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			unix.FcntlInt(uintptr(fd), unix.F_SETFD, unix.FD_CLOEXEC)
		}
	}
}
