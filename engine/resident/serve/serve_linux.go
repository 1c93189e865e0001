package serve

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinsh/rein/engine/resident"
)

// maxRequest bounds a request's length (rein's arguments are bounded by the
// kernel's much lower ARG_MAX anyway).
const maxRequest = 16 << 20

// Serve makes this process the resident engine at socket: it runs each
// request it takes with run, one at a time, in the caller's folder and with
// its $PWD and $OLDPWD, and returns once no request came or ran for idle.
// It returns nil at once when another engine serves the socket. Callers
// wait for their turn or withdraw; one that ends while its command runs
// stops the command (Request.Context) and ends the engine after it; a
// command that panics ends it after its answer.
func Serve(socket string, idle time.Duration, run func(*Request) int) error {
	closeInherited()
	lock, err := os.OpenFile(socket+resident.LockSuffix, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		if err == unix.EWOULDBLOCK {
			return nil
		}
		return err
	}
	os.Remove(socket) // an engine that was killed left it
	os.Remove(socket + resident.BusySuffix)
	l, err := net.ListenUnix("unix", &net.UnixAddr{Name: socket, Net: "unix"})
	if err != nil {
		return err
	}
	defer l.Close() // which removes the socket, under the lock
	e := &engine{socket: socket, run: run, turn: make(chan struct{}, 1)}
	for {
		l.SetDeadline(time.Now().Add(idle))
		c, err := l.AcceptUnix()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			if e.idle(idle) {
				return nil
			}
			continue // a command runs, or ended less than idle ago
		}
		if err != nil {
			return err
		}
		e.waiting.Add(1)
		go e.serve(c)
	}
}

// engine is Serve's state.
type engine struct {
	socket string
	run    func(*Request) int
	// turn is held by the request that runs: one at a time, as rein runs
	// one command.
	turn chan struct{}
	// waiting counts the connections being served; last is when the
	// last request ended (unix nanoseconds).
	waiting atomic.Int64
	last    atomic.Int64
}

// idle reports whether nothing ran or waited for d.
func (e *engine) idle(d time.Duration) bool {
	return e.waiting.Load() == 0 && time.Since(time.Unix(0, e.last.Load())) >= d
}

// closeInherited closes the descriptors this engine inherited from the
// rein that started it, but for its standard streams: a pipe left open
// here for minutes would keep a reader of it waiting.
func closeInherited() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	var fds []int
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd < 3 {
			continue
		}
		// The runtime's own (its poller) are anonymous; the directory's
		// own descriptor is closed by now.
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && !strings.HasPrefix(target, "anon_inode:") {
			fds = append(fds, fd)
		}
	}
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// serve takes one request from c, if its caller may make it, waits for
// its turn unless the caller withdraws it or ends, and runs it.
func (e *engine) serve(c *net.UnixConn) {
	defer c.Close()
	defer func() { e.last.Store(time.Now().UnixNano()); e.waiting.Add(-1) }()
	c.SetDeadline(time.Now().Add(5 * time.Second)) // for the request itself
	err := peerOutsideSandbox(c)
	var req *Request
	if err == nil {
		req, err = readRequest(c)
	}
	if err == nil && !resident.Serves(req.Args, req.StdinTerminal) {
		err = fmt.Errorf("rein %s is not served by a resident engine", strings.Join(req.Args, " "))
	}
	if err != nil {
		if req != nil {
			req.close()
		}
		c.Write(append([]byte{resident.Refused}, err.Error()...))
		return
	}
	defer req.close()
	c.SetDeadline(time.Time{})
	// The caller sends nothing more but a withdrawal: a read ends when it
	// withdraws or ends.
	withdrawn, hardened, ended := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		var withdraw, harden sync.Once
		var b [1]byte
		for {
			n, err := c.Read(b[:])
			if err != nil || n == 0 {
				close(ended)
				return
			}
			switch b[0] {
			case resident.Withdraw:
				withdraw.Do(func() { close(withdrawn) })
			case resident.Hardened:
				harden.Do(func() { close(hardened) })
			}
		}
	}()
	if req.withdrawn {
		c.Write([]byte{resident.Withdrawn})
		return
	}
	select {
	case e.turn <- struct{}{}:
		released := false
		release := func() {
			if !released {
				released = true
				<-e.turn
			}
		}
		defer release()
		defer func() {
			// The work for the next command is done in nobody's turn, and
			// with the caller's streams let go: a reader of its output
			// waits for their end.
			if req.After != nil {
				req.close()
				c.Close()
				release()
				req.After()
			}
		}()
	case <-withdrawn:
		c.Write([]byte{resident.Withdrawn})
		return
	case <-ended:
		return
	}
	select {
	case <-withdrawn: // it came as the turn did
		c.Write([]byte{resident.Withdrawn})
		return
	default:
	}
	if err := req.enter(); err != nil {
		c.Write(append([]byte{resident.Refused}, err.Error()...))
		return
	}
	if resident.Long(req.Args) {
		if f, err := os.Create(e.socket + resident.BusySuffix); err == nil {
			f.Close()
			defer os.Remove(e.socket + resident.BusySuffix)
		}
	}
	if _, err := c.Write([]byte{resident.Accepted}); err != nil {
		return
	}
	// The caller, checked, makes itself undumpable before its command runs:
	// the command must not read its environment (TestOwnEnvironmentUnreadable).
	select {
	case <-hardened:
	case <-ended:
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	req.Context = ctx
	var done atomic.Bool
	go func() {
		<-ended
		if done.Load() {
			return
		}
		// Stop the command as ^C would; an engine whose command does not
		// stop soon after ends itself.
		stop()
		time.Sleep(10 * time.Second)
		if !done.Load() {
			e.exit(3)
		}
	}()
	code, crashed := runSafely(e.run, req)
	done.Store(true)
	c.Write(binary.BigEndian.AppendUint32(nil, uint32(int32(code))))
	switch {
	case crashed:
		e.exit(2) // what the command left half done is not trusted
	case req.EndAfter, ctx.Err() != nil:
		e.exit(0)
	}
}

// exit ends the engine now, its socket and busy mark first (it holds the
// lock): the next caller starts another.
func (e *engine) exit(code int) {
	os.Remove(e.socket)
	os.Remove(e.socket + resident.BusySuffix)
	os.Exit(code)
}

// runSafely runs req; a panic is reported on the caller's standard error,
// as rein would report it, with status 2.
func runSafely(run func(*Request) int, req *Request) (code int, crashed bool) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(req.Stderr, "rein: internal error: %v\n%s", p, debug.Stack())
			code, crashed = 2, true
		}
	}()
	return run(req), false
}

// enter makes the request's folder and $PWD and $OLDPWD this process's.
func (r *Request) enter() error {
	if err := os.Chdir(r.Dir); err != nil {
		return err
	}
	for name, v := range map[string]*string{"PWD": r.pwd, "OLDPWD": r.oldpwd} {
		if v == nil {
			os.Unsetenv(name)
		} else {
			os.Setenv(name, *v)
		}
	}
	return nil
}

func readRequest(c *net.UnixConn) (*Request, error) {
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(3*4))
	n, oobn, flags, _, err := c.ReadMsgUnix(buf, oob)
	if err != nil {
		return nil, err
	}
	fds, err := rights(oob[:oobn])
	if err != nil {
		return nil, err
	}
	if len(fds) != 3 || flags&unix.MSG_CTRUNC != 0 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return nil, errors.New("the request did not bring three standard streams")
	}
	req := &Request{StdinTerminal: resident.Terminal(fds[0])}
	for _, fd := range fds {
		unix.CloseOnExec(fd)
	}
	req.Stdin, req.Stdout, req.Stderr = os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "stdout"), os.NewFile(uintptr(fds[2]), "stderr")
	if err := req.read(c, buf[:n]); err != nil {
		req.close()
		return nil, err
	}
	return req, nil
}

// read reads the request's fields, head being what came with its streams.
func (r *Request) read(c *net.UnixConn, head []byte) error {
	msg := bytes.NewBuffer(head)
	for msg.Len() < len(resident.Magic)+4 {
		if _, err := io.CopyN(msg, c, int64(len(resident.Magic)+4-msg.Len())); err != nil {
			return err
		}
	}
	if string(msg.Next(len(resident.Magic))) != resident.Magic {
		return errors.New("not a request of this rein")
	}
	size := int(binary.BigEndian.Uint32(msg.Next(4)))
	if size > maxRequest {
		return errors.New("the request is too long")
	}
	if msg.Len() < size {
		if _, err := io.CopyN(msg, c, int64(size-msg.Len())); err != nil {
			return err
		}
	}
	body := msg.Bytes()
	if len(body) == size+1 && body[size] == resident.Withdraw {
		r.withdrawn, body = true, body[:size] // it came with the request
	}
	if len(body) != size || size == 0 || body[size-1] != 0 {
		return errors.New("a damaged request")
	}
	fields := strings.Split(string(body[:size-1]), "\x00")
	if len(fields) < 3 {
		return errors.New("a damaged request")
	}
	r.Dir = fields[0]
	r.pwd, r.oldpwd = envValue(fields[1]), envValue(fields[2])
	r.Args = fields[3:]
	return nil
}

// envValue reads an environment field: "=" and the value, or "" for unset.
func envValue(f string) *string {
	if v, ok := strings.CutPrefix(f, "="); ok {
		return &v
	}
	return nil
}

// rights are the descriptors a control message brought.
func rights(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for i := range msgs {
		if got, err := unix.ParseUnixRights(&msgs[i]); err == nil {
			fds = append(fds, got...)
		}
	}
	return fds, nil
}

func (r *Request) close() {
	r.Stdin.Close() // a second close is a harmless error
	r.Stdout.Close()
	r.Stderr.Close()
}

// peerOutsideSandbox checks the process at c's other end: this user's, in
// this engine's namespaces, with no seccomp filter and free to gain
// privileges — which no program in rein's sandbox (Landlock and seccomp
// both need no_new_privs; its namespaces are its own), or in most others,
// is. The pidfd the kernel gives for the peer (Linux 6.5) makes sure what
// was read of it is its, not a later process's that took its pid.
func peerOutsideSandbox(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var checked error
	if err := raw.Control(func(fd uintptr) { checked = outsideSandbox(int(fd)) }); err != nil {
		return err
	}
	return checked
}

// peerNamespaces are the namespaces a caller must share with the engine:
// those rein's sandbox makes its own (user and mount, and network where
// it is denied) and the process namespace its pid is read in. The socket's
// name holds the others.
var peerNamespaces = []string{"user", "mnt", "net", "pid"}

// ownNamespaces are this engine's peerNamespaces (read once: a process
// does not change them).
var ownNamespaces = sync.OnceValue(func() []string {
	ids := make([]string, len(peerNamespaces))
	for i, ns := range peerNamespaces {
		ids[i], _ = os.Readlink("/proc/self/ns/" + ns)
	}
	return ids
})

// soPeerPIDFD is SO_PEERPIDFD (asm-generic; x/sys does not name it yet).
const soPeerPIDFD = 77

func outsideSandbox(fd int) error {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return fmt.Errorf("the caller's credentials: %w", err)
	}
	if int(cred.Uid) != os.Geteuid() {
		return fmt.Errorf("the caller is user %d", cred.Uid)
	}
	pidfd, err := unix.GetsockoptInt(fd, unix.SOL_SOCKET, soPeerPIDFD)
	if err != nil {
		pidfd = -1
	} else {
		defer unix.Close(pidfd)
	}
	proc := "/proc/" + strconv.Itoa(int(cred.Pid))
	status, err := os.ReadFile(proc + "/status")
	if err != nil {
		return fmt.Errorf("the caller's status: %w", err)
	}
	if why := resident.Confined(status); why != "" {
		return errors.New("the caller " + why)
	}
	for i, ns := range peerNamespaces {
		theirs, err := os.Readlink(proc + "/ns/" + ns)
		if err != nil {
			return fmt.Errorf("the caller's %s namespace: %w", ns, err)
		}
		if theirs != ownNamespaces()[i] {
			return fmt.Errorf("the caller is in another %s namespace", ns)
		}
	}
	if pidfd >= 0 {
		if err := unix.PidfdSendSignal(pidfd, 0, nil, 0); err != nil {
			return errors.New("the caller ended")
		}
	}
	return nil
}
