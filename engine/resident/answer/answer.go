// Package answer lets rein hand a command it may (rein check, rein hook,
// rein exec: resident.Serves) to a resident engine before its own start.
// cmd/rein imports it for its init, which needs nothing but package
// resident and syscall and so runs among the first of the program's: when a
// resident engine takes the command, rein ends with its status there,
// before the initialisations of the recipe language, the database and the
// rest (most of rein's start). When none is running, it starts one for the
// next command and rein goes on by itself. $REIN_RESIDENT=off turns both
// off.
package answer

import (
	"errors"
	"syscall"

	"github.com/reinsh/rein/engine/resident"
)

func init() {
	mode, _ := syscall.Getenv("REIN_RESIDENT")
	if mode == resident.Off {
		return
	}
	args, err := resident.Args()
	if err != nil || !resident.Serves(args, resident.Terminal(0)) {
		return
	}
	exe, err := resident.Executable()
	if err != nil {
		return
	}
	code, err := call(exe, args, mode == resident.Require)
	if err == nil {
		syscall.Exit(code)
	}
	if mode == resident.Require || !errors.Is(err, resident.ErrNoEngine) && !errors.Is(err, resident.ErrRefused) {
		// Required, or started and lost: answering again could say (or
		// run) it twice.
		syscall.Write(2, []byte("rein: "+err.Error()+"\n"))
		syscall.Exit(2)
	}
}

// call hands args to the resident engine for exe, starting one for the
// next command if none runs; with wait, it waits for a busy engine.
func call(exe string, args []string, wait bool) (int, error) {
	socket, err := resident.Socket(exe)
	if err != nil {
		return 0, &noEngine{err}
	}
	code, err := resident.Call(socket, args, wait)
	if errors.Is(err, resident.ErrNoEngine) && !temporary(exe) {
		if serr := resident.Start(exe, socket); serr != nil {
			return 0, errors.Join(err, serr)
		}
	}
	return code, err
}

// temporary: a build go run deletes when it ends gets no engine (each go
// run would start another).
func temporary(exe string) bool {
	for i := 0; i+len("/go-build") <= len(exe); i++ {
		if exe[i:i+len("/go-build")] == "/go-build" {
			return true
		}
	}
	return false
}

// noEngine: no resident engine can be used here (the reason says why).
type noEngine struct{ err error }

func (n *noEngine) Error() string { return n.err.Error() }
func (n *noEngine) Unwrap() error { return resident.ErrNoEngine }
