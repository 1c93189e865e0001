//go:build unix

package sandbox

import "syscall"

// EndSignal asks a supervising helper to kill its program and everything
// the program left, then end (the runner sends it when a command outlives
// its grace period; the helper's own group kill would leave out what left
// the group).
const EndSignal = syscall.SIGUSR2
