package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// A command leads a session of its own, without a controlling terminal:
// started from rein in a terminal, it cannot open /dev/tty to read the
// keystrokes meant for rein's prompts, nor push input into the terminal.
func TestCommandsHaveNoTerminal(t *testing.T) {
	r, _ := newRunner(t, "readonly", nil)
	res := r.Run(context.Background(), "cat /proc/self/stat", runner.RunOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	// pid (comm) state ppid pgrp session tty_nr ...
	stat := res.Stdout
	fields := strings.Fields(stat[strings.LastIndexByte(stat, ')')+1:])
	pid := strings.Fields(stat)[0]
	if len(fields) < 5 || fields[3] != pid || fields[4] != "0" {
		t.Errorf("pid %s: session %v, tty %v, want a session of its own and no terminal (stat %q)", pid, fields[3], fields[4], stat)
	}
}
