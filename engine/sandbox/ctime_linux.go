package sandbox

import (
	"os"
	"syscall"
	"time"
)

// changedAt is when a file's inode last changed (ctime): a name made,
// removed or renamed in a folder changes it, and, unlike the modification
// time, a command cannot set it back (utime changes it too).
func changedAt(st os.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Ctim.Unix())
	}
	return st.ModTime()
}
