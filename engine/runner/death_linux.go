//go:build linux

package runner

import (
	"syscall"

	"github.com/reinsh/rein/engine/sandbox"
)

// dieWithRein asks the kernel to signal the process rein starts when rein
// dies (SIGKILL included): the sandbox helper gets its end signal and takes
// the program and all it left down with it; a program started without one
// is killed. Go checks, in the child, that rein did not die before the
// request was made.
func dieWithRein(a *syscall.SysProcAttr, box *sandbox.Config) {
	a.Pdeathsig = syscall.SIGKILL
	if box.Supervised() {
		a.Pdeathsig = sandbox.EndSignal
	}
}
