package shellparse

import (
	"os"
	"testing"

	"github.com/reinsh/rein/internal/testenv"
)

// TestMain runs the tests in an environment of their own (testenv): the
// developer's git configuration and home never decide what they see.
func TestMain(m *testing.M) {
	cleanup := testenv.Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}
