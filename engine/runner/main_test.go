package runner_test

import (
	"os"
	"testing"

	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/internal/testenv"
)

// TestMain lets the test binary act as rein's sandbox helper, which the
// runner re-executes to confine programs, and runs the tests in an
// environment of their own (testenv).
func TestMain(m *testing.M) {
	if len(os.Args) > 2 && os.Args[1] == sandbox.HelperArg {
		sandbox.Main(os.Args[2:])
	}
	testenv.Main(m)
}
