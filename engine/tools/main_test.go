package tools_test

import (
	"testing"

	"github.com/reinsh/rein/internal/testenv"
)

// TestMain runs the tests in an environment of their own (testenv): the
// developer's git configuration and home never decide what they see.
func TestMain(m *testing.M) { testenv.Main(m) }
