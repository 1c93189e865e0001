//go:build unix

package runner

import (
	"errors"
	"os/exec"
	"syscall"

	"github.com/reinsh/rein/engine/sandbox"
)

// group is a started process and its process group.
type group struct{ pid int }

// startInGroup starts cmd as the leader of a new session, and so of a new
// process group, so that the whole tree it spawns can be signalled at once.
// A new session has no controlling terminal: a command cannot open
// /dev/tty to read the keystrokes meant for rein's prompts, nor push input
// into the user's terminal (TIOCSTI).
func startInGroup(cmd *exec.Cmd) (*group, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setsid = true
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &group{pid: cmd.Process.Pid}, nil
}

func (g *group) terminate() { _ = syscall.Kill(-g.pid, syscall.SIGTERM) }
func (g *group) kill()      { _ = syscall.Kill(-g.pid, syscall.SIGKILL) }

// endSupervised asks the sandbox helper leading the group to kill its
// program and everything the program left, in the group or not.
func (g *group) endSupervised() { _ = syscall.Kill(g.pid, sandbox.EndSignal) }
func (g *group) close()         {}

// exitCode is the shell's view of how a process ended: its status, or
// 128+N when signal N killed it.
func exitCode(err error) int {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return 0
	}
	if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ee.ExitCode()
}

func isNotExecutable(err error) bool { return errors.Is(err, syscall.ENOEXEC) }
