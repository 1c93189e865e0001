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
