//go:build !linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
)

// Probe reports what this system can enforce: nothing, outside Linux.
func Probe() Status {
	return Status{OS: runtime.GOOS, Why: "rein's kernel sandbox uses Landlock, which only Linux has; on " + runtime.GOOS + " commands run unsandboxed"}
}

// Main is the helper; outside Linux there is nothing to apply.
func Main(args []string) {
	fmt.Fprintln(os.Stderr, "rein sandbox: not supported on "+runtime.GOOS)
	os.Exit(126)
}

// seccompArch reports whether rein has a seccomp filter here: Linux's only.
func seccompArch() bool { return false }
