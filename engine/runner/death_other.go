//go:build !linux

package runner

import (
	"syscall"

	"github.com/reinsh/rein/engine/sandbox"
)

// dieWithRein: elsewhere the process group (a job object on Windows, which
// is closed with rein) is what ends a command.
func dieWithRein(*syscall.SysProcAttr, *sandbox.Config) {}
