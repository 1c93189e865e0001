// Package version reports which rein this is.
package version

import "runtime/debug"

// Version is set at build time with -ldflags "-X github.com/reinsh/rein/engine/version.Version=v1.2.3".
var Version = ""

// String is the version, falling back to the module version or VCS revision.
func String() string {
	if Version != "" {
		return Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, modified := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified {
		rev += "-dirty"
	}
	return "dev-" + rev
}
