package runner

import (
	"golang.org/x/sys/unix"
	"io/fs"
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

// fileClock is the time the kernel stamps files with now: its coarse
// clock, a tick behind time.Now. A file made after this call has a later
// time (the command rein starts takes longer than a tick to start), one
// made before it does not.
func fileClock() time.Time {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_REALTIME_COARSE, &ts); err != nil {
		return time.Now()
	}
	return time.Unix(ts.Unix())
}
