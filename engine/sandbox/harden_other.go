//go:build !linux

package sandbox

// Harden does nothing on this system: other processes of the user cannot
// read rein's environment through a /proc file system here.
func Harden() error { return nil }
