package runner

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// DefaultShellMemory is how far rein's heap may grow during one run. The
// embedded shell keeps its variables, expanded words and the output of
// command substitutions in rein's own process, outside the sandbox and its
// limits: x=$x$x in a loop doubles a variable until the machine runs out of
// memory, and the system's out-of-memory killer may then pick another of
// the user's programs.
const DefaultShellMemory = 512 << 20

// runawayFactor times the budget is where a run that keeps growing after it
// was stopped is a runaway: one statement expanding a word (x=${x//?/$x}
// squares x) cannot be interrupted.
const runawayFactor = 4

// memoryCheck is how often the heap is looked at.
const memoryCheck = 5 * time.Millisecond

// exitOnRunaway is the default Options.Runaway: a goroutine expanding a
// word cannot be stopped, so rein stops itself before the system runs out
// of memory.
func exitOnRunaway(message string) {
	fmt.Fprintln(os.Stderr, "rein: "+message+"; rein stopped itself before the system ran out of memory")
	os.Exit(125)
}

// memoryWatch stops a run whose shell grows rein's heap by more than its
// budget: the run is cancelled, and the interpreter stops at its next
// statement (a command substitution's program is killed at once).
type memoryWatch struct {
	tripped atomic.Bool
	done    chan struct{}
}

func (r *Runner) watchMemory(cancel context.CancelFunc) *memoryWatch {
	w := &memoryWatch{done: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	base, budget := heap(), uint64(r.shellMemory)
	go func() {
		t := time.NewTicker(memoryCheck)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
			}
			h := heap()
			used := h - min(h, base)
			if used > budget && !w.tripped.Load() {
				w.tripped.Store(true)
				cancel()
			}
			if used > runawayFactor*budget {
				r.runaway(fmt.Sprintf("a command's shell took %d MiB of memory in one statement and could not be stopped", used>>20))
				return
			}
		}
	}()
	return w
}

// stop ends the watch and reports whether it stopped the run, handing the
// memory the shell took back to the system when it did.
func (w *memoryWatch) stop() bool {
	close(w.done)
	if !w.tripped.Load() {
		return false
	}
	debug.FreeOSMemory()
	return true
}

// memoryNote explains a run stopped for its memory.
func (r *Runner) memoryNote() string {
	return fmt.Sprintf("\n[rein stopped the command: its shell took more than %d MiB of memory]\n", r.shellMemory>>20)
}
