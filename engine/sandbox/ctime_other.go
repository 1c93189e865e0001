//go:build !linux

package sandbox

import (
	"os"
	"time"
)

// changedAt is when a file last changed, as far as rein reads it here
// (where no walk of the workspace covers anything: see secrets.go).
func changedAt(st os.FileInfo) time.Time { return st.ModTime() }
