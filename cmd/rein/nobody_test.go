package main

import (
	"testing"

	"github.com/reinsh/rein/internal/nobody"
)

// rein's own tests run again as a user other than root (CI runs as root,
// and a person seldom does): what only another user meets shows here.
func TestReinAsAnotherUser(t *testing.T) { nobody.Rerun(t) }

// The damaged-state cases that file permissions make (a database in a
// read-only folder) stop only a user other than root.
func TestFaultsAsAnotherUser(t *testing.T) {
	if testing.Short() {
		t.Skip("fault suite")
	}
	nobody.Rerun(t, "-test.run=^TestFaultBadState$")
}
