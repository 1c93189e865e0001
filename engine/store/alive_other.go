//go:build !unix

package store

import "os"

// processAlive says whether a process with this id exists; on Windows
// FindProcess opens the process and fails when it is gone.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
