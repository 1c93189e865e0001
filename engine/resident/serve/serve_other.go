//go:build !linux

package serve

import (
	"errors"
	"runtime"
	"time"
)

// Serve: resident engines are Linux's.
func Serve(string, time.Duration, func(*Request) int) error {
	return errors.New("resident engines need Linux; not on " + runtime.GOOS)
}
