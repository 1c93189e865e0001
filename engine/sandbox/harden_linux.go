package sandbox

import "golang.org/x/sys/unix"

// Harden makes rein's own process unreadable to other processes of the same
// user, the commands it runs among them: /proc/PID/environ (which holds the
// model's API key), mem, fd, cwd and root become the superuser's
// (PR_SET_DUMPABLE 0). Path rules deny naming them too; this holds when a
// command finds them by itself (grep -a KEY /proc/*/environ run by a script).
// rein itself and what it runs in-process are unaffected.
func Harden() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }
