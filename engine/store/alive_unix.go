//go:build unix

package store

import (
	"errors"
	"syscall"
)

// processAlive says whether a process with this id exists (signal 0 checks
// without sending; EPERM means it exists under another user).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
