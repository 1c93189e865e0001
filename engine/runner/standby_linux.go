package runner

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinsh/rein/engine/sandbox"
)

// Standby keeps a sandbox helper started ahead of the next program, for a
// process that runs one command after another (a resident engine): the
// helper's fork into its namespaces and its own start, 2.5 ms of each
// program here, are paid between commands. It is started by Refill, for
// what the last program needed, and told what to run — the program, its
// arguments, environment, folder and standard streams (sandbox.Launch) —
// and its configuration when a program needs it. A helper that waited
// longer than standbyTTL is not used: its namespaces copied the machine's
// mounts as they were when it started. The zero value is ready; a nil
// Standby starts nothing.
type Standby struct {
	mu   sync.Mutex
	next *standby    // started, waiting for a program
	want *standbyKey // what the last program asked for
}

// standbyTTL is how long a helper started ahead may wait for a program.
const standbyTTL = 10 * time.Second

// standbyKey is what a helper started ahead must match: the helper, and
// the namespaces and supervision asked for when it was started.
type standbyKey struct {
	helper                        string
	isolate, network, supervision bool
}

func standbyKeyOf(helper string, box *sandbox.Config) standbyKey {
	return standbyKey{helper, box.Isolate, box.Network, box.Supervised()}
}

// standby is a helper started ahead, and rein's end of its socket.
type standby struct {
	key  standbyKey
	cmd  *exec.Cmd
	conn *os.File
	at   time.Time
}

// take hands over the waiting helper if it matches k and is fresh, and
// notes k for Refill.
func (s *Standby) take(k standbyKey) *standby {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	sb := s.next
	s.next, s.want = nil, &k
	s.mu.Unlock()
	if sb != nil && (sb.key != k || time.Since(sb.at) > standbyTTL) {
		sb.discard()
		sb = nil
	}
	return sb
}

// Refill starts a helper for the next program, like the last program's,
// unless one waits already or no program ran yet. Call it between
// commands: its fork and start compete with a command for the cores.
func (s *Standby) Refill() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.want == nil || s.next != nil && time.Since(s.next.at) < standbyTTL/2 {
		s.mu.Unlock()
		return
	}
	k, old := *s.want, s.next
	s.next = nil
	s.mu.Unlock()
	if old != nil {
		old.discard()
	}
	sb, err := startStandby(k)
	if err != nil {
		return // the next program starts its own helper
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.next != nil {
		sb.discard()
		return
	}
	s.next = sb
}

// Waiting reports whether a helper started ahead waits for a program.
func (s *Standby) Waiting() bool {
	if s == nil {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.next != nil
}

// Close ends the waiting helper, if any.
func (s *Standby) Close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	sb := s.next
	s.next = nil
	s.mu.Unlock()
	if sb != nil {
		sb.discard()
	}
}

// startStandby starts a helper for k, in its namespaces and session, that
// waits for a program on its socket (descriptor gateFD).
func startStandby(k standbyKey) (*standby, error) {
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ours, theirs := os.NewFile(uintptr(pair[0]), "standby"), os.NewFile(uintptr(pair[1]), "standby")
	defer theirs.Close()
	path, argv := sandbox.StandbyCommand(k.helper, gateFD)
	cmd := exec.Command(path)
	cmd.Args, cmd.Dir = argv, "/"
	cmd.Env = []string{} // the program's comes with it
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	box := &sandbox.Config{Isolate: k.isolate, Network: k.network, Supervise: k.supervision}
	box.SetNamespaces(cmd.SysProcAttr)
	dieWithRein(cmd.SysProcAttr, box)
	cmd.ExtraFiles = []*os.File{theirs}
	if _, err := startInGroup(cmd); err != nil {
		ours.Close()
		return nil, err
	}
	return &standby{key: k, cmd: cmd, conn: ours, at: time.Now()}, nil
}

// discard ends a helper that will run nothing: its socket closes, and it
// ends saying rein sent nothing.
func (sb *standby) discard() {
	sb.conn.Close()
	go sb.cmd.Wait()
}

// launch runs the program through sb, a helper started ahead, as start
// runs it through a helper of its own.
func (p process) launch(ctx context.Context, sb *standby, env []string, box *sandbox.Config) (int, error) {
	files, finish, err := childStdio(p.stdin, p.stdout, p.stderr)
	if err != nil {
		finish.started()
		finish.wait(0)
		sb.discard()
		return 126, fmt.Errorf("cannot hand the sandbox helper the command's streams: %w", err)
	}
	dir := p.dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	b, err := json.Marshal(sandbox.Launch{Path: p.path, Argv: p.argv, Env: env, Dir: dir})
	if err == nil {
		msg := append(binary.BigEndian.AppendUint32(nil, uint32(len(b))), b...)
		err = unix.Sendmsg(int(sb.conn.Fd()), msg, unix.UnixRights(int(files[0].Fd()), int(files[1].Fd()), int(files[2].Fd())), nil, 0)
	}
	finish.started()
	if err != nil {
		sb.discard()
		finish.wait(0)
		return 126, fmt.Errorf("cannot hand the sandbox helper its command: %w", err)
	}
	p.handOver(sb.conn, box)
	sb.conn.Close()
	code := p.wait(ctx, sb.cmd, &group{pid: sb.cmd.Process.Pid}, box)
	finish.wait(ioDelay)
	return code, nil
}

// stdio is a program's standard streams as os/exec makes them: the ends the
// program gets, and the copies between pipes and rein's readers and
// writers.
type stdio struct {
	child   []*os.File // closed once the program has them
	parent  []*os.File // closed once the copies are done or given up
	copies  sync.WaitGroup
	devNull *os.File
}

// childStdio gives a program's standard streams as files: a file as it
// is, none as /dev/null, any other reader or writer through a pipe and a
// goroutine copying (one pipe where output and error are the same writer,
// as os/exec does, so that their order holds).
func childStdio(in io.Reader, out, errw io.Writer) ([3]*os.File, *stdio, error) {
	s := &stdio{}
	var files [3]*os.File
	null := func() (*os.File, error) {
		if s.devNull == nil {
			f, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
			if err != nil {
				return nil, err
			}
			s.devNull = f
			s.child = append(s.child, f)
		}
		return s.devNull, nil
	}
	var err error
	switch r := in.(type) {
	case nil:
		files[0], err = null()
	case *os.File:
		files[0] = r
	default:
		pr, pw, perr := os.Pipe()
		if perr != nil {
			return files, s, perr
		}
		files[0] = pr
		s.child, s.parent = append(s.child, pr), append(s.parent, pw)
		s.copies.Add(1)
		go func() {
			defer s.copies.Done()
			io.Copy(pw, r)
			pw.Close()
		}()
	}
	if err != nil {
		return files, s, err
	}
	writer := func(w io.Writer) (*os.File, error) {
		switch w := w.(type) {
		case nil:
			return null()
		case *os.File:
			return w, nil
		}
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		s.child, s.parent = append(s.child, pw), append(s.parent, pr)
		s.copies.Add(1)
		go func() {
			defer s.copies.Done()
			io.Copy(w, pr)
		}()
		return pw, nil
	}
	if files[1], err = writer(out); err != nil {
		return files, s, err
	}
	if sameWriter(out, errw) {
		files[2] = files[1]
	} else if files[2], err = writer(errw); err != nil {
		return files, s, err
	}
	return files, s, nil
}

// sameWriter reports whether a and b are the same writer (os/exec's test:
// values that cannot be compared are not).
func sameWriter(a, b io.Writer) (same bool) {
	defer func() { recover() }()
	return a != nil && a == b
}

// started closes the ends the program has now.
func (s *stdio) started() {
	for _, f := range s.child {
		f.Close()
	}
	s.child = nil
}

// wait waits up to delay for the copies (a program's leftover child may
// hold its output open), then closes rein's ends.
func (s *stdio) wait(delay time.Duration) {
	done := make(chan struct{})
	go func() { s.copies.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(delay):
	}
	for _, f := range s.parent {
		f.Close()
	}
}
