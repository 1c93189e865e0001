package runner

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"time"
)

// process describes one program to run.
type process struct {
	path   string
	argv   []string
	env    []string
	dir    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	grace  time.Duration // between SIGTERM and SIGKILL on cancel
}

// ioDelay is how long a finished command's output pipes may stay open
// (held by a leftover background child) before rein stops waiting.
const ioDelay = time.Second

// run starts the program in its own process group and waits. When ctx ends
// first, the group gets SIGTERM, then SIGKILL after the grace period. After
// the program ends, whatever it left behind in its group is killed: no
// grandchild outlives the command.
func (p process) run(ctx context.Context) (int, error) {
	cmd := exec.Command(p.path)
	cmd.Args, cmd.Env, cmd.Dir = p.argv, p.env, p.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.stdin, p.stdout, p.stderr
	cmd.WaitDelay = ioDelay
	g, err := startInGroup(cmd)
	if err != nil {
		if isNotExecutable(err) {
			return 126, fmt.Errorf("%s is not a program this system can run (a script needs a #! line and an allowed interpreter)", p.argv[0])
		}
		return 127, fmt.Errorf("%s: %v", p.argv[0], err)
	}
	defer g.close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		g.kill()
	case <-ctx.Done():
		g.terminate()
		select {
		case err = <-done:
			g.kill()
		case <-time.After(p.grace):
			g.kill()
			err = <-done
		}
	}
	return exitCode(err), nil
}
