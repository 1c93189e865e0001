//go:build linux

package serve_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/reinsh/rein/engine/resident"
	"github.com/reinsh/rein/engine/resident/serve"
)

// The test binary plays the engine and its callers too, by $RESIDENT_ROLE.
func TestMain(m *testing.M) {
	switch os.Getenv("RESIDENT_ROLE") {
	case "engine":
		err := serve.Serve(os.Getenv("RESIDENT_SOCKET"), serve.Idle(), testEngine)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	case "caller", "nnp-caller":
		if os.Getenv("RESIDENT_ROLE") == "nnp-caller" {
			if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
				panic(err)
			}
		}
		code, err := resident.Call(os.Getenv("RESIDENT_SOCKET"), strings.Fields(os.Getenv("RESIDENT_ARGS")), false)
		switch {
		case errors.Is(err, resident.ErrNoEngine):
			fmt.Fprintln(os.Stderr, "no engine:", err)
			os.Exit(100)
		case errors.Is(err, resident.ErrRefused):
			fmt.Fprintln(os.Stderr, "refused:", err)
			os.Exit(101)
		case err != nil:
			fmt.Fprintln(os.Stderr, "broken:", err)
			os.Exit(102)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// testEngine answers "check ..." requests: echo prints its folder and
// arguments, code N ends with N, wait waits for the caller to end, panic
// panics, leave leaves work running.
func testEngine(r *serve.Request) int {
	wd, _ := os.Getwd()
	switch r.Args[1] {
	case "echo":
		fmt.Fprintf(r.Stdout, "dir=%s pwd=%s args=%q\n", wd, os.Getenv("PWD"), r.Args)
		fmt.Fprintln(r.Stderr, "to stderr")
	case "code":
		n, _ := strconv.Atoi(r.Args[2])
		return n
	case "wait":
		fmt.Fprintln(r.Stdout, "waiting")
		<-r.Context.Done()
	case "panic":
		panic("on purpose")
	case "leave":
		r.EndAfter = true
		return 5
	case "stdin":
		b, _ := io.ReadAll(r.Stdin)
		fmt.Fprintf(r.Stdout, "read %q\n", b)
	}
	return 0
}

func linuxOnly(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("resident engines are Linux's")
	}
}

// engine starts the test binary as a resident engine in a folder of its
// own and waits for its socket.
func engine(t *testing.T, idle string) (socket string, proc *exec.Cmd) {
	t.Helper()
	linuxOnly(t)
	socket = filepath.Join(t.TempDir(), "e.sock")
	proc = exec.Command(os.Args[0])
	proc.Env = append(os.Environ(), "RESIDENT_ROLE=engine", "RESIDENT_SOCKET="+socket, "REIN_RESIDENT_IDLE="+idle)
	proc.Stderr = os.Stderr
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if proc.ProcessState == nil {
			proc.Process.Kill()
			proc.Wait()
		}
	})
	for i := 0; i < 500; i++ {
		if _, err := os.Stat(socket); err == nil {
			return socket, proc
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the engine made no socket")
	return
}

func caller(socket, dir, role string, args ...string) *exec.Cmd {
	c := exec.Command(os.Args[0])
	c.Dir = dir
	c.Env = append(os.Environ(), "RESIDENT_ROLE="+role, "RESIDENT_SOCKET="+socket, "RESIDENT_ARGS="+strings.Join(args, " "))
	return c
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

// Each request runs in its caller's folder, with its arguments, writes to
// its caller's own streams, and ends with the status the command gave.
func TestRequestsRunAsTheirCallers(t *testing.T) {
	socket, _ := engine(t, "1m")
	for _, dir := range []string{t.TempDir(), t.TempDir()} {
		c := caller(socket, dir, "caller", "check", "echo", "a")
		c.Env = append(c.Env, "PWD="+dir) // as a shell sets it
		var stderr strings.Builder
		c.Stderr = &stderr
		out, err := c.Output()
		if err != nil {
			t.Fatalf("%v: %s", err, stderr.String())
		}
		want := fmt.Sprintf("dir=%s pwd=%s args=%q\n", dir, dir, []string{"check", "echo", "a"})
		if string(out) != want || stderr.String() != "to stderr\n" {
			t.Errorf("stdout %q, stderr %q; want %q", out, stderr.String(), want)
		}
	}
	c := caller(socket, t.TempDir(), "caller", "check", "stdin")
	c.Stdin = strings.NewReader("a call")
	if out, err := c.Output(); err != nil || string(out) != "read \"a call\"\n" {
		t.Errorf("stdin: %q %v", out, err)
	}
	if err := caller(socket, t.TempDir(), "caller", "check", "code", "7").Run(); exitCode(err) != 7 {
		t.Errorf("status: %v, want 7", err)
	}
}

// Commands that run programs are never served, whoever asks.
func TestRefusesWhatItDoesNotServe(t *testing.T) {
	socket, _ := engine(t, "1m")
	out, err := caller(socket, t.TempDir(), "caller", "run", "echo").CombinedOutput()
	if exitCode(err) != 101 || !strings.Contains(string(out), "not served") {
		t.Errorf("%v: %s", err, out)
	}
}

// A caller with no_new_privs — every program in rein's sandbox, and in most
// others — is refused: an engine outside the sandbox would decide for it.
func TestRefusesCallersInASandbox(t *testing.T) {
	socket, _ := engine(t, "1m")
	out, err := caller(socket, t.TempDir(), "nnp-caller", "check", "echo").CombinedOutput()
	if exitCode(err) != 101 || !strings.Contains(string(out), "no_new_privs") {
		t.Errorf("%v: %s", err, out)
	}
}

// A caller that dies while its command runs stops the command (its
// Context is done, as ^C would stop it) and ends the engine, as its death
// would have ended a rein of its own.
func TestCallersDeathEndsTheEngine(t *testing.T) {
	socket, proc := engine(t, "1m")
	c := caller(socket, t.TempDir(), "caller", "check", "wait")
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "waiting\n" {
		t.Fatalf("%q %v", line, err)
	}
	c.Process.Kill()
	c.Wait()
	ended := make(chan error, 1)
	go func() { ended <- proc.Wait() }()
	select {
	case err := <-ended:
		if err != nil {
			t.Errorf("the engine ended with %v, want status 0 (its command stopped)", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the engine still runs after its caller died")
	}
}

// A command that panics reports it as an engine of its own would, and the
// engine ends after its answer.
func TestPanicEndsTheEngine(t *testing.T) {
	socket, proc := engine(t, "1m")
	out, err := caller(socket, t.TempDir(), "caller", "check", "panic").CombinedOutput()
	if exitCode(err) != 2 || !strings.Contains(string(out), "internal error: on purpose") {
		t.Errorf("%v: %s", err, out)
	}
	if err := proc.Wait(); exitCode(err) != 2 {
		t.Errorf("the engine ended with %v", err)
	}
}

// An idle engine ends by itself and takes its socket away; a caller then
// finds no engine (and may start one).
func TestIdleEngineEnds(t *testing.T) {
	socket, proc := engine(t, "300ms")
	if err := proc.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(socket); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the socket stayed: %v", err)
	}
	if err := caller(socket, t.TempDir(), "caller", "check", "echo").Run(); exitCode(err) != 100 {
		t.Errorf("after the engine ended: %v, want no engine (100)", err)
	}
}

// Two engines started for one socket: the second sees the first and ends.
func TestOneEnginePerSocket(t *testing.T) {
	socket, _ := engine(t, "1m")
	second := exec.Command(os.Args[0])
	second.Env = append(os.Environ(), "RESIDENT_ROLE=engine", "RESIDENT_SOCKET="+socket)
	done := make(chan error, 1)
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- second.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("the second engine: %v", err)
		}
	case <-time.After(5 * time.Second):
		second.Process.Signal(syscall.SIGKILL)
		t.Fatal("a second engine serves the same socket")
	}
	if err := caller(socket, t.TempDir(), "caller", "check", "code", "0").Run(); err != nil {
		t.Errorf("the first engine stopped serving: %v", err)
	}
}

// A command that leaves work running ends the engine after its answer.
func TestEndAfter(t *testing.T) {
	socket, proc := engine(t, "1m")
	if err := caller(socket, t.TempDir(), "caller", "check", "leave").Run(); exitCode(err) != 5 {
		t.Errorf("the caller got %v, want status 5", err)
	}
	if err := proc.Wait(); err != nil {
		t.Errorf("the engine ended with %v", err)
	}
}

// An engine busy with a command answers nobody else, and its callers do
// not wait for it: a command that may run long (rein exec) marks the
// engine busy, and they answer by themselves at once; otherwise they
// withdraw their request after resident.WithdrawAfter.
func TestBusyEngineIsPassedBy(t *testing.T) {
	for _, first := range []string{"exec", "check"} {
		t.Run(first, func(t *testing.T) {
			socket, _ := engine(t, "1m")
			c := caller(socket, t.TempDir(), "caller", first, "wait")
			stdout, _ := c.StdoutPipe()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { c.Process.Kill(); c.Wait() }()
			if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "waiting\n" {
				t.Fatalf("%q %v", line, err)
			}
			_, err := os.Stat(socket + resident.BusySuffix)
			if marked := err == nil; marked != (first == "exec") {
				t.Errorf("busy mark: %v", err)
			}
			start := time.Now()
			out, err := caller(socket, t.TempDir(), "caller", "check", "echo").CombinedOutput()
			if exitCode(err) != 101 || time.Since(start) > 2*time.Second {
				t.Errorf("the second caller: %v after %v: %s", err, time.Since(start), out)
			}
		})
	}
}

// An engine killed while the command runs leaves its caller saying so: the
// command may have run, so the caller does not run it again.
func TestEngineKilledMidCommand(t *testing.T) {
	socket, proc := engine(t, "1m")
	c := caller(socket, t.TempDir(), "caller", "check", "wait")
	stdout, _ := c.StdoutPipe()
	var stderr strings.Builder
	c.Stderr = &stderr
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "waiting\n" {
		t.Fatalf("%q %v", line, err)
	}
	proc.Process.Kill()
	if err := c.Wait(); exitCode(err) != 102 || !strings.Contains(stderr.String(), "the resident engine ended before the command did") {
		t.Errorf("the caller: %v, %q", err, stderr.String())
	}
}
