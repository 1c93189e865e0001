package tools

import (
	"context"
	"os"
	"os/user"
	"runtime"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/runner"
)

// SystemInfo is system_info's result.
type SystemInfo struct {
	OS        string             `json:"os"`
	Arch      string             `json:"arch"`
	CPUs      int                `json:"cpus"`
	Memory    uint64             `json:"memory"`
	DiskFree  uint64             `json:"disk_free"`
	Workspace string             `json:"workspace"`
	Cwd       string             `json:"cwd"`
	User      string             `json:"user"`
	Shell     string             `json:"shell"`
	Tools     map[string]*string `json:"tools"`
}

// toolVersions are the programs system_info reports, with how to ask them.
var toolVersions = map[string][]string{
	"go":     {"go", "version"},
	"node":   {"node", "--version"},
	"python": {"python3", "--version"},
	"git":    {"git", "version"},
	"cargo":  {"cargo", "--version"},
	"rustc":  {"rustc", "--version"},
	"npm":    {"npm", "--version"},
	"make":   {"make", "--version"},
}

// System describes the machine. Tool versions are asked through the runner,
// so they obey the recipe like any command: a tool the recipe does not
// allow, or that is missing, is reported as null.
func System(ctx context.Context, r *runner.Runner, workspace string) *SystemInfo {
	info := &SystemInfo{
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		Memory: totalMemory(), DiskFree: diskFree(workspace),
		Workspace: workspace, Shell: "embedded", Tools: map[string]*string{},
	}
	info.Cwd, _ = os.Getwd()
	if u, err := user.Current(); err == nil {
		info.User = u.Username
	}
	for name, argv := range toolVersions {
		res := r.RunArgv(ctx, argv, runner.RunOptions{Timeout: 5 * time.Second})
		if res.Error != "" || res.ExitCode != 0 {
			info.Tools[name] = nil
			continue
		}
		v := strings.TrimSpace(strings.SplitN(res.Stdout+res.Stderr, "\n", 2)[0])
		info.Tools[name] = &v
	}
	return info
}
