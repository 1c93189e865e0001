//go:build !linux && !darwin

package runner

import (
	"io/fs"
	"time"
)

// changedAt is when a file last changed, as far as the system says: its
// modification time (a command could set it back, but without a sandbox
// here it could do more than that).
func changedAt(st fs.FileInfo) time.Time { return st.ModTime() }

// madeAt is when a file was made, which this system does not say.
func madeAt(path string) (time.Time, bool) { return time.Time{}, false }

// fileClock is the time files are stamped with now.
func fileClock() time.Time { return time.Now() }
