package runner

import (
	"golang.org/x/sys/unix"
	"io/fs"
	"os"
	"syscall"
	"time"
)

// changedAt is when a file's inode last changed (ctime): unlike its
// modification time, a command cannot set it back (touch -d).
func changedAt(st fs.FileInfo) time.Time {
	if s, ok := st.Sys().(*syscall.Stat_t); ok {
		return time.Unix(s.Ctim.Unix())
	}
	return st.ModTime()
}

// madeAt is when a file was made (its birth time, statx), where the file
// system keeps one.
func madeAt(path string) (time.Time, bool) {
	var sx unix.Statx_t
	if err := unix.Statx(unix.AT_FDCWD, path, unix.AT_SYMLINK_NOFOLLOW, unix.STATX_BTIME, &sx); err != nil || sx.Mask&unix.STATX_BTIME == 0 {
		return time.Time{}, false
	}
	return time.Unix(sx.Btime.Sec, int64(sx.Btime.Nsec)), true
}

// fileClock is the time the kernel stamps files with now, read off a file
// made for it: file times come from the kernel's coarse clock, or finer
// where one was asked for (Linux 6.13's multigrain times), and never go
// back, so a file made after this call has a later or equal time, one made
// before it an earlier or equal one. time.Now where no file can be made.
func fileClock() time.Time {
	f, err := os.CreateTemp("", "rein-clock-")
	if err != nil {
		return time.Now()
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if t, ok := madeAt(f.Name()); ok {
		return t
	}
	if st, err := f.Stat(); err == nil {
		return changedAt(st)
	}
	return time.Now()
}
