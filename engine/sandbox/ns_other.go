//go:build !linux

package sandbox

import "syscall"

// SetNamespaces does nothing: namespaces are Linux's.
func (c *Config) SetNamespaces(attr *syscall.SysProcAttr) {}

// NamespacesRefused is false: no namespaces are asked for outside Linux.
func NamespacesRefused(err error) bool { return false }
