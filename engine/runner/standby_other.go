//go:build !linux

package runner

import (
	"context"
	"errors"

	"github.com/reinsh/rein/engine/sandbox"
)

// Standby keeps a sandbox helper started ahead of the next program: the
// helper is Linux's, so elsewhere it keeps none.
type Standby struct{}

type standbyKey struct{}

type standby struct{}

func standbyKeyOf(string, *sandbox.Config) standbyKey { return standbyKey{} }

func (s *Standby) take(standbyKey) *standby { return nil }

// Refill starts nothing here.
func (s *Standby) Refill() {}

// Waiting: never here.
func (s *Standby) Waiting() bool { return false }

// Close ends nothing here.
func (s *Standby) Close() {}

func (p process) launch(context.Context, *standby, []string, *sandbox.Config) (int, error) {
	return 126, errors.New("no sandbox helper here")
}
