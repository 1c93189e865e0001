//go:build !linux

package runner

import (
	"syscall"

	"github.com/reinsh/rein/engine/sandbox"
)

// dieWithRein: elsewhere the process group (a job object on Windows, which
// is closed with rein) is what ends a command.
func dieWithRein(*syscall.SysProcAttr, *sandbox.Config) {}

// commandUserNS: elsewhere a command has no namespaces of its own.
func commandUserNS(int, *sandbox.Config) string { return "" }

// sweep: elsewhere the process group (a job object on Windows) is what
// ends what a command left.
func sweep(userNS, cgroup string) {}
