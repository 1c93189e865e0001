package runner

import (
	"io/fs"
	"os"
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

// madeAt is when a file was made (its birth time).
func madeAt(path string) (time.Time, bool) {
	st, err := os.Lstat(path)
	if err != nil {
		return time.Time{}, false
	}
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Birthtimespec.Unix()), true
	}
	return time.Time{}, false
}

// fileClock is the time files are stamped with now.
func fileClock() time.Time { return time.Now() }
