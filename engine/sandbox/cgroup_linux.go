//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// pidsRoot finds a writable pids cgroup hierarchy (v1 or v2), which limits
// processes even for root (RLIMIT_NPROC does not).
func pidsRoot() string {
	for _, root := range []string{"/sys/fs/cgroup/pids", "/sys/fs/cgroup"} {
		if _, err := os.Stat(filepath.Join(root, "pids.max")); err == nil || root == "/sys/fs/cgroup/pids" && exists(filepath.Join(root, "cgroup.procs")) {
			if writable(root) {
				return root
			}
		}
		if b, err := os.ReadFile(filepath.Join(root, "cgroup.subtree_control")); err == nil && strings.Contains(string(b), "pids") && writable(root) {
			return root
		}
	}
	return ""
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

func writable(dir string) bool {
	probe := filepath.Join(dir, fmt.Sprintf("rein-probe-%d", os.Getpid()))
	if err := os.Mkdir(probe, 0o755); err != nil {
		return false
	}
	os.Remove(probe)
	return true
}

// NewProcessLimit makes a pids cgroup allowing max processes; the returned
// path goes in Config.Cgroup, and done removes it and reports whether the
// limit refused a fork.
func NewProcessLimit(max int) (path string, done func() (hit bool), err error) {
	root := pidsRoot()
	if root == "" || max <= 0 {
		return "", func() bool { return false }, nil
	}
	dir, err := os.MkdirTemp(root, "rein-")
	if err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0o644); err != nil {
		os.Remove(dir)
		return "", nil, err
	}
	return dir, func() bool {
		hit := false
		if b, err := os.ReadFile(filepath.Join(dir, "pids.events")); err == nil {
			f := strings.Fields(string(b))
			hit = len(f) == 2 && f[0] == "max" && f[1] != "0"
		}
		// Kill whatever is left (forks that escaped the process group).
		if b, err := os.ReadFile(filepath.Join(dir, "cgroup.procs")); err == nil {
			for _, pid := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(pid); err == nil {
					if p, err := os.FindProcess(n); err == nil {
						p.Kill()
					}
				}
			}
		}
		for i := 0; i < 50 && os.Remove(dir) != nil; i++ {
			sleepBriefly()
		}
		return hit
	}, nil
}
