package main

import (
	"testing"

	"github.com/reinsh/rein/internal/nobody"
)

// rein's own tests run again as a user other than root (CI runs as root,
// and a person seldom does): what only another user meets shows here.
func TestReinAsAnotherUser(t *testing.T) { nobody.Rerun(t) }
