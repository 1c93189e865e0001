//go:build !linux

// Package nobody runs a package's tests again as the user nobody, from a
// test run as root (Linux only).
package nobody

import "testing"

// Env is set in the tests' environment when they run as nobody.
const Env = "REIN_TEST_AS_USER"

// Rerun skips: tests run as another user on Linux only.
func Rerun(t *testing.T, flags ...string) { t.Skip("tests run as another user on Linux only") }
