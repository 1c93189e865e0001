//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Namespaces. Landlock grants whole trees, so inside the workspace it
// cannot keep the recipe or .git/hooks from being written. Where the kernel
// lets an unprivileged user make namespaces, the helper starts in its own
// user and mount namespaces (and network namespace when the network is
// denied) and mounts those places read-only for the command. No PID
// namespace: its first process would see a /proc that is not its own
// (Landlock's all-threads call reads its threads from there), and a fresh
// /proc cannot be mounted inside most containers.

// probeNamespaces says whether this kernel lets rein make the namespaces,
// from the switches distributions use to turn them off.
func probeNamespaces() (bool, string) {
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(b))
	}
	switch {
	case read("/proc/sys/user/max_user_namespaces") == "0":
		return false, "user namespaces are turned off (user.max_user_namespaces is 0)"
	case read("/proc/sys/kernel/unprivileged_userns_clone") == "0":
		return false, "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone is 0)"
	case read("/proc/sys/kernel/apparmor_restrict_unprivileged_userns") == "1" && os.Getuid() != 0:
		return false, "AppArmor restricts unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns is 1)"
	}
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		return false, "this kernel has no user namespaces"
	}
	return true, ""
}

// SetNamespaces asks for the namespaces the helper expects when c.Isolate
// is set: the user keeps its own ids inside.
func (c *Config) SetNamespaces(attr *syscall.SysProcAttr) {
	if c == nil || !c.Isolate {
		return
	}
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS
	if c.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// NamespacesRefused reports whether starting the helper failed because the
// kernel would not make the namespaces (a container's seccomp filter, a
// limit reached): the runner then starts it without them.
func NamespacesRefused(err error) bool {
	for _, e := range []error{syscall.EPERM, syscall.EACCES, syscall.EINVAL, syscall.ENOSPC, syscall.EUSERS} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// mountPlaces makes c.Pin folders mount points (a mount point cannot be
// renamed or removed: .git cannot be moved aside and remade without its
// read-only hooks) and mounts c.ReadOnly read-only, in the helper's own
// mount namespace. A namespace without the right to mount (AppArmor's
// restriction, a seccomp filter) leaves them as they are: rein still puts
// back what a command changed there. Any other failure is an error.
func mountPlaces(c Config) error {
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return nil
		}
		return fmt.Errorf("cannot make the mounts private: %v", err)
	}
	bind := func(p string) (bool, error) {
		if _, err := os.Lstat(p); err != nil {
			return false, nil // nothing there to keep yet
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return false, fmt.Errorf("cannot mount %s on itself: %v", p, err)
		}
		return true, nil
	}
	for _, p := range c.Pin {
		if _, err := bind(p); err != nil {
			return err
		}
	}
	for _, p := range c.ReadOnly {
		ok, err := bind(p)
		if err != nil || !ok {
			return err
		}
		// A remount may not clear the flags the filesystem was mounted
		// with (nosuid, nodev…): they are locked in a user namespace.
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return fmt.Errorf("cannot read the mount flags of %s: %v", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|lockedFlags(st.Flags), ""); err != nil {
			return fmt.Errorf("cannot make %s read-only: %v", p, err)
		}
	}
	return nil
}

// lockedFlags turns statfs flags into the mount flags a remount must keep.
func lockedFlags(f int64) uintptr {
	var out uintptr
	for st, ms := range map[int64]uintptr{
		unix.ST_NOSUID: unix.MS_NOSUID, unix.ST_NODEV: unix.MS_NODEV, unix.ST_NOEXEC: unix.MS_NOEXEC,
		unix.ST_NOATIME: unix.MS_NOATIME, unix.ST_NODIRATIME: unix.MS_NODIRATIME, unix.ST_RELATIME: unix.MS_RELATIME,
	} {
		if f&st != 0 {
			out |= ms
		}
	}
	return out
}

// supervise runs the program as a child of the helper, which is its
// subreaper: whatever the program leaves behind, even outside its process
// group (setsid after a double fork, which the runner's group kill misses),
// becomes the helper's child when its parent ends. The helper passes on the
// signals that end a command, and when the program ends it kills what is
// left and returns the program's status (128+N for signal N, as a shell
// reports it).
func supervise(path string, argv []string) int {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail("cannot watch the program's children: " + err.Error())
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	p, err := os.StartProcess(path, argv, &os.ProcAttr{Env: os.Environ(), Files: []*os.File{os.Stdin, os.Stdout, os.Stderr}})
	if err != nil {
		fail(fmt.Sprintf("%s: %v", argv[0], unwrapPathError(err)))
	}
	go func() {
		for s := range sigs {
			_ = p.Signal(s) // the program may have left the group
		}
	}()
	status := 0
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			fail("lost the program: " + err.Error())
		}
		if pid == p.Pid {
			if status = ws.ExitStatus(); ws.Signaled() {
				status = 128 + int(ws.Signal())
			}
			break
		}
		// else an orphan handed to the helper ended before the program
	}
	killLeftovers()
	return status
}

// killLeftovers kills the helper's children until it has none. Orphans of
// a child it kills become its children in turn. A child that ended stays
// a zombie until it is waited for, so its pid cannot name another process
// by the time it is killed.
func killLeftovers() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR) || pid > 0:
			continue // reaped one; look again
		case err != nil:
			return // ECHILD: none left (the common case: one system call)
		}
		kids := childrenOf(os.Getpid())
		if len(kids) == 0 {
			return
		}
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
			_, _ = syscall.Wait4(k, &ws, 0, nil)
		}
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}

func unwrapPathError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
