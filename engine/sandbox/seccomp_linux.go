//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Network denial without a network namespace (AppArmor refuses one to
// unprivileged users on many desktops). Landlock stops TCP connect and bind
// (ABI 4), but not UDP, raw or packet sockets: a DNS query is enough to
// send data out. Where the recipe denies the network, the thread that
// starts the program installs a seccomp filter the program inherits:
// socket() makes unix and netlink sockets only (ENETUNREACH for the rest,
// as where no network is), and io_uring, which can make sockets of its
// own, is refused (EACCES). In a network namespace of its own a command
// can reach nothing either way; the filter is installed there too.

// seccomp_data offsets: the system call's number, its architecture, its
// first argument (the low half, on these little-endian machines).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// syscalls are one architecture's numbers for what the filter looks at.
type syscalls struct {
	arch       uint32
	socket     uint32
	socketcall uint32 // 0: none (the arguments are behind a pointer: refused)
	ioUring    uint32
	x32        bool // numbers with bit 30 set are the x32 ABI's: refused
}

// filterArches are the native architecture and the one its kernel also
// runs programs of (i386 on amd64, 32-bit ARM on arm64); nil where rein has
// no filter (the network then stays open to UDP, as without it).
func filterArches() []syscalls {
	switch runtime.GOARCH {
	case "amd64":
		return []syscalls{
			{arch: unix.AUDIT_ARCH_X86_64, socket: 41, ioUring: 425, x32: true},
			{arch: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUring: 425},
		}
	case "arm64":
		return []syscalls{
			{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUring: 425},
			{arch: unix.AUDIT_ARCH_ARM, socket: 281, ioUring: 425},
		}
	}
	return nil
}

// noSocketsFilter is the filter for arches: a classic BPF program.
func noSocketsFilter(arches []syscalls) []unix.SockFilter {
	var a bpf
	deny := uint32(unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES))
	a.ld(offArch)
	for i := range arches {
		a.jeq(arches[i].arch, fmt.Sprint("arch", i), "")
	}
	a.ret(deny) // a system call of an architecture not known here
	for i, s := range arches {
		a.label(fmt.Sprint("arch", i))
		a.ld(offNr)
		if s.x32 {
			a.jset(0x40000000, "deny", "")
		}
		a.jeq(s.socket, "domain", "")
		if s.socketcall != 0 {
			a.jeq(s.socketcall, "deny", "")
		}
		a.jeq(s.ioUring, "deny", "")
		a.ret(unix.SECCOMP_RET_ALLOW)
	}
	a.label("domain")
	a.ld(offArg0)
	a.jeq(unix.AF_UNIX, "allow", "")
	a.jeq(unix.AF_NETLINK, "allow", "")
	// What a program says then is what it says where no network is
	// ("Network is unreachable"), and rein's note on it follows.
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENETUNREACH))
	a.label("deny")
	a.ret(deny)
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	return a.assemble()
}

// refuseSockets installs noSockets where c denies the network. A kernel
// without seccomp (EINVAL) is let be where the command has a network
// namespace of its own, which denies the network already; elsewhere the
// helper runs nothing.
func refuseSockets(c Config) {
	if !c.Network {
		return
	}
	if err := noSockets(); err != nil && (!c.Isolate || !errors.Is(err, unix.EINVAL)) {
		fail("cannot refuse the command network sockets (seccomp): " + err.Error())
	}
}

// seccompArch reports whether rein has a seccomp filter for this machine.
func seccompArch() bool { return filterArches() != nil }

// seccompAvailable reports whether this kernel has seccomp (PR_GET_SECCOMP
// answers) and rein a filter for this machine.
func seccompAvailable() bool {
	if !seccompArch() {
		return false
	}
	_, err := unix.PrctlRetInt(unix.PR_GET_SECCOMP, 0, 0, 0, 0)
	return err == nil
}

// noSockets installs the filter on the calling thread (locked to its
// goroutine), from which the program is started.
func noSockets() error {
	arches := filterArches()
	if arches == nil {
		return nil
	}
	prog := noSocketsFilter(arches)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	return unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0)
}

// bpf assembles a classic BPF program whose jumps name labels ("" is the
// next instruction).
type bpf struct {
	prog   []unix.SockFilter
	labels map[string]int
	jumps  []jump
}

type jump struct {
	at              int
	onTrue, onFalse string
}

func (a *bpf) ld(off uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: off})
}

func (a *bpf) ret(v uint32) {
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: v})
}

func (a *bpf) jeq(k uint32, onTrue, onFalse string)  { a.jmp(unix.BPF_JEQ, k, onTrue, onFalse) }
func (a *bpf) jset(k uint32, onTrue, onFalse string) { a.jmp(unix.BPF_JSET, k, onTrue, onFalse) }

func (a *bpf) jmp(op uint16, k uint32, onTrue, onFalse string) {
	a.jumps = append(a.jumps, jump{len(a.prog), onTrue, onFalse})
	a.prog = append(a.prog, unix.SockFilter{Code: unix.BPF_JMP | op | unix.BPF_K, K: k})
}

func (a *bpf) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.prog)
}

// assemble resolves the jumps: each a forward offset from the next
// instruction.
func (a *bpf) assemble() []unix.SockFilter {
	offset := func(at int, label string) uint8 {
		if label == "" {
			return 0
		}
		to, ok := a.labels[label]
		if !ok || to <= at || to-at-1 > 255 {
			panic("sandbox: bad seccomp jump to " + label)
		}
		return uint8(to - at - 1)
	}
	for _, j := range a.jumps {
		a.prog[j.at].Jt, a.prog[j.at].Jf = offset(j.at, j.onTrue), offset(j.at, j.onFalse)
	}
	return a.prog
}
