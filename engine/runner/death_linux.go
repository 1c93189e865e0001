//go:build linux

package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinsh/rein/engine/sandbox"
)

// dieWithRein asks the kernel to signal the process rein starts when rein
// dies (SIGKILL included): the sandbox helper gets its end signal and takes
// the program and all it left down with it; a program started without one
// is killed. Go checks, in the child, that rein did not die before the
// request was made.
func dieWithRein(a *syscall.SysProcAttr, box *sandbox.Config) {
	a.Pdeathsig = syscall.SIGKILL
	if box.Supervised() {
		a.Pdeathsig = sandbox.EndSignal
	}
}

// commandUserNS is the user namespace of the helper just started as pid,
// when box gave it one of its own ("" otherwise), as /proc/PID/ns/user
// reads.
func commandUserNS(pid int, box *sandbox.Config) string {
	if box == nil || !box.Isolate {
		return ""
	}
	ns, _ := os.Readlink("/proc/" + strconv.Itoa(pid) + "/ns/user")
	if own, _ := os.Readlink("/proc/self/ns/user"); ns == own {
		return ""
	}
	return ns
}

// sweep ends what a command left running after its helper was killed
// before it could: every process in the command's user namespace (userNS,
// the link /proc/PID/ns/user reads) or one it made inside it, and its pids
// cgroup. The helper ends
// them itself when it is let (its subreaper's final sweep); a signal it
// could not refuse (on kernels without Landlock's signal scoping, the
// command's own kill of its parent) leaves them to rein.
func sweep(userNS, cgroup string) {
	if cgroup != "" {
		_ = os.WriteFile(filepath.Join(cgroup, "cgroup.kill"), []byte("1"), 0o644)
	}
	if userNS == "" {
		return
	}
	for range 50 {
		entries, err := os.ReadDir("/proc")
		if err != nil {
			return
		}
		found := false
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil {
				continue
			}
			if inNamespace(e.Name(), userNS) {
				found = true
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if !found {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nsGetParent is ioctl_ns(2)'s NS_GET_PARENT: _IO(0xb7, 0x2).
const nsGetParent = 0xb702

// inNamespace reports whether process pid is in the user namespace userNS
// or in one made inside it (unshare -U within a command): the kernel names
// each namespace's parent, up to the machine's.
func inNamespace(pid, userNS string) bool {
	path := "/proc/" + pid + "/ns/user"
	if link, err := os.Readlink(path); err != nil || link == userNS {
		return err == nil
	}
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer func() { unix.Close(fd) }()
	for range 33 { // user namespaces nest 32 deep at most
		parent, err := unix.IoctlRetInt(fd, nsGetParent)
		if err != nil {
			return false // the machine's, or beyond what rein may see
		}
		unix.Close(fd)
		fd = parent
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil && "user:["+strconv.FormatUint(st.Ino, 10)+"]" == userNS {
			return true
		}
	}
	return false
}
