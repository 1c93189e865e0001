package sandbox

import (
	"testing"

	"github.com/reinsh/rein/internal/nobody"
)

// The sandbox's tests run again as a user other than root (CI runs as
// root, and a person seldom does).
func TestSandboxAsAnotherUser(t *testing.T) { nobody.Rerun(t) }
