//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The seccomp filter every confined command runs under, where the kernel
// has seccomp.
//
// Processes outside. Landlock keeps a command's signals and ptrace inside
// its sandbox, but not the system calls that change another process of the
// same user: prlimit on rein or the agent (no more open files, a CPU limit
// of a second), renice, CPU affinity, I/O priority. Those are refused
// (EPERM) unless they name the caller itself (pid 0; for setpriority and
// ioprio_set, the process itself, not its group or user).
//
// Network denial without a network namespace (AppArmor refuses one to
// unprivileged users on many desktops). Landlock stops TCP connect and bind
// (ABI 4), but not UDP, raw or packet sockets: a DNS query is enough to
// send data out. Where the recipe denies the network, socket() makes unix
// and netlink sockets only (ENETUNREACH for the rest, as where no network
// is), and io_uring, which can make sockets of its own, is refused
// (EACCES). In a network namespace of its own a command can reach nothing
// either way; the filter refuses them there too.

// seccomp_data offsets: the system call's number, its architecture, its
// first argument (the low half, on these little-endian machines).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// syscalls are one architecture's numbers for what the filter looks at.
type syscalls struct {
	arch       uint32
	socket     uint32
	socketcall uint32 // 0: none (the arguments are behind a pointer: refused)
	ioUring    uint32
	x32        bool // numbers with bit 30 set are the x32 ABI's: refused
	// byPid take a process id first: refused but for 0, the caller.
	byPid []uint32 // prlimit64, sched_setparam, sched_setscheduler, sched_setaffinity, sched_setattr
	// setpriority and ioprio_set take (which, who): refused but for the
	// caller itself.
	setpriority, ioprioSet uint32
	// keys are add_key, request_key and keyctl: refused.
	keys []uint32
}

// filterArches are the native architecture and the one its kernel also
// runs programs of (i386 on amd64, 32-bit ARM on arm64); nil where rein has
// no filter (the network then stays open to UDP, as without it).
func filterArches() []syscalls { return archTables(runtime.GOARCH) }

// archTables are filterArches for a Go architecture.
func archTables(goarch string) []syscalls {
	switch goarch {
	case "amd64":
		return []syscalls{
			{arch: unix.AUDIT_ARCH_X86_64, socket: 41, ioUring: 425, x32: true,
				byPid: []uint32{302, 142, 144, 203, 314}, setpriority: 141, ioprioSet: 251,
				keys: []uint32{248, 249, 250}},
			{arch: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUring: 425,
				byPid: []uint32{340, 154, 156, 241, 351}, setpriority: 97, ioprioSet: 289,
				keys: []uint32{286, 287, 288}},
		}
	case "arm64":
		return []syscalls{
			{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUring: 425,
				byPid: []uint32{261, 118, 119, 122, 274}, setpriority: 140, ioprioSet: 30,
				keys: []uint32{217, 218, 219}},
			{arch: unix.AUDIT_ARCH_ARM, socket: 281, ioUring: 425,
				byPid: []uint32{369, 154, 156, 241, 380}, setpriority: 97, ioprioSet: 314,
				keys: []uint32{309, 310, 311}},
		}
	}
	return nil
}

// commandFilter is the filter for arches: a classic BPF program. network
// adds the refusal of network sockets.
func commandFilter(arches []syscalls, network bool) []unix.SockFilter {
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
		if network {
			a.jeq(s.socket, "domain", "")
			if s.socketcall != 0 {
				a.jeq(s.socketcall, "deny", "")
			}
			a.jeq(s.ioUring, "deny", "")
		}
		for _, nr := range s.byPid {
			a.jeq(nr, "pid", "")
		}
		if s.setpriority != 0 {
			a.jeq(s.setpriority, "setpriority", "")
		}
		if s.ioprioSet != 0 {
			a.jeq(s.ioprioSet, "ioprio", "")
		}
		for _, nr := range s.keys {
			// The kernel's keyrings (the user's outlive the command, and
			// hold what other programs stored there).
			a.jeq(nr, "outside", "")
		}
		a.ret(unix.SECCOMP_RET_ALLOW)
	}
	if network {
		a.label("domain")
		a.ld(offArg0)
		a.jeq(unix.AF_UNIX, "allow", "")
		a.jeq(unix.AF_NETLINK, "allow", "")
		// What a program says then is what it says where no network is
		// ("Network is unreachable"), and rein's note on it follows.
		a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.ENETUNREACH))
	}
	// The caller itself: pid 0.
	a.label("pid")
	a.ld(offArg0)
	a.jeq(0, "allow", "outside")
	// setpriority(PRIO_PROCESS, 0, …) and ioprio_set(IOPRIO_WHO_PROCESS,
	// 0, …): the caller, not its process group or every process of its user.
	a.label("setpriority")
	a.ld(offArg0)
	a.jeq(unix.PRIO_PROCESS, "who", "outside")
	a.label("ioprio")
	a.ld(offArg0)
	a.jeq(1, "who", "outside") // IOPRIO_WHO_PROCESS
	a.label("who")
	a.ld(offArg1)
	a.jeq(0, "allow", "outside")
	a.label("outside")
	a.ret(unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM))
	a.label("deny")
	a.ret(deny)
	a.label("allow")
	a.ret(unix.SECCOMP_RET_ALLOW)
	return a.assemble()
}

// filterCommand installs commandFilter on the program a confined helper
// becomes, from the calling thread. A kernel without seccomp (EINVAL)
// leaves it out, but where the network is to be refused and no network
// namespace of the command's own refuses it: the helper then runs nothing.
func filterCommand(c Config) {
	if !c.Confined() {
		return
	}
	// In a network namespace of its own, the command's sockets reach its
	// loopback and nothing else: they need no refusing.
	switch err := installFilter(c.Network && !c.Isolate); {
	case err == nil:
	case errors.Is(err, unix.EINVAL) && (!c.Network || c.Isolate):
	case c.Network:
		fail("cannot refuse the command network sockets (seccomp): " + err.Error())
	default:
		fail("cannot install the command's seccomp filter: " + err.Error())
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

// installFilter installs the filter on the calling thread (locked to its
// goroutine), from which the program is started.
func installFilter(network bool) error {
	arches := filterArches()
	if arches == nil {
		return nil
	}
	prog := commandFilter(arches, network)
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
