// Package testenv gives a test binary an environment of its own, so that
// nothing of the developer's machine but its programs decides what a test
// sees: a home, configuration, state and cache folders of the run's own,
// and a git that reads only the configuration written here (an author, no
// signing, the main branch) — never the developer's ~/.gitconfig, whose
// commit.gpgsign, aliases or hooksPath made tests fail or pass for reasons
// of their own. Go's, Python's and Rust's own folders stay where they were,
// so that builds keep their caches.
package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// gitConfig is the only git configuration tests read.
const gitConfig = `[user]
	name = rein tests
	email = tests@rein.invalid
[commit]
	gpgsign = false
[tag]
	gpgsign = false
[init]
	defaultBranch = main
[advice]
	detachedHead = false
`

// Isolate sets the process's environment for the tests, before they run,
// and returns what removes its folders. Call it first in TestMain.
func Isolate() (cleanup func()) {
	dir, err := os.MkdirTemp("", "rein-testenv-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(2)
	}
	home, _ := os.UserHomeDir()
	cache, _ := os.UserCacheDir()
	// Toolchains find their folders from HOME: pin them first.
	keep := map[string]string{
		"GOCACHE":          filepath.Join(cache, "go-build"),
		"GOPATH":           filepath.Join(home, "go"),
		"PYENV_ROOT":       filepath.Join(home, ".pyenv"),
		"CARGO_HOME":       filepath.Join(home, ".cargo"),
		"RUSTUP_HOME":      filepath.Join(home, ".rustup"),
		"npm_config_cache": filepath.Join(home, ".npm"),
	}
	for name, def := range keep {
		if os.Getenv(name) == "" && home != "" {
			os.Setenv(name, def)
		}
	}
	if os.Getenv("GOMODCACHE") == "" {
		os.Setenv("GOMODCACHE", filepath.Join(os.Getenv("GOPATH"), "pkg", "mod"))
	}
	for _, name := range []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME"} {
		p := filepath.Join(dir, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "testenv:", err)
			os.Exit(2)
		}
		os.Setenv(name, p)
	}
	global := filepath.Join(os.Getenv("HOME"), ".gitconfig")
	if err := os.WriteFile(global, []byte(gitConfig), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "testenv:", err)
		os.Exit(2)
	}
	os.Setenv("GIT_CONFIG_GLOBAL", global)
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_CONFIG", "GIT_CONFIG_PARAMETERS",
		"GIT_CONFIG_COUNT", "GIT_CONFIG_SYSTEM", "GIT_EXEC_PATH", "GIT_TEMPLATE_DIR", "GIT_CEILING_DIRECTORIES"} {
		os.Unsetenv(name)
	}
	for _, who := range []string{"AUTHOR", "COMMITTER"} {
		os.Setenv("GIT_"+who+"_NAME", "rein tests")
		os.Setenv("GIT_"+who+"_EMAIL", "tests@rein.invalid")
	}
	return func() { os.RemoveAll(dir) }
}

// Main runs a package's tests in the environment Isolate makes: a test
// binary's TestMain when it needs nothing else.
func Main(m *testing.M) {
	cleanup := Isolate()
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// Sleeps are the live processes running sleep with marker (a duration no
// other program uses): what a test's command may have left behind.
func Sleeps(marker string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.Contains(string(b), "sleep\x00"+marker) {
			continue
		}
		if st, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
			continue // a zombie is dead
		}
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}
