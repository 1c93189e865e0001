//go:build linux

package sandbox

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Probe reports what this kernel can enforce.
func Probe() Status {
	st := Status{OS: "linux", Rlimits: true}
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 1 {
		st.Why = "Landlock is not enabled in this kernel"
		if err != nil {
			st.Why += " (" + err.Error() + ")"
		}
	} else {
		st.LandlockABI, st.Filesystem, st.Network = v, true, v >= 4
		st.Seccomp = seccompAvailable()
	}
	st.PIDsCgroup = pidsRoot()
	st.Namespaces, st.NamespacesWhy = probeNamespaces()
	return st
}

// Main is the helper: it applies cfg, then runs the program (see
// supervise) or, with no sandbox but limits, replaces itself with it.
// Errors end the process with status 126.
func Main(args []string) {
	if len(args) < 3 {
		fail("usage: rein __sandbox CONFIG|fd:N PATH ARGV...")
	}
	// Short-lived, with a small heap: collecting garbage while the program
	// runs would only cost CPU.
	debug.SetGCPercent(-1)
	raw := []byte(args[0])
	var sigs chan os.Signal
	if strings.HasPrefix(args[0], GateArg) {
		// rein's own call, which supervises: listen for the signals that
		// end a command while rein works the configuration out (the
		// runtime starts a thread for them; a third of a millisecond).
		sigs = listen()
		raw = readGate(args[0])
	}
	var c Config
	if err := json.Unmarshal(raw, &c); err != nil {
		fail("bad sandbox config: " + err.Error())
	}
	if err := checkProtocol(c); err != nil {
		fail(err.Error())
	}
	path, argv := args[1], args[2:]
	confined, supervised := c.Confined(), c.Supervised() && !c.Stage
	if c.Isolate && !c.Stage {
		mounted, err := mountPlaces(c)
		if err != nil {
			fail(err.Error())
		}
		if !mounted {
			c = c.uncovered()
		}
		if c.Network {
			// The command's own network: its loopback works (a test's
			// local server), and a proxy, where it has one, is its way out.
			if err := loopbackUp(); err != nil {
				fail("cannot bring up the command's loopback: " + err.Error())
			}
			if c.Proxy != nil {
				if err := forwardProxy(*c.Proxy); err != nil {
					fail("cannot reach rein's proxy: " + err.Error())
				}
			}
		}
	}
	if c.Cgroup != "" && !c.Stage {
		if err := os.WriteFile(c.Cgroup+"/cgroup.procs", []byte("0"), 0o644); err != nil {
			fail("cannot join the process-limit cgroup: " + err.Error())
		}
	}
	staged := supervised && confined
	if staged {
		// The supervisor stays outside the program's sandbox: a stage it
		// starts confines itself and becomes the program. Confined here,
		// the supervisor's thread that started the program shared its
		// Landlock domain, and the program could signal it to death (by
		// its thread's id, or a pidfd of its /proc folder) and outlive it.
		path, argv = stageCommand(c, path, argv)
		confined = false
	}
	if confined {
		if err := restrict(c); err != nil {
			fail("cannot apply the Landlock sandbox: " + err.Error())
		}
	}
	// Last: the helper itself has to live within them.
	limits := c.Limits
	if supervised && limits.AddressSpace > 0 {
		// The helper stays while the program runs, and a Go program cannot
		// live in a small address space: a second helper (the stage, where
		// there is one) sets that limit and replaces itself with the
		// program.
		limits.AddressSpace = 0
		if !staged {
			path, argv = addressSpaceStage(c.Limits.AddressSpace, path, argv)
		}
	}
	if !supervised {
		// The thread that executes the program, locked before the limits:
		// locking may start a thread, which an address-space limit may not
		// leave the memory for (the second helper's).
		runtime.LockOSThread()
		dropAmbient()
		filterCommand(c)
	}
	if staged {
		// The stage sets the limits as it becomes the program: under
		// limits.processes (RLIMIT_NPROC) here, the stage, a Go program,
		// could not start its threads.
		limits = Limits{}
	}
	// What exec needs, made before the limits: under a small address
	// space the Go runtime may find no room left to allocate it.
	exec, execErr := prepareExec(path, argv, os.Environ())
	if err := applyRlimits(limits); err != nil {
		fail("cannot set resource limits: " + err.Error())
	}
	if supervised {
		// Nothing to flush; os.Exit's hooks would hold the command's end
		// back (a second, in a race-enabled build).
		syscall.Exit(supervise(path, argv, c.Parent, sigs))
	}
	if sigs != nil {
		signal.Stop(sigs)
	}
	if execErr == nil {
		execErr = exec()
	}
	fail(fmt.Sprintf("%s: %v", argv[0], execErr))
}

// prepareExec is execve of path with argv and env, its strings made ready
// now: calling it allocates nothing.
func prepareExec(path string, argv, env []string) (func() error, error) {
	p, err := syscall.BytePtrFromString(path)
	if err != nil {
		return nil, err
	}
	a, err := syscall.SlicePtrFromStrings(argv)
	if err != nil {
		return nil, err
	}
	e, err := syscall.SlicePtrFromStrings(env)
	if err != nil {
		return nil, err
	}
	return func() error {
		_, _, errno := syscall.RawSyscall(syscall.SYS_EXECVE, uintptr(unsafe.Pointer(p)), uintptr(unsafe.Pointer(&a[0])), uintptr(unsafe.Pointer(&e[0])))
		return errno
	}, nil
}

// stageCommand is the invocation of the stage that confines the program
// for a supervising helper (Config.Stage): c, with what the supervisor did
// already (mounts, the cgroup) taken out.
func stageCommand(c Config, path string, argv []string) (string, []string) {
	self, err := os.Executable()
	if err != nil {
		fail("cannot find the helper to start the program's sandbox: " + err.Error())
	}
	c.Stage, c.Supervise, c.Cgroup, c.Parent = true, false, "", 0
	c.ReadOnly, c.Pin, c.HideServices, c.Cover, c.Proxy = nil, nil, nil, nil, nil
	b, err := json.Marshal(c)
	if err == nil && len(b) > maxConfigArg {
		// Past one argument's size, the stage works the grants out itself.
		c.Grants = nil
		b, err = json.Marshal(c)
	}
	if err != nil {
		fail("cannot write the program's sandbox: " + err.Error())
	}
	return self, append([]string{"rein-sandbox", HelperArg, string(b), path}, argv...)
}

// addressSpaceStage is the helper invocation that limits the address
// space to n bytes, then runs argv.
func addressSpaceStage(n int64, path string, argv []string) (string, []string) {
	self, err := os.Executable()
	if err != nil {
		fail("cannot find rein to limit the address space: " + err.Error())
	}
	c := Config{Mode: "off", Limits: Limits{AddressSpace: n}}
	self, argv, err = c.Command(self, path, argv)
	if err != nil {
		fail(err.Error())
	}
	return self, argv
}

// readGate reads the configuration from the gate the helper's first
// argument names ("fd:3"), and closes it: the program never has it.
func readGate(arg string) []byte {
	fd, err := strconv.Atoi(strings.TrimPrefix(arg, GateArg))
	if err != nil || fd < 3 {
		fail("bad gate " + arg)
	}
	f := os.NewFile(uintptr(fd), "gate")
	defer f.Close()
	raw, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil {
		fail("rein sent no configuration (it ended, or the run was stopped)")
	}
	return raw
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, "rein sandbox: "+msg)
	os.Exit(126)
}

func restrict(c Config) error {
	g, extra := c.Grants, []string(nil)
	if g == nil {
		// Not prepared by rein (a configuration too large for one
		// argument): worked out here.
		g = readGrants(c.readRoots(c.Read), c.Hide)
	}
	if len(c.Read) > 0 && c.TempDir != "" {
		// Reads confined: the command's own temp folder is readable too.
		extra = append(extra, c.TempDir)
	}
	rules := append(readRules(g, extra...),
		landlock.RWFiles("/dev/null", "/dev/zero", "/dev/full").IgnoreIfMissing(),
	)
	if c.Mode == "workspace-write" {
		dirs, files := []string{c.Workspace}, []string(nil)
		for _, w := range c.Write {
			// A file (cargo's lock file) is granted on its own: Landlock
			// takes no folder rights on a file.
			if st, err := os.Stat(w); err == nil && !st.IsDir() {
				files = append(files, w)
			} else {
				dirs = append(dirs, w)
			}
		}
		if c.TempDir != "" {
			dirs = append(dirs, c.TempDir)
		}
		rules = append(rules, landlock.RWDirs(dirs...).IgnoreIfMissing().WithRefer())
		if len(files) > 0 {
			rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
		}
		rules = append(rules, landlock.RWDirs("/dev/shm").IgnoreIfMissing())
	}
	if c.Mode == "read-only" && c.TempDir != "" {
		// Sorting a large file or a compiler's scratch needs a temporary
		// folder: the command's own, removed after it, is the only write.
		rules = append(rules, landlock.RWDirs(c.TempDir).IgnoreIfMissing())
	}
	cfg := landlock.V7.BestEffort()
	if c.Network && !c.Isolate {
		return cfg.Restrict(rules...) // no network rules: every TCP connect and bind is refused
	}
	if err := cfg.RestrictPaths(rules...); err != nil {
		return err
	}
	// Signals and abstract unix sockets stay inside the command (ABI 6):
	// it cannot kill the user's other programs or rein, nor reach an X
	// server's abstract socket.
	return cfg.RestrictScoped()
}

func applyRlimits(l Limits) error {
	set := func(res int, v uint64) error {
		if v == 0 {
			return nil
		}
		return syscall.Setrlimit(res, &syscall.Rlimit{Cur: v, Max: v})
	}
	if l.CPUSeconds > 0 {
		// SIGXCPU at the soft limit (so rein can name the limit), SIGKILL
		// two seconds later for a program that ignores it.
		cpu := uint64(l.CPUSeconds)
		if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu + 2}); err != nil {
			return err
		}
	}
	if err := set(syscall.RLIMIT_FSIZE, uint64(l.FileSize)); err != nil {
		return err
	}
	if err := set(syscall.RLIMIT_AS, uint64(l.AddressSpace)); err != nil {
		return err
	}
	return set(6 /* RLIMIT_NPROC */, uint64(l.Processes))
}

// readRules grants reading as g says, and the folders in extra whole.
func readRules(g *ReadGrants, extra ...string) []landlock.Rule {
	rules := []landlock.Rule{}
	ownDirs, ownFiles := g.own()
	if dirs := append(append(append([]string(nil), g.Dirs...), extra...), ownDirs...); len(dirs) > 0 {
		rules = append(rules, landlock.RODirs(dirs...).IgnoreIfMissing())
	}
	if files := append(append([]string(nil), g.Files...), ownFiles...); len(files) > 0 {
		rules = append(rules, landlock.ROFiles(files...).IgnoreIfMissing())
	}
	if len(g.List) > 0 {
		// Listing the folders on the way down stays possible.
		rules = append(rules, landlock.PathAccess(landlock.AccessFSSet(llsys.AccessFSReadDir), g.List...).IgnoreIfMissing())
	}
	return rules
}
