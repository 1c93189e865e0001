//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Namespaces. Landlock grants whole trees, so inside the workspace it
// cannot keep the recipe or .git/hooks from being written. Where the kernel
// lets an unprivileged user make namespaces, the helper starts in its own
// user and mount namespaces (and network namespace when the network is
// denied), mounts those places read-only for the command, and gives it a
// /dev/shm and System V and POSIX IPC of its own. No PID
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
	// An IPC namespace of its own: System V shared memory, semaphores and
	// message queues, and POSIX message queues, that a command leaves go
	// with it instead of outliving it.
	attr.Cloneflags |= syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWIPC
	if c.Network {
		attr.Cloneflags |= syscall.CLONE_NEWNET
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
	if uid != 0 {
		// A user other than root in the namespace loses the namespace's
		// capabilities when the helper's program is executed, and with
		// them the right to mount: the helper keeps CAP_SYS_ADMIN through
		// its own start as an ambient capability, and drops it before it
		// starts the command (supervise); CAP_NET_ADMIN too, to bring up
		// the loopback of a network namespace of the command's own.
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
		if c.Network {
			attr.AmbientCaps = append(attr.AmbientCaps, unix.CAP_NET_ADMIN)
		}
	}
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
// restriction, a seccomp filter) leaves them as they are, and mounted is
// false: rein still puts back what a command changed there, and the helper
// hides what it would have covered with Landlock instead (uncovered). Any
// other failure is an error.
func mountPlaces(c Config) (mounted bool, err error) {
	if !ownUserNamespace() {
		// Started without its namespaces (by hand, or by a bug): as root,
		// the mounts below would change the whole machine's.
		return false, errors.New("the helper is not in namespaces of its own; it will not mount anything")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		if errors.Is(err, unix.EPERM) || errors.Is(err, unix.EACCES) {
			return false, nil
		}
		return false, fmt.Errorf("cannot make the mounts private: %w", err)
	}
	bind := func(p string) (bool, error) {
		if _, err := os.Stat(p); err != nil {
			return false, nil // nothing there to keep yet (or a link to nothing)
		}
		if err := unix.Mount(p, p, "", unix.MS_BIND, ""); err != nil {
			return false, fmt.Errorf("cannot mount %s on itself: %w", p, err)
		}
		return true, nil
	}
	for _, p := range c.Pin {
		if _, err := bind(p); err != nil {
			return false, err
		}
	}
	// /dev/shm is the command's own: what it leaves there goes with its
	// mount namespace instead of outliving it, and it finds nothing that
	// others left there.
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if err := unix.Mount("tmpfs", "/dev/shm", "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=1777"); err != nil {
			return false, fmt.Errorf("cannot give the command a /dev/shm of its own: %w", err)
		}
	}
	for _, p := range append(slices.Clip(c.HideServices), c.Cover...) {
		if err := cover(p); err != nil {
			return false, err
		}
	}
	for _, p := range c.ReadOnly {
		ok, err := bind(p)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		// A remount may not clear the flags the filesystem was mounted
		// with (nosuid, nodev…): they are locked in a user namespace.
		var st unix.Statfs_t
		if err := unix.Statfs(p, &st); err != nil {
			return false, fmt.Errorf("cannot read the mount flags of %s: %w", p, err)
		}
		if err := unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|lockedFlags(int64(st.Flags)), ""); err != nil {
			return false, fmt.Errorf("cannot make %s read-only: %w", p, err)
		}
	}
	// The helper started in the command's folder, entered before these
	// mounts: a folder entered before a mount over it stays the folder
	// under the mount, and what the command wrote or read through it
	// (.git/hooks/pre-commit from inside .git/hooks, a covered secret from
	// inside its folder) would go around the mount. Entered again by its
	// name, it is the mounted one.
	wd, err := unix.Getwd()
	if err == nil {
		err = unix.Chdir(wd)
	}
	if err != nil {
		return false, fmt.Errorf("cannot enter the command's folder again after mounting: %w", err)
	}
	return true, nil
}

// ownUserNamespace reports whether this process is in a user namespace
// other than the machine's: the machine's maps every id (4294967295 of
// them), the helper's only the user's own.
func ownUserNamespace() bool {
	b, err := os.ReadFile("/proc/self/uid_map")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[2] == "4294967295" {
			return false
		}
	}
	return true
}

// cover puts an empty read-only folder over a folder, and /dev/null over
// anything else (a socket, a file).
func cover(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return nil // gone since rein looked
	}
	if st.IsDir() {
		err = unix.Mount("tmpfs", p, "tmpfs", unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "size=4k,mode=755")
	} else {
		err = unix.Mount("/dev/null", p, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("cannot hide %s: %w", p, err)
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

// loopbackUp brings up the loopback of the helper's network namespace,
// which starts down.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// forwardProxy listens on the loopback of the helper's network namespace
// at p.Port and joins each connection to rein's proxy at p.Socket, a unix
// socket in the machine's filesystem, which no network namespace holds.
// It serves for as long as the helper lives.
func forwardProxy(p Proxy) error {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.Port)))
	if err != nil {
		return err
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				up, err := net.Dial("unix", p.Socket)
				if err != nil {
					return
				}
				defer up.Close()
				if _, err := io.WriteString(up, p.Token+"\n"); err != nil {
					return
				}
				done := make(chan struct{}, 2)
				go func() { io.Copy(up, c); up.(*net.UnixConn).CloseWrite(); done <- struct{}{} }()
				go func() { io.Copy(c, up); c.(*net.TCPConn).CloseWrite(); done <- struct{}{} }()
				<-done
				<-done
			}()
		}
	}()
	return nil
}
