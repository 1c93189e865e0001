//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter runs a classic BPF seccomp program on one system call, as the
// kernel would: its number, architecture and first arguments.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, args ...uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	for i, a := range args {
		binary.LittleEndian.PutUint64(data[offArg0+8*i:], a)
	}
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case unix.BPF_LD | unix.BPF_W | unix.BPF_ABS:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K:
			if acc == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K:
			if acc&in.K != 0 {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case unix.BPF_RET | unix.BPF_K:
			return in.K
		default:
			t.Fatalf("instruction %d: unknown code %#x", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

// The filter rein installs where the network is denied, for each
// architecture it knows and the one its kernel also runs: sockets of the
// network refused, unix and netlink ones made, io_uring and socketcall
// (whose arguments it cannot see) refused, the rest let through, and a
// system call of an unknown architecture refused.
func TestNoSocketsFilter(t *testing.T) {
	const allow, deny = unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	const unreachable = unix.SECCOMP_RET_ERRNO | uint32(unix.ENETUNREACH)
	amd64 := commandFilter(archTables("amd64"), true)
	arm64 := commandFilter(archTables("arm64"), true)
	for _, c := range []struct {
		name     string
		prog     []unix.SockFilter
		arch, nr uint32
		arg0     uint64
		want     uint32
	}{
		{"amd64 UDP socket", amd64, unix.AUDIT_ARCH_X86_64, 41, unix.AF_INET, unreachable},
		{"amd64 IPv6 socket", amd64, unix.AUDIT_ARCH_X86_64, 41, unix.AF_INET6, unreachable},
		{"amd64 packet socket", amd64, unix.AUDIT_ARCH_X86_64, 41, unix.AF_PACKET, unreachable},
		{"amd64 unix socket", amd64, unix.AUDIT_ARCH_X86_64, 41, unix.AF_UNIX, allow},
		{"amd64 netlink socket", amd64, unix.AUDIT_ARCH_X86_64, 41, unix.AF_NETLINK, allow},
		{"amd64 AF_INET in the high half", amd64, unix.AUDIT_ARCH_X86_64, 41, 1<<32 | unix.AF_INET, unreachable},
		{"amd64 io_uring", amd64, unix.AUDIT_ARCH_X86_64, 425, 0, deny},
		{"amd64 read", amd64, unix.AUDIT_ARCH_X86_64, 0, 0, allow},
		{"amd64 connect", amd64, unix.AUDIT_ARCH_X86_64, 42, 3, allow},
		{"x32 socket", amd64, unix.AUDIT_ARCH_X86_64, 41 | 0x40000000, unix.AF_UNIX, deny},
		{"i386 socketcall", amd64, unix.AUDIT_ARCH_I386, 102, 1, deny},
		{"i386 UDP socket", amd64, unix.AUDIT_ARCH_I386, 359, unix.AF_INET, unreachable},
		{"i386 unix socket", amd64, unix.AUDIT_ARCH_I386, 359, unix.AF_UNIX, allow},
		{"i386 io_uring", amd64, unix.AUDIT_ARCH_I386, 425, 0, deny},
		{"i386 read", amd64, unix.AUDIT_ARCH_I386, 3, 0, allow},
		{"another architecture", amd64, unix.AUDIT_ARCH_AARCH64, 198, unix.AF_UNIX, deny},
		{"arm64 UDP socket", arm64, unix.AUDIT_ARCH_AARCH64, 198, unix.AF_INET, unreachable},
		{"arm64 unix socket", arm64, unix.AUDIT_ARCH_AARCH64, 198, unix.AF_UNIX, allow},
		{"arm64 io_uring", arm64, unix.AUDIT_ARCH_AARCH64, 425, 0, deny},
		{"arm64 read", arm64, unix.AUDIT_ARCH_AARCH64, 63, 0, allow},
		{"arm UDP socket", arm64, unix.AUDIT_ARCH_ARM, 281, unix.AF_INET, unreachable},
		{"arm unix socket", arm64, unix.AUDIT_ARCH_ARM, 281, unix.AF_UNIX, allow},
		{"arm64 filter, x86-64 call", arm64, unix.AUDIT_ARCH_X86_64, 0, 0, deny},
	} {
		if got := runFilter(t, c.prog, c.arch, c.nr, c.arg0); got != c.want {
			t.Errorf("%s: %#x, want %#x", c.name, got, c.want)
		}
	}
}

// The filter every confined command runs under: the system calls that
// change another process (its limits, priority, CPUs, I/O priority) are
// refused but for the caller itself, network or not; sockets are made
// where the network is allowed.
func TestOutsideProcessesFilter(t *testing.T) {
	const allow, eperm = unix.SECCOMP_RET_ALLOW, unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	const x86, i386, a64, arm = unix.AUDIT_ARCH_X86_64, unix.AUDIT_ARCH_I386, unix.AUDIT_ARCH_AARCH64, unix.AUDIT_ARCH_ARM
	for _, network := range []bool{false, true} {
		amd64, arm64 := commandFilter(archTables("amd64"), network), commandFilter(archTables("arm64"), network)
		for _, c := range []struct {
			name     string
			prog     []unix.SockFilter
			arch, nr uint32
			args     []uint64
			want     uint32
		}{
			{"prlimit64 of another process", amd64, x86, 302, []uint64{4242}, eperm},
			{"prlimit64 of itself", amd64, x86, 302, []uint64{0}, allow},
			{"prlimit64, pid in the high half only", amd64, x86, 302, []uint64{1 << 32}, allow},
			{"sched_setaffinity of another", amd64, x86, 203, []uint64{1}, eperm},
			{"sched_setscheduler of another", amd64, x86, 144, []uint64{1}, eperm},
			{"sched_setparam of another", amd64, x86, 142, []uint64{1}, eperm},
			{"sched_setattr of another", amd64, x86, 314, []uint64{1}, eperm},
			{"renice of another", amd64, x86, 141, []uint64{unix.PRIO_PROCESS, 4242}, eperm},
			{"renice of its group", amd64, x86, 141, []uint64{unix.PRIO_PGRP, 0}, eperm},
			{"renice of every process of its user", amd64, x86, 141, []uint64{unix.PRIO_USER, 0}, eperm},
			{"nice of itself", amd64, x86, 141, []uint64{unix.PRIO_PROCESS, 0}, allow},
			{"ionice of another", amd64, x86, 251, []uint64{1, 4242}, eperm},
			{"ionice of itself", amd64, x86, 251, []uint64{1, 0}, allow},
			{"ionice of its user", amd64, x86, 251, []uint64{3, 0}, eperm},
			{"i386 prlimit64 of another", amd64, i386, 340, []uint64{4242}, eperm},
			{"i386 renice of another", amd64, i386, 97, []uint64{0, 4242}, eperm},
			{"read", amd64, x86, 0, []uint64{0}, allow},
			{"arm64 prlimit64 of another", arm64, a64, 261, []uint64{4242}, eperm},
			{"arm64 ionice of another", arm64, a64, 30, []uint64{1, 4242}, eperm},
			{"arm prlimit64 of another", arm64, arm, 369, []uint64{4242}, eperm},
			{"arm64 getpid", arm64, a64, 172, nil, allow},
		} {
			if got := runFilter(t, c.prog, c.arch, c.nr, c.args...); got != c.want {
				t.Errorf("network denied %v, %s: %#x, want %#x", network, c.name, got, c.want)
			}
		}
		want := uint32(allow)
		if network {
			want = unix.SECCOMP_RET_ERRNO | uint32(unix.ENETUNREACH)
		}
		if got := runFilter(t, amd64, x86, 41, unix.AF_INET); got != want {
			t.Errorf("network denied %v: a UDP socket %#x, want %#x", network, got, want)
		}
	}
}

// The keyrings are out of every command's reach.
func TestKeysFilter(t *testing.T) {
	const eperm = unix.SECCOMP_RET_ERRNO | uint32(unix.EPERM)
	for _, c := range []struct {
		name     string
		arch, nr uint32
		goarch   string
	}{
		{"keyctl", unix.AUDIT_ARCH_X86_64, 250, "amd64"},
		{"add_key", unix.AUDIT_ARCH_X86_64, 248, "amd64"},
		{"request_key", unix.AUDIT_ARCH_X86_64, 249, "amd64"},
		{"i386 keyctl", unix.AUDIT_ARCH_I386, 288, "amd64"},
		{"arm64 keyctl", unix.AUDIT_ARCH_AARCH64, 219, "arm64"},
		{"arm keyctl", unix.AUDIT_ARCH_ARM, 311, "arm64"},
	} {
		if got := runFilter(t, commandFilter(archTables(c.goarch), false), c.arch, c.nr, 0); got != eperm {
			t.Errorf("%s: %#x, want %#x", c.name, got, eperm)
		}
	}
}
