//go:build linux

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter runs a classic BPF seccomp program on one system call, as the
// kernel would: its number, architecture and first argument.
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	data := make([]byte, 64)
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	binary.LittleEndian.PutUint64(data[offArg0:], arg0)
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
	amd64 := noSocketsFilter([]syscalls{
		{arch: unix.AUDIT_ARCH_X86_64, socket: 41, ioUring: 425, x32: true},
		{arch: unix.AUDIT_ARCH_I386, socket: 359, socketcall: 102, ioUring: 425},
	})
	arm64 := noSocketsFilter([]syscalls{
		{arch: unix.AUDIT_ARCH_AARCH64, socket: 198, ioUring: 425},
		{arch: unix.AUDIT_ARCH_ARM, socket: 281, ioUring: 425},
	})
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
