//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// supervise runs the program as a child of the helper, which is its
// subreaper: whatever the program leaves behind, even outside its process
// group (setsid after a double fork, which the runner's group kill misses),
// becomes the helper's child when its parent ends. The helper passes on the
// signals that end a command, and when the program ends it kills what is
// left and returns the program's status (128+N for signal N, as a shell
// reports it).
//
// The supervisor is outside the program's sandbox: the program (a stage
// that confines itself first, for a confined command) is in a Landlock
// domain the supervisor is not in, so the program's scoped signals cannot
// reach it, while its own reach the program.
func supervise(path string, argv []string, parent int, sigs chan os.Signal) int {
	runtime.LockOSThread()
	dropAmbient()
	// Nothing the program runs as may read or trace the supervisor
	// through /proc.
	_ = unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		fail("cannot watch the program's children: " + err.Error())
	}
	if sigs == nil {
		sigs = listen()
	}
	// rein's death signal, sent before the helper listened, was ignored:
	// when rein is gone already, start nothing.
	if parent > 0 && os.Getppid() != parent {
		fail("rein ended before the program started")
	}
	// syscall's fork, not os's: os first makes sure the kernel's pidfds
	// work, with a child of its own (a third of a millisecond); Landlock
	// needs a kernel that has them. Signals go through the pidfd, which
	// cannot name another process once the program's pid is reaped.
	pidfd := -1
	child, err := syscall.ForkExec(path, argv, &syscall.ProcAttr{Env: os.Environ(), Files: []uintptr{0, 1, 2}, Sys: &syscall.SysProcAttr{PidFD: &pidfd}})
	if err != nil {
		fail(fmt.Sprintf("%s: %v", argv[0], err))
	}
	send := func(s syscall.Signal) { _ = unix.PidfdSendSignal(pidfd, s, nil, 0) }
	ended := make(chan syscall.WaitStatus)
	go func() { // waiting needs no rights over the program: any thread may
		for {
			var ws syscall.WaitStatus
			got, err := syscall.Wait4(-1, &ws, 0, nil)
			switch {
			case errors.Is(err, syscall.EINTR):
			case err != nil:
				fail("lost the program: " + err.Error())
			case got == child:
				ended <- ws
				return
			}
			// else an orphan handed to the helper ended before the program
		}
	}()
	for {
		select {
		case s := <-sigs:
			if s == EndSignal {
				send(syscall.SIGKILL) // then what it left, below
			} else {
				send(s.(syscall.Signal)) // the program may have left the group
			}
		case ws := <-ended:
			status := ws.ExitStatus()
			if ws.Signaled() {
				status = 128 + int(ws.Signal())
			}
			killLeftovers()
			return status
		}
	}
}

// listen starts taking the signals that end a command, for supervise.
func listen() chan os.Signal {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, EndSignal)
	return sigs
}

// dropAmbient clears this thread's ambient capabilities (SetNamespaces
// gives a helper started by a user other than root CAP_SYS_ADMIN in its
// namespace, to mount with): the program, started from this thread, then
// runs with none, as the user's programs do. A kernel without ambient
// capabilities gave none.
func dropAmbient() {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
}

// killLeftovers kills the helper's children until it has none. Orphans of
// a child it kills become its children in turn. A child that ended stays
// a zombie until it is waited for, so its pid cannot name another process
// by the time it is killed.
func killLeftovers() {
	for {
		var ws syscall.WaitStatus
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.EINTR) || pid > 0:
			continue // reaped one; look again
		case err != nil:
			return // ECHILD: none left (the common case: one system call)
		}
		kids := childrenOf(os.Getpid())
		if len(kids) == 0 {
			return
		}
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
			_, _ = syscall.Wait4(k, &ws, 0, nil)
		}
	}
}

// childrenOf lists the processes whose parent is pid, from /proc.
func childrenOf(pid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			out = append(out, child)
		}
	}
	return out
}
