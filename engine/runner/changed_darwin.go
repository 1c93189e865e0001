package runner

import (
	"io/fs"
	"syscall"
	"time"
)

// changedAt is when a file's inode last changed (ctime): unlike its
// modification time, a command cannot set it back (touch -d).
func changedAt(st fs.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Ctimespec.Unix())
	}
	return st.ModTime()
}
