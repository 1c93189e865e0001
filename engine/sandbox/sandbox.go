// Package sandbox confines every program rein runs with the kernel: on
// Linux, a Landlock ruleset (writes only to the workspace, a private temp
// folder and a few caches; optionally no TCP connect/bind, with a seccomp
// filter that refuses every other network socket) and resource
// limits (CPU time, file size, address space, processes); where the kernel
// allows, user and mount namespaces of the program's own, in which the
// places that decide what runs later (the recipe, .git/hooks) are mounted
// read-only, and a network namespace when the network is denied. rein
// re-executes itself as a small helper ("rein __sandbox CONFIG PATH
// ARGV...") that makes the namespaces and stays as the program's
// subreaper, so that nothing the program starts outlives it; a second step
// of the helper (Config.Stage) confines itself and becomes the program.
// rein and the supervising helper stay unrestricted, outside the
// program's reach.
package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// HelperArg is the first argument that makes rein act as the helper.
const HelperArg = "__sandbox"

// Config is what the helper applies before exec.
type Config struct {
	Mode      string   `json:"mode"` // workspace-write, read-only
	Network   bool     `json:"network_deny,omitempty"`
	Workspace string   `json:"workspace"`
	TempDir   string   `json:"temp_dir,omitempty"`
	Write     []string `json:"write,omitempty"` // more writable folders
	// Hide are existing files and folders nothing may read (the recipe's
	// secret paths that name concrete places, like ~/.ssh).
	Hide []string `json:"hide,omitempty"`
	// Read, when set, are the only places commands may read besides the
	// workspace, the temp folder and the write grants (granted reads):
	// Options.Reads that exist, and the folders linked programs live in.
	Read   []string `json:"read,omitempty"`
	Limits Limits   `json:"limits"`
	Cgroup string   `json:"cgroup,omitempty"` // pids cgroup to join
	// Isolate starts the helper in user and mount namespaces of its own
	// (and a network namespace when the network is denied), where it
	// mounts ReadOnly and Pin.
	Isolate bool `json:"isolate,omitempty"`
	// ReadOnly are places inside the writable folders that decide what runs
	// later (the recipe, the scripts it allows, the repository's hooks):
	// the command sees them read-only.
	ReadOnly []string `json:"read_only,omitempty"`
	// Pin are folders a command may write in but not rename or remove (the
	// repository's .git, so that it cannot be remade without ReadOnly).
	Pin []string `json:"pin,omitempty"`
	// HideServices are local services' sockets and socket folders the
	// command finds empty (services.go).
	HideServices []string `json:"hide_services,omitempty"`
	// Cover are hidden paths (of Hide) the command finds empty in its own
	// mount namespace: a secret file among many others (/etc/shadow) is
	// covered by a mount rather than left out of Landlock's grants, which
	// would grant each of its hundred siblings on its own.
	Cover []string `json:"cover,omitempty"`
	// Supervise keeps the helper as the program's supervisor without a
	// sandbox (mode off, or none to be had): what the program leaves is
	// killed when it ends, and all of it when rein dies.
	Supervise bool `json:"supervise,omitempty"`
	// Stage marks the helper's second step, which a supervising helper
	// starts for the program: it confines itself (Landlock, the filter,
	// the limits) and becomes the program, in a Landlock domain of the
	// program's own that the supervisor is outside of, so that no signal
	// of the program's reaches the supervisor. It mounts, joins and
	// supervises nothing: the supervisor did.
	Stage bool `json:"stage,omitempty"`
	// Proxy, with Network and Isolate, is the command's one way out of its
	// network namespace: the supervising helper listens on 127.0.0.1:Port
	// there and joins each connection to rein's proxy at Socket, which
	// lets through only the hosts granted to the command.
	Proxy *Proxy `json:"proxy,omitempty"`
	// Reveal are the workspace's secret files this command may read
	// (paths.grant): they are not covered. * may stand in a last part.
	Reveal []string `json:"-"`
	// Grants are the helper's read rules, worked out once by rein (see
	// Prepare) rather than again by every helper it starts.
	Grants *ReadGrants `json:"grants,omitempty"`
	// Protocol is the build the configuration was written by (protocol.go):
	// a helper built otherwise refuses it.
	Protocol string `json:"protocol"`
	// Parent is the rein that starts a supervising helper. The kernel's
	// word that rein died can reach the helper before it listens, and is
	// then lost: once listening, a helper whose parent is no longer this
	// one starts nothing.
	Parent int `json:"parent,omitempty"`

	// facts holds what Prepare works out from the recipe; copies of a
	// Config share it.
	facts *facts
}

// Proxy is where a command granted hosts reaches rein's proxy.
type Proxy struct {
	Socket string `json:"socket"`
	Port   int    `json:"port"`
	// Token starts each connection to the proxy: a program that finds the
	// socket (another command's) does not have it.
	Token string `json:"token"`
}

// ProxyPort is the port of the proxy inside a command's network namespace
// (its own: no other program listens there).
const ProxyPort = 47831

// ReadGrants are what reading is granted as: whole folders and files, and
// the folders on the way down to hidden paths, which may only be listed
// (Landlock only grants, so a hidden path's siblings are granted instead
// of its parent).
type ReadGrants struct {
	Dirs  []string `json:"dirs,omitempty"`
	Files []string `json:"files,omitempty"`
	List  []string `json:"list,omitempty"`
	// Own lead somewhere else in each process (/dev/stderr to its own
	// standard error): the helper sorts them out.
	Own []string `json:"own,omitempty"`
}

// facts are the parts of a Config that take reading the filesystem: the
// hidden paths, the confined reads, the services' sockets and the read
// grants. They are worked out when the first program starts, not when
// the Config is made (a command of builtins starts none), and again when
// older than factsTTL, so that a long-lived rein (rein mcp) hides a
// secret folder made after it started.
type facts struct {
	mu      sync.Mutex
	at      time.Time
	deny    []string // the recipe's paths.deny
	sockets []string // sandbox.sockets: services a command may reach
	// reads: Options.Reads; toolConfig: Options.ToolConfig.
	reads, toolConfig []string
	cacheDir          string // Options.CacheDir
	hide              []string
	read              []string
	services          []string
	netServices       []string // hidden too where the network is denied
	// covers are the hidden paths a mount may cover (see coverable), and
	// grants the read grants: with the namespaces (true), where the covers
	// need none; without them, where every hidden path does.
	covers []string
	grants map[bool]*ReadGrants
	// untracked, hiddenWritable and gitWrites: Options'; the places they
	// sort are walked for each program (workspacePlaces).
	untracked      func([]string) []string
	hiddenWritable func(rel string) bool
	gitWrites      []string
}

// maxReadOnlyMounts bounds the hidden entries of a workspace mounted
// read-only for a command (about 20 µs each).
const maxReadOnlyMounts = 1000

// factsTTL is how long worked-out facts are used before they are worked
// out again.
const factsTTL = 10 * time.Second

// Prepare fills in the paths the helper needs (Hide, Read, HideServices,
// Cover, Grants), working them out at most once per factsTTL for a Config
// and its copies. Command calls it.
func (c *Config) Prepare() {
	if c == nil || c.facts == nil {
		return
	}
	f := c.facts
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.at.IsZero() || time.Since(f.at) > factsTTL {
		f.hide = hidden(f.deny, c.Workspace, f.toolConfig)
		f.read = nil
		if f.reads != nil {
			f.read = grantedReads(f.reads, append([]string{c.Workspace, c.TempDir}, c.Write...))
		}
		f.services = serviceSockets(f.sockets, f.cacheDir)
		f.netServices = networkServices(f.sockets)
		f.covers = coverable(f.hide)
		f.grants = map[bool]*ReadGrants{}
		f.at = time.Now()
	}
	g := f.grants[c.Isolate]
	if g == nil {
		hide := f.hide
		if c.Isolate {
			hide = slices.DeleteFunc(slices.Clone(hide), func(h string) bool { return slices.Contains(f.covers, h) })
		}
		g = readGrants(c.readRoots(f.read), hide)
		f.grants[c.Isolate] = g
	}
	c.Hide, c.Read, c.Grants = f.hide, f.read, g
	c.HideServices, c.Cover = nil, nil
	if c.Isolate {
		// Walked for every program, not kept with the facts: an earlier
		// program of the same command may have moved a folder, and its
		// secret or hook with it, from under the paths found then.
		secrets, hidden := f.workspacePlaces(c.Workspace)
		c.HideServices, c.Cover = f.services, f.covers
		if c.Mode == "workspace-write" {
			c.ReadOnly = append(slices.Clip(c.ReadOnly), hidden[:min(len(hidden), maxReadOnlyMounts)]...)
		}
		for _, s := range secrets {
			if !revealed(s, c.Reveal) {
				c.Cover = append(slices.Clip(c.Cover), s)
			}
		}
		if c.Network {
			c.HideServices = append(slices.Clip(f.services), f.netServices...)
		}
	}
}

// readRoots are the places reading is granted from: everywhere, or with
// confined reads, those and the places commands write (the temp folder,
// which changes for each program, the helper adds).
func (c *Config) readRoots(read []string) []string {
	if len(read) == 0 {
		return nil
	}
	return append(append(append([]string(nil), read...), c.Workspace), c.Write...)
}

// Limits are resource limits for the executed program (0 = none).
type Limits struct {
	CPUSeconds   int   `json:"cpu_seconds,omitempty"`
	FileSize     int64 `json:"file_size_bytes,omitempty"`
	Processes    int   `json:"processes,omitempty"`
	AddressSpace int64 `json:"address_space_bytes,omitempty"`
}

// Status is what this machine can enforce.
type Status struct {
	OS          string `json:"os"`
	LandlockABI int    `json:"landlock_abi"` // 0: not available
	Filesystem  bool   `json:"filesystem"`
	Network     bool   `json:"network"` // TCP connect/bind (ABI >= 4)
	// Seccomp: a seccomp filter refuses commands every network socket
	// where the recipe denies the network (Linux on amd64 and arm64).
	Seccomp    bool   `json:"seccomp"`
	Rlimits    bool   `json:"rlimits"`
	PIDsCgroup string `json:"pids_cgroup,omitempty"` // where process limits are enforced
	Why        string `json:"why,omitempty"`
	// Namespaces: the helper can start in user and mount namespaces of
	// its own (NamespacesWhy says why not).
	Namespaces    bool   `json:"namespaces"`
	NamespacesWhy string `json:"namespaces_why,omitempty"`
}

// Available reports whether the filesystem sandbox can be applied.
func (s Status) Available() bool { return s.Filesystem }

// Options are what a recipe says of the sandbox, as plain data (engine/app
// reads them off the recipe): the package reads no recipe, so that the
// helper binary, which links it, stays small and starts fast.
type Options struct {
	Mode        string // workspace-write, read-only, off
	NetworkDeny bool
	// Unavailable is what to do where the kernel cannot sandbox: refuse
	// (an error) or warn (run without it, with a warning).
	Unavailable string
	Workspace   string
	Write       []string // more writable folders, expanded
	Limits      Limits
	// Deny are the recipe's secret path globs; Sockets the services a
	// command may reach.
	Deny, Sockets []string
	// Reads, when not nil, are the only places besides the workspace, the
	// temp folder and the write grants that commands may read (granted
	// reads: recipe.ReadRoots); nil lets them read all but the hidden.
	Reads []string
	// ToolConfig are secret globs the programs read for themselves (never
	// hidden); OwnFolders where rein keeps its own state.
	ToolConfig, OwnFolders []string
	// Untracked keeps of the workspace's secret files those git does not
	// track (runner.Untracked): only those are covered. Nil: all are.
	Untracked func(paths []string) []string
	// HiddenWritable reports whether commands may write a hidden entry of
	// the workspace (its path relative to it): every other, and every
	// recipe below the workspace's top, is read-only to them. GitWrites
	// are the entries of .git that git writes; the others are read-only.
	HiddenWritable func(rel string) bool
	GitWrites      []string
	// CacheDir is rein's cache, one of OwnFolders: what is costly to find
	// again is kept there ("": nothing is kept).
	CacheDir string
}

// New builds the sandbox for a recipe's options on a kernel of status st.
// When the kernel cannot enforce it, o.Unavailable decides: "refuse" is an
// error, "warn" returns no sandbox and a one-line warning.
func New(o Options, st Status) (*Config, string, error) {
	// The helper (Landlock and rlimits) exists on Linux only.
	limitsOnly := func() *Config {
		if st.OS != "linux" {
			return nil
		}
		// No sandbox, but the helper still supervises: the limits, and
		// the command's end when rein's comes.
		return &Config{Mode: "off", Workspace: o.Workspace, Limits: o.Limits, Supervise: true}
	}
	if o.Mode == "off" {
		return limitsOnly(), "", nil
	}
	if !st.Available() {
		msg := fmt.Sprintf("the kernel sandbox is not available on this system (%s)", st.Why)
		if o.Unavailable == "refuse" {
			return nil, "", fmt.Errorf("%s and the recipe says sandbox.unavailable: refuse; set it to warn to run unsandboxed, or sandbox.mode: off", msg)
		}
		warning := "rein: warning: " + msg + "; commands run without it (sandbox.unavailable: warn)"
		return limitsOnly(), warning, nil
	}
	c := &Config{Mode: o.Mode, Network: o.NetworkDeny, Workspace: o.Workspace, Limits: o.Limits, Isolate: st.Namespaces}
	if c.Network && !st.Network && !st.Seccomp && !st.Namespaces {
		msg := fmt.Sprintf("this kernel's Landlock (ABI %d) cannot restrict the network (needs ABI 4), rein has no seccomp filter for this machine, and it cannot give commands a network namespace (%s)", st.LandlockABI, st.NamespacesWhy)
		if o.Unavailable == "refuse" {
			return nil, "", fmt.Errorf("%s and the recipe says sandbox.unavailable: refuse", msg)
		}
		c.Network = false
		return c, "rein: warning: " + msg + "; the network stays open", nil
	}
	for _, w := range o.Write {
		if p := expandPath(w); p != "" {
			c.Write = append(c.Write, p)
		}
	}
	c.facts = &facts{deny: o.Deny, sockets: o.Sockets, reads: o.Reads, toolConfig: o.ToolConfig, untracked: o.Untracked, hiddenWritable: o.HiddenWritable, gitWrites: o.GitWrites, cacheDir: o.CacheDir}
	return c.keepOwnFoldersOut(o.OwnFolders)
}

// keepOwnFoldersOut makes sure no command can write where rein keeps its
// recipes, compile cache and record (Landlock grants whole trees, so a
// grant holding one of them cannot be narrowed): a sandbox.write entry
// that holds one is an error to fix in the recipe, a workspace that holds
// one (rein run from the home folder) is only read.
func (c *Config) keepOwnFoldersOut(own []string) (*Config, string, error) {
	if c.Mode != "workspace-write" {
		return c, "", nil
	}
	for _, w := range c.Write {
		if o := holding(w, own); o != "" {
			return nil, "", fmt.Errorf("sandbox.write %s holds %s, where rein keeps its own recipes, cache or record: a command could rewrite rein's policy there; grant the tool's own folder instead (such as %s)", w, o, filepath.Join(w, "pip"))
		}
	}
	if o := holding(c.Workspace, own); o != "" {
		c.Mode = "read-only"
		return c, fmt.Sprintf("rein: warning: the workspace %s holds %s, where rein keeps its own recipes, cache or record, so commands may not write here (the sandbox is read-only); run rein from a project folder to let them", c.Workspace, o), nil
	}
	return c, "", nil
}

// Writable reports whether a command under c may write at p (nil: no
// sandbox, so anywhere).
func (c *Config) Writable(p string) bool {
	if c == nil || c.Mode == "off" {
		return true
	}
	if c.Mode != "workspace-write" {
		return false
	}
	return within(p, c.Workspace) || slices.ContainsFunc(c.Write, func(w string) bool { return within(p, w) })
}

// holding returns the first of folders that lies in dir (or is it).
func holding(dir string, folders []string) string {
	for _, f := range folders {
		if within(f, dir) {
			return f
		}
	}
	return ""
}

// expandPath expands ~ and $VARS; a path whose variable is unset is dropped.
func expandPath(p string) string {
	missing := false
	p = os.Expand(p, func(v string) string {
		val := os.Getenv(v)
		if val == "" {
			missing = true
		}
		return val
	})
	if missing || p == "" {
		return ""
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		p = filepath.Join(home, strings.TrimPrefix(p, "~"))
	}
	return filepath.Clean(p)
}

// Supervised reports whether the helper stays as the program's supervisor
// (see supervise): on Linux, under a sandbox mode.
func (c *Config) Supervised() bool {
	return c != nil && runtime.GOOS == "linux" && (c.Mode == "workspace-write" || c.Mode == "read-only" || c.Supervise)
}

// Confined reports whether c applies a sandbox (Landlock), not only the
// helper's supervision and limits.
func (c *Config) Confined() bool {
	return c != nil && (c.Mode == "workspace-write" || c.Mode == "read-only")
}

// uncovered is c for a helper whose namespace may not mount: what Cover
// would have covered is left out of Landlock's grants instead (worked out
// again from Hide, which holds it).
func (c Config) uncovered() Config {
	if len(c.Cover) > 0 {
		c.Cover, c.Grants = nil, nil
	}
	return c
}

// WithoutNamespaces is c for a kernel that refused to make the helper's
// namespaces as it started (a container's seccomp filter): Landlock and the
// limits still hold, and the read-only places are left to rein putting
// back what a command changed. Where only a network namespace could deny
// the network, it is an error rather than a run with the network open.
func (c Config) WithoutNamespaces(st Status) (Config, error) {
	c.Isolate, c.ReadOnly, c.Pin, c.HideServices, c.Cover = false, nil, nil, nil, nil
	if c.Network && !st.Network && !st.Seccomp {
		return c, errors.New("the kernel refused the command its own network namespace, and neither its Landlock nor a seccomp filter of rein's can restrict the network here, so rein does not run it (the recipe says sandbox.network: deny)")
	}
	return c, nil
}

// Command returns the helper invocation that runs argv (program at path)
// under c; self is the helper (Helper).
func (c *Config) Command(self, path string, argv []string) (string, []string, error) {
	c, b, err := c.prepared()
	if err != nil {
		return "", nil, err
	}
	if len(b) > maxConfigArg {
		// One argument may hold 128 KiB at most (MAX_ARG_STRLEN): past
		// that, the helper works the grants out itself.
		c.Grants = nil
		if b, err = json.Marshal(c); err != nil {
			return "", nil, err
		}
	}
	return self, append([]string{"rein-sandbox", HelperArg, string(b), path}, argv...), nil
}

// maxConfigArg is the size of the helper's configuration past which it
// goes without the prepared grants.
const maxConfigArg = 96 << 10

// prepared is a copy of c made ready for the helper, and its JSON.
func (c *Config) prepared() (*Config, []byte, error) {
	cc := *c
	c = &cc
	c.Prepare()
	c.Protocol = protocol()
	if c.Supervised() {
		c.Parent = os.Getpid()
	}
	b, err := json.Marshal(c)
	return c, b, err
}

// GateArg, with a file descriptor after it, stands in the helper's
// arguments for its configuration: the helper reads it from that
// descriptor (its gate), one line of JSON. rein starts the helper first,
// and works the configuration out while the helper starts.
const GateArg = "fd:"

// GatedCommand is the helper invocation that reads its configuration from
// descriptor fd (see GateArg); Gate is what rein writes there.
func GatedCommand(self string, fd int, path string, argv []string) (string, []string) {
	return self, append([]string{"rein-sandbox", HelperArg, GateArg + strconv.Itoa(fd), path}, argv...)
}

// Gate is the helper's configuration as GatedCommand's helper reads it: c,
// prepared, as one line of JSON.
func (c *Config) Gate() ([]byte, error) {
	_, b, err := c.prepared()
	return append(b, '\n'), err
}

// Describe says in one line what is enforced.
func (c *Config) Describe() string {
	if c == nil {
		return "no sandbox"
	}
	cc := *c
	c = &cc
	c.Prepare()
	parts := []string{}
	if len(c.Read) > 0 {
		parts = append(parts, "reads only the workspace, the system folders, the toolchains and the grants (below)")
	} else {
		parts = append(parts, "reads everything but the hidden secret places")
	}
	switch c.Mode {
	case "workspace-write":
		parts = append(parts, "writes only to the workspace, a private temp folder"+plural(len(c.Write), " and the caches"))
		if c.Isolate {
			parts = append(parts, "the recipe, the scripts it allows and .git/hooks read-only")
		}
		if c.Isolate && len(c.Cover) > 0 {
			parts = append(parts, "the workspace's secret files empty unless paths.grant gives them to the command")
		}
		if len(c.HideServices) > 0 {
			parts = append(parts, "local services' sockets hidden (D-Bus, systemd, X11, Docker, ssh-agent)")
		}
	case "read-only":
		parts = append(parts, "no writes but to a private temp folder")
	}
	switch {
	case c.Network && c.Isolate:
		parts = append(parts, "no network, nor the machine's name resolver")
	case c.Network && seccompArch():
		parts = append(parts, "no network sockets (TCP and UDP alike)")
	case c.Network:
		parts = append(parts, "no TCP connect/bind")
	}
	if c.Supervised() {
		parts = append(parts, "nothing a command starts outlives it")
	}
	if c.Limits != (Limits{}) {
		parts = append(parts, "resource limits")
	}
	return strings.Join(parts, "; ")
}

// Hidden are the workspace's hidden entries (and recipes below its top,
// and git's own files) that commands may not write, as they are now; nil
// where the sandbox has no namespaces to keep them in. A runner notes them
// as a command starts: what the command left that was not among them, it
// made or renamed (runner.takeBack).
func (c *Config) Hidden() []string {
	if c == nil || c.facts == nil || !c.Isolate || c.Mode != "workspace-write" {
		return nil
	}
	c.facts.mu.Lock()
	defer c.facts.mu.Unlock()
	_, hidden := c.facts.workspacePlaces(c.Workspace)
	return hidden
}

// workspacePlaces walks the workspace for the secret files to cover (those
// git does not hold as they are) and the hidden entries commands may not
// write: git's own first, then the shallowest (each is a mount, and past
// maxReadOnlyMounts the rest are only taken back after the command).
func (f *facts) workspacePlaces(workspace string) (secrets, hidden []string) {
	secrets, all := workspaceSecrets(workspace, f.deny, f.cacheDir)
	for _, h := range all {
		if rel, err := filepath.Rel(workspace, h); err == nil && (f.hiddenWritable == nil || !f.hiddenWritable(rel)) {
			hidden = append(hidden, h)
		}
	}
	slices.SortStableFunc(hidden, func(a, b string) int {
		return strings.Count(a, string(filepath.Separator)) - strings.Count(b, string(filepath.Separator))
	})
	hidden = append(gitAdmin(workspace, f.gitWrites), hidden...)
	if f.untracked != nil && len(secrets) > 0 {
		secrets = f.untracked(secrets)
	}
	return secrets, hidden
}

// Readable are the places besides the workspace, the temp folder and the
// write grants that commands may read (nil: all but the hidden ones).
func (c *Config) Readable() []string {
	if c == nil {
		return nil
	}
	cc := *c
	cc.Prepare()
	return cc.Read
}

func plural(n int, s string) string {
	if n == 0 {
		return ""
	}
	return s
}

// hidden turns secret globs into the concrete paths the sandbox hides from
// reads: globs without wildcards before their last part ("~/.ssh/**",
// "/etc/shadow"), which exist and lie outside the workspace.
func hidden(globs []string, workspace string, toolConfig []string) []string {
	var out []string
	folders := folderNames{}
	// Where a folder leads, resolved once for all the paths in it (a
	// dozen patterns match eighty names in /dev).
	realDirs := map[string]string{}
	realPath := func(p string, st os.FileInfo) (string, error) {
		if st.Mode()&os.ModeSymlink != 0 {
			return filepath.EvalSymlinks(p)
		}
		dir := filepath.Dir(p)
		real, ok := realDirs[dir]
		if !ok {
			var err error
			if real, err = filepath.EvalSymlinks(dir); err != nil {
				return "", err
			}
			realDirs[dir] = real
		}
		return filepath.Join(real, filepath.Base(p)), nil
	}
	for _, g := range globs {
		if !strings.HasPrefix(g, "~/") && !strings.HasPrefix(g, "/") {
			continue // relative and **/ globs match anywhere: analysis handles those
		}
		if slices.Contains(toolConfig, g) {
			continue // read by the programs that use it: only naming it is refused
		}
		g = strings.TrimSuffix(strings.TrimSuffix(g, "/**"), "/*")
		p := expandPath(g)
		if p == "" {
			continue
		}
		paths := []string{p}
		if strings.ContainsAny(g, "*?[") {
			if strings.Contains(g, "**") {
				continue // /proc/**/environ: left to the checks of each path
			}
			// ~/.*_history: the files that match now are hidden.
			paths = folders.glob(p)
		}
		for _, p := range paths {
			st, err := os.Lstat(p)
			if err != nil {
				continue // nothing there to hide
			}
			// A secret folder that is a link (~/.kube -> ~/dotfiles/kube)
			// is hidden where it leads too: its target is readable by
			// that name otherwise.
			targets := []string{p}
			if real, err := realPath(p, st); err == nil && real != p {
				targets = append(targets, real)
			}
			for i, p := range targets {
				if within(p, workspace) || within(workspace, p) {
					continue
				}
				if i > 0 {
					if _, err := os.Lstat(p); err != nil {
						continue
					}
				}
				if !slices.Contains(out, p) {
					out = append(out, p)
				}
			}
		}
	}
	return out
}

// folderNames holds the names in folders read so far, so that globbing
// several patterns in one folder (a dozen in /dev) reads it once.
type folderNames map[string][]string

// glob is filepath.Glob, reading a folder once for all its patterns.
func (f folderNames) glob(pattern string) []string {
	dir, base := filepath.Split(pattern)
	dir = filepath.Clean(dir)
	if strings.ContainsAny(dir, "*?[") {
		m, _ := filepath.Glob(pattern)
		return m
	}
	names, ok := f[dir]
	if !ok {
		if d, err := os.Open(dir); err == nil {
			names, _ = d.Readdirnames(-1)
			d.Close()
			slices.Sort(names)
		}
		f[dir] = names
	}
	var out []string
	for _, n := range names {
		if ok, _ := filepath.Match(base, n); ok {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// grantedReads are the places of reads that exist, and the folders the
// programs in PATH folders inside the home folder lead to: a version
// manager's shim or link (~/.local/bin/node -> ~/.local/share/n/bin/node)
// runs a program that needs its own folder, where no list names it. Not a
// place inside what commands may write (own: the workspace, the temp
// folder, the write grants), nor links there: a command could make one
// lead anywhere (.venv -> ~) and be granted it by the next run.
func grantedReads(reads, own []string) []string {
	writable := func(p string) bool {
		return slices.ContainsFunc(own, func(o string) bool { return o != "" && within(p, o) })
	}
	var out []string
	for _, d := range reads {
		if _, err := os.Stat(d); err == nil && !writable(d) {
			out = append(out, d)
		}
	}
	home, _ := os.UserHomeDir()
	if home == "" {
		return out
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(d) && within(d, home) && !writable(d) {
			out = append(out, linkPrefixes(d, home, out)...)
		}
	}
	return out
}

// linkPrefixes are the folders that the links in dir lead to inside home
// and outside granted: for a link to PREFIX/bin/prog, PREFIX (where the
// program finds its libraries); for one elsewhere, the folder it is in.
// Never the home folder itself, nor a folder holding it.
func linkPrefixes(dir, home string, granted []string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		real, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil || !within(real, home) {
			continue
		}
		prefix := filepath.Dir(real)
		if filepath.Base(prefix) == "bin" {
			prefix = filepath.Dir(prefix)
		}
		if within(home, prefix) || slices.ContainsFunc(append(granted, out...), func(g string) bool { return within(prefix, g) }) {
			continue
		}
		out = append(out, prefix)
	}
	return out
}
