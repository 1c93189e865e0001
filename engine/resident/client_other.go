//go:build !linux

package resident

import (
	"errors"
	"runtime"
)

var errUnsupported = errors.New("resident engines need Linux (callers are checked through /proc); on " + runtime.GOOS + " rein answers every command by itself")

// Socket: none outside Linux.
func Socket(string) (string, error) { return "", errUnsupported }

// SocketDir: none outside Linux.
func SocketDir() string { return "" }

// Call is never reached where Socket fails.
func Call(string, []string, bool) (int, error) {
	return 0, &failure{ErrNoEngine, errUnsupported.Error()}
}

// Start: none outside Linux.
func Start(string, string) error { return errUnsupported }

// Args: not read outside Linux.
func Args() ([]string, error) { return nil, errUnsupported }

// Executable: not read outside Linux.
func Executable() (string, error) { return "", errUnsupported }

// Terminal: not asked outside Linux.
func Terminal(int) bool { return false }

// Confined: nothing to read outside Linux.
func Confined([]byte) string { return "" }
