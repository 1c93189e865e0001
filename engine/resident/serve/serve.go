// Package serve is the engine's side of package resident: a rein that
// serves its socket, takes each request from a caller outside any sandbox,
// and runs it in the caller's folder with the caller's standard streams.
package serve

import (
	"context"
	"os"
	"time"

	"github.com/reinsh/rein/engine/resident"
)

// Request is one command a caller handed the resident engine.
type Request struct {
	// Args are rein's arguments, without the program name.
	Args []string
	// Dir is the caller's working folder (its physical path).
	Dir string
	// Stdin, Stdout and Stderr are the caller's own.
	Stdin, Stdout, Stderr *os.File
	// StdinTerminal: the caller's standard input is a terminal.
	StdinTerminal bool
	// EndAfter, set by the command, ends the engine once it has answered:
	// the command left work running that only a process's end stops.
	EndAfter bool
	// Context is done when the caller ends before the command does: the
	// command should stop as it would on ^C (the engine then ends).
	Context context.Context
	// After, set by the command, runs once the caller has its answer:
	// work for the next command, off this one's time.
	After func()

	pwd, oldpwd *string // the caller's $PWD and $OLDPWD (nil: unset)
	withdrawn   bool    // the caller withdrew it before it was read whole
}

// Idle is how long an engine waits for a request: $REIN_RESIDENT_IDLE (a
// Go duration) or resident.DefaultIdle seconds.
func Idle() time.Duration {
	if d, err := time.ParseDuration(os.Getenv("REIN_RESIDENT_IDLE")); err == nil && d > 0 {
		return d
	}
	return resident.DefaultIdle * time.Second
}
