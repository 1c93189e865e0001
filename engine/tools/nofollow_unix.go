//go:build unix

package tools

import "syscall"

// syscallNoFollow makes an open fail on a link in the last place of its
// path: the file tools open paths whose links they already resolved.
const syscallNoFollow = syscall.O_NOFOLLOW
