package runner

import (
	"bytes"
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/netproxy"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/reinsh/rein/engine/sandbox"
)

// process describes one program to run.
type process struct {
	path   string
	argv   []string
	env    []string
	dir    string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	grace  time.Duration // between SIGTERM and SIGKILL on cancel
	// sandbox, when set, confines the program through the helper.
	sandbox *sandbox.Config
	helper  string
	// readOnly and pin are the kept places the sandbox's namespace mounts
	// read-only, and the folders it pins (sandbox.Config).
	readOnly, pin []string
	// reveal: the workspace secrets this program may read (paths.grant).
	reveal []string
	// hosts: those this program may reach (sandbox.hosts), through a
	// proxy rein serves while it runs.
	hosts []string
}

// outcome is how a process ended.
type outcome struct {
	code  int
	limit string // the resource limit that stopped it, if one did
	nproc bool   // RLIMIT_NPROC limited its processes (see stderrWatch.limit)
	// refused are the hosts the program asked rein's proxy for and was
	// refused.
	refused []string
}

// helperGrace is how long a supervising sandbox helper gets to kill what
// its program left before its group is killed (with the helper in it).
const helperGrace = 500 * time.Millisecond

// ioDelay is how long a finished command's output pipes may stay open
// (held by a leftover background child) before rein stops waiting.
const ioDelay = time.Second

// run starts the program in its own process group and waits. When ctx ends
// first, the group gets SIGTERM, then SIGKILL after the grace period. After
// the program ends, whatever it left behind in its group is killed: no
// grandchild outlives the command.
func (p process) run(ctx context.Context) (outcome, error) {
	if p.sandbox == nil {
		code, err := p.start(ctx, p.path, p.argv, p.env, nil)
		return outcome{code: code}, err
	}
	cfg := *p.sandbox
	cfg.ReadOnly, cfg.Pin, cfg.Reveal = p.readOnly, p.pin, p.reveal
	env := p.env
	if cfg.Mode != "off" {
		// Where no temp folder can be made (rein inside another agent's
		// read-only sandbox), the command gets none: it is a write grant
		// only, and nothing is writable there anyway.
		if tmp, err := commandTempDir(); err == nil {
			defer os.RemoveAll(tmp)
			cfg.TempDir = tmp
			env = append(append([]string(nil), env...), "TMPDIR="+tmp, "TMP="+tmp, "TEMP="+tmp)
		}
	}
	var proxy *netproxy.Proxy
	if len(p.hosts) > 0 && cfg.Network && cfg.Isolate {
		px, socket, stop, err := startProxy(p.hosts)
		if err != nil {
			return outcome{code: 126}, fmt.Errorf("cannot start the proxy for the hosts granted to %s: %w", p.argv[0], err)
		}
		defer stop()
		proxy, cfg.Proxy = px, &sandbox.Proxy{Socket: socket, Port: sandbox.ProxyPort, Token: px.Token}
		env = append(append([]string(nil), env...), proxyEnv(sandbox.ProxyPort)...)
	}
	var limitHit func() bool
	if cfg.Limits.Processes > 0 {
		cg, done, err := sandbox.NewProcessLimit(cfg.Limits.Processes)
		if err != nil {
			return outcome{code: 126}, fmt.Errorf("process limit: %w", err)
		}
		cfg.Cgroup, limitHit = cg, done
	}
	self := p.helper
	if self == "" {
		exe, err := os.Executable()
		if err != nil {
			return outcome{code: 126}, fmt.Errorf("cannot find rein for the sandbox helper: %w", err)
		}
		self = cfg.Helper(exe)
	}
	helper := func(cfg *sandbox.Config) (int, error) {
		path, argv := sandbox.GatedCommand(self, gateFD, p.path, p.argv)
		return p.start(ctx, path, argv, env, cfg)
	}
	code, err := helper(&cfg)
	if err != nil && cfg.Isolate && sandbox.NamespacesRefused(err) {
		// Landlock and the limits hold without the namespaces.
		if cfg, err = cfg.WithoutNamespaces(sandbox.Probe()); err != nil {
			return outcome{code: 126}, err
		}
		code, err = helper(&cfg)
	}
	out := outcome{code: code, limit: limitFor(code, cfg.Limits)}
	if proxy != nil {
		_, out.refused = proxy.Asked()
	}
	if limitHit != nil && limitHit() {
		out.limit = "processes"
	}
	// Without a pids cgroup (a user without one delegated), RLIMIT_NPROC
	// limits the processes, and only the command's words tell it did.
	out.nproc = cfg.Limits.Processes > 0 && cfg.Cgroup == ""
	return out, err
}

// limitFor names the limit behind a signal exit: SIGXCPU (24) or SIGXFSZ (25).
func limitFor(code int, l sandbox.Limits) string {
	switch {
	case code == 128+24 && l.CPUSeconds > 0:
		return "cpu_seconds"
	case code == 128+25 && l.FileSize > 0:
		return "file_size_bytes"
	}
	return ""
}

// limitNote explains a limit to a person and a model.
func limitNote(limit string, l sandbox.Limits) string {
	value := map[string]string{
		"cpu_seconds":     fmt.Sprintf("%d s of CPU", l.CPUSeconds),
		"file_size_bytes": fmt.Sprintf("files of at most %d bytes", l.FileSize),
		"processes":       fmt.Sprintf("%d processes", l.Processes),
	}[limit]
	return fmt.Sprintf("\n[rein stopped the command: it reached limits.%s (%s)]\n", limit, strings.TrimSpace(value))
}

// warmProcessStart has os make, in the background, the check it makes once
// before it first starts a process (that the kernel's pidfds work, with a
// child of its own: a third of a millisecond), so that the runner's first
// program does not wait for it.
var warmProcessStart = sync.OnceFunc(func() {
	go os.FindProcess(os.Getpid())
})

// gateFD is the helper's descriptor for its configuration: the first of
// exec.Cmd's ExtraFiles.
const gateFD = 3

// handOver writes the helper's configuration to config, rein's end of its
// gate (sandbox.GateArg), worked out while the helper starts. When it cannot
// be written, the gate's end stops the helper with nothing run.
func (p process) handOver(config *os.File, box *sandbox.Config) {
	b, err := box.Gate()
	if err == nil {
		_, err = config.Write(b)
	}
	if err != nil && p.stderr != nil {
		fmt.Fprintf(p.stderr, "rein: cannot hand the sandbox helper its configuration: %v\n", err)
	}
}

// start runs the program, or the helper when box is set, asking for the
// helper's namespaces.
func (p process) start(ctx context.Context, path string, argv, env []string, box *sandbox.Config) (int, error) {
	cmd := exec.Command(path)
	cmd.Args, cmd.Env, cmd.Dir = argv, env, p.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{}
	box.SetNamespaces(cmd.SysProcAttr)
	dieWithRein(cmd.SysProcAttr, box)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = p.stdin, p.stdout, p.stderr
	cmd.WaitDelay = ioDelay
	var gate, config *os.File // the helper's end of its gate, and rein's
	if box != nil {
		var err error
		if gate, config, err = os.Pipe(); err != nil {
			return 126, fmt.Errorf("cannot make the sandbox helper's pipe: %w", err)
		}
		cmd.ExtraFiles = []*os.File{gate}
	}
	g, err := startInGroup(cmd)
	if box != nil {
		gate.Close()
		if err == nil {
			p.handOver(config, box)
		}
		config.Close()
	}
	if err != nil {
		if isNotExecutable(err) {
			return 126, fmt.Errorf("%s is not a program this system can run (a script needs a #! line and an allowed interpreter)", p.argv[0])
		}
		return 127, fmt.Errorf("%s: %w", p.argv[0], err)
	}
	defer g.close()
	// The command's own user namespace, where it has one: if the helper
	// is killed (not by rein), what the command left outside its group
	// is found by it and ended (sweep).
	userNS := commandUserNS(cmd.Process.Pid, box)
	defer func() {
		if box != nil && cmd.ProcessState != nil && !cmd.ProcessState.Exited() {
			sweep(userNS, box.Cgroup)
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
		g.kill()
	case <-ctx.Done():
		g.terminate()
		select {
		case err = <-done:
			g.kill()
		case <-time.After(p.grace):
			if box.Supervised() {
				// The helper kills the program and what it left outside
				// the group too, then ends; the group kill is for the rest.
				g.endSupervised()
				select {
				case err = <-done:
					g.kill()
					return exitCode(err), nil
				case <-time.After(helperGrace):
				}
			}
			g.kill()
			err = <-done
		}
	}
	return exitCode(err), nil
}

// networkFailures are what programs print when the network is not there
// (curl, git, go, npm, pip, Python, Node).
var networkFailures = [][]byte{[]byte("etwork is unreachable"), []byte("Temporary failure in name resolution"),
	[]byte("Couldn't connect to server"), []byte("ENETUNREACH"), []byte("Could not resolve host"), []byte("no such host"),
	[]byte("Name or service not known"), []byte("ENOTFOUND"), []byte("EAI_AGAIN"),
	[]byte("Failed to establish a new connection"), []byte("getaddrinfo")}

// forkFailures are what shells and programs print when a fork is refused
// (EAGAIN's words, R or r: the helper's own fork of the program too, where
// the user had more processes than the limit already): where no pids
// cgroup counts a command's processes, RLIMIT_NPROC is what refuses it, and
// this is how rein knows limits.processes stopped it.
var forkFailures = [][]byte{[]byte("Cannot fork"), []byte("esource temporarily unavailable"), []byte("fork: retry"), []byte("can't fork")}

// stderrWatch passes a command's standard error on and notes whether it said
// the network was not there, or that a fork was refused.
type stderrWatch struct {
	w           io.Writer
	denied      bool // the recipe denies the network
	netFailed   bool
	procs       bool // the recipe limits processes
	forkRefused bool
	tail        []byte // the end of the last write, for a message split across two
}

// watchStderr wraps a command's standard error, where the recipe denies
// the network or limits processes, so that a failure for want of either
// can be explained.
func (r *Runner) watchStderr(w io.Writer) *stderrWatch {
	box := r.sandbox
	return &stderrWatch{w: w, denied: box != nil && box.Network, procs: box != nil && box.Limits.Processes > 0}
}

func (n *stderrWatch) Write(p []byte) (int, error) {
	if n.denied && !n.netFailed || n.procs && !n.forkRefused {
		text := append(n.tail, p...)
		n.netFailed = n.netFailed || n.denied && containsAny(text, networkFailures)
		n.forkRefused = n.forkRefused || n.procs && containsAny(text, forkFailures)
		n.tail = append(n.tail[:0], text[max(0, len(text)-64):]...)
	}
	return n.w.Write(p)
}

// limit is the resource limit that stopped the command whose outcome is
// out: out's own, or limits.processes where only a refused fork it
// reported tells (RLIMIT_NPROC).
func (n *stderrWatch) limit(out outcome) string {
	if out.limit == "" && out.nproc && n.forkRefused {
		return "processes"
	}
	return out.limit
}

func containsAny(text []byte, words [][]byte) bool {
	for _, w := range words {
		if bytes.Contains(text, w) {
			return true
		}
	}
	return false
}

// note is what rein adds when a command failed for want of the network.
func (n *stderrWatch) note() string {
	if !n.netFailed {
		return ""
	}
	return "rein: this recipe denies the network (sandbox.network: deny), and the command failed reaching it; allow it in the recipe (sandbox+: { network: 'allow' }) if this command needs it\n"
}
