package sandbox

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/recipe"
)

// The sandbox hides the secret places that exist, except the ones programs
// read for their own configuration (git's ~/.gitconfig, shell start-up
// files), which only may not be named.
func TestHiddenLeavesToolConfigReadable(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, name := range []string{".ssh/id_rsa", ".gitconfig", ".bashrc", ".bash_history", ".python_history", ".config/git/config"} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		os.WriteFile(filepath.Join(home, name), nil, 0o600)
	}
	got := hidden([]string{"~/.ssh/**", "~/.gitconfig", "~/.bashrc", "~/.*_history", "~/.bash_history", "~/.config/git/**", "~/.aws/**", "**/.env"}, t.TempDir(), recipe.ToolConfig)
	// ~/.*_history hides the histories there are.
	want := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".bash_history"), filepath.Join(home, ".python_history")}
	if !slices.Equal(got, want) {
		t.Errorf("hidden: %q, want %q", got, want)
	}
}

// The network is denied by Landlock (TCP), rein's seccomp filter (every
// network socket) or a network namespace of the command's own (everything);
// with none, the recipe's fallback decides. A kernel that refuses the
// namespaces at start leaves Landlock and the filter, unless only the
// namespace could deny the network.
func TestNetworkDenialAndNamespaces(t *testing.T) {
	o := Options{Workspace: "/w", Mode: "workspace-write", NetworkDeny: true, Unavailable: "warn"}
	tests := []struct {
		name            string
		st              Status
		isolate, denied bool
		warning         string
		refusedErr      bool
	}{
		{"landlock and namespaces", Status{OS: "linux", Filesystem: true, Network: true, Namespaces: true}, true, true, "", false},
		{"namespaces only", Status{OS: "linux", Filesystem: true, Namespaces: true}, true, true, "", true},
		{"landlock only", Status{OS: "linux", Filesystem: true, Network: true, NamespacesWhy: "off"}, false, true, "", false},
		{"seccomp only", Status{OS: "linux", Filesystem: true, LandlockABI: 3, Seccomp: true, NamespacesWhy: "off"}, false, true, "", false},
		{"seccomp and namespaces", Status{OS: "linux", Filesystem: true, LandlockABI: 3, Seccomp: true, Namespaces: true}, true, true, "", false},
		{"none", Status{OS: "linux", Filesystem: true, LandlockABI: 3, NamespacesWhy: "user.max_user_namespaces is 0"}, false, false, "cannot restrict the network (needs ABI 4), rein has no seccomp filter for this machine, and it cannot give commands a network namespace (user.max_user_namespaces is 0)", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, warning, err := New(o, tt.st)
			if err != nil || c.Isolate != tt.isolate || c.Network != tt.denied || !strings.Contains(warning, tt.warning) || (tt.warning == "") != (warning == "") {
				t.Fatalf("config %+v, warning %q, err %v", c, warning, err)
			}
			c.ReadOnly, c.Pin = []string{"/w/rein.jsonnet"}, []string{"/w/.git"}
			plain, err := c.WithoutNamespaces(tt.st)
			if (err != nil) != tt.refusedErr {
				t.Fatalf("without namespaces: %v", err)
			}
			if err == nil && (plain.Isolate || plain.ReadOnly != nil || plain.Pin != nil || plain.Network != c.Network) {
				t.Errorf("without namespaces: %+v", plain)
			}
		})
	}
}

// Only what a command could write is mounted read-only.
func TestWritable(t *testing.T) {
	c := &Config{Mode: "workspace-write", Workspace: "/w", Write: []string{"/cache"}}
	for p, want := range map[string]bool{"/w/rein.jsonnet": true, "/cache/x": true, "/w2/x": false, "/etc/passwd": false} {
		if c.Writable(p) != want {
			t.Errorf("Writable(%s) = %v", p, !want)
		}
	}
	c.Mode = "read-only"
	if c.Writable("/w/x") {
		t.Error("read-only sandbox: writable")
	}
	if !(*Config)(nil).Writable("/etc/passwd") {
		t.Error("no sandbox: a command writes anywhere")
	}
}

// The sockets hidden are those that exist, less what the recipe allows (a
// folder holding an allowed socket stays as it is).
func TestServiceSockets(t *testing.T) {
	runtimeDir := t.TempDir()
	agent := filepath.Join(t.TempDir(), "agent.1")
	os.WriteFile(agent, nil, 0o600)
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	t.Setenv("SSH_AUTH_SOCK", agent)
	got := serviceSockets(nil, "")
	if !slices.Contains(got, runtimeDir) || !slices.Contains(got, filepath.Dir(agent)) {
		t.Errorf("hidden: %q", got)
	}
	if got := serviceSockets([]string{filepath.Join(runtimeDir, "podman", "podman.sock")}, ""); slices.Contains(got, runtimeDir) {
		t.Errorf("a folder holding an allowed socket is hidden: %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", filepath.Join(runtimeDir, "missing"))
	if got := serviceSockets(nil, ""); slices.Contains(got, filepath.Join(runtimeDir, "missing")) {
		t.Errorf("a missing folder is listed: %q", got)
	}
}

// Where the recipe denies the network, the machine's resolver is hidden
// from commands in their namespaces too (a name it looks up is data sent
// out); where the network is allowed, or the recipe lets commands reach it,
// it is not.
func TestResolverHiddenWhereTheNetworkIsDenied(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "io.systemd.Resolve")
	os.WriteFile(sock, nil, 0o600)
	saved := networkSockets
	networkSockets = []string{sock, filepath.Join(t.TempDir(), "missing")}
	t.Cleanup(func() { networkSockets = saved })
	for _, tt := range []struct {
		name    string
		deny    bool
		sockets []string
		hidden  bool
	}{
		{"network denied", true, nil, true},
		{"network allowed", false, nil, false},
		{"network denied, resolver allowed", true, []string{sock}, false},
	} {
		o := Options{Workspace: t.TempDir(), Mode: "workspace-write", NetworkDeny: tt.deny, Sockets: tt.sockets}
		c, _, err := New(o, Status{OS: "linux", Filesystem: true, LandlockABI: 4, Network: true, Namespaces: true})
		if err != nil {
			t.Fatal(err)
		}
		c.Prepare()
		if got := slices.Contains(c.HideServices, sock); got != tt.hidden {
			t.Errorf("%s: resolver hidden %v, want %v (%q)", tt.name, got, tt.hidden, c.HideServices)
		}
		if slices.Contains(c.HideServices, networkSockets[1]) {
			t.Errorf("%s: a missing resolver socket is listed", tt.name)
		}
	}
}

// The paths a helper needs are worked out once, when the first program
// starts, and again once they are older than factsTTL: a secret folder
// made meanwhile is hidden from the programs a long-lived rein starts
// after that.
func TestPreparedFactsAreRenewed(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	o := Options{Workspace: t.TempDir(), Mode: "read-only", Deny: []string{"~/.aws/**"}}
	c, _, err := New(o, Status{OS: "linux", Filesystem: true, LandlockABI: 4, Network: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Hide != nil || c.Grants != nil {
		t.Fatalf("worked out before a program starts: %v %v", c.Hide, c.Grants)
	}
	first := true
	cmdHides := func() []string {
		got, arg := helperConfig(t, c)
		// (Later, with ~/.aws to hide, the grants list every name in
		// /tmp, which may be too many for one argument.)
		if first && got.Grants == nil {
			t.Fatalf("the helper gets no prepared grants: %s", arg)
		}
		first = false
		return got.Hide
	}
	if h := cmdHides(); len(h) != 0 {
		t.Fatalf("hidden before ~/.aws exists: %q", h)
	}
	os.Mkdir(filepath.Join(home, ".aws"), 0o700)
	if h := cmdHides(); len(h) != 0 {
		t.Fatalf("worked out again within factsTTL: %q", h)
	}
	c.facts.at = c.facts.at.Add(-factsTTL - time.Second)
	if h := cmdHides(); !slices.Contains(h, filepath.Join(home, ".aws")) {
		t.Errorf("~/.aws made after the first program is not hidden once the facts are renewed: %q", h)
	}
}

// /dev/stdin, /dev/stderr and /dev/fd lead somewhere else in each process:
// rein leaves them for the helper to look at itself, since a rule for what
// rein's own standard error is would not fit the helper's (a pipe).
func TestGrantsLeaveProcessLinksToTheHelper(t *testing.T) {
	if _, err := os.Readlink("/dev/stderr"); err != nil {
		t.Skip("no /dev/stderr link here")
	}
	g := readGrants([]string{"/dev"}, []string{"/dev/tty"})
	if !slices.Contains(g.Own, "/dev/stderr") || slices.Contains(g.Files, "/dev/stderr") || slices.Contains(g.Dirs, "/dev/stderr") {
		t.Errorf("/dev/stderr granted by rein: own %q", g.Own)
	}
	if slices.Contains(g.Files, "/dev/tty") || !slices.Contains(g.Files, "/dev/null") {
		t.Errorf("files %q: want /dev/null, not /dev/tty", g.Files)
	}
}

// A link beside a hidden folder that leads into it (~/keys -> ~/.ssh), or
// to a folder holding it (~/me -> ~), is not granted: Landlock's rule
// would open what the link leads to and grant the hidden folder with it.
func TestGrantsSkipLinksToHiddenPaths(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600)
	os.Mkdir(filepath.Join(home, "src"), 0o755)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys"))
	os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(home, "id"))
	os.Symlink(home, filepath.Join(home, "me"))
	os.Symlink(filepath.Join(home, "src"), filepath.Join(home, "code"))
	g := readGrants([]string{home}, []string{filepath.Join(home, ".ssh")})
	granted := append(append([]string(nil), g.Dirs...), g.Files...)
	for _, name := range []string{"keys", "id", "me", ".ssh"} {
		if slices.Contains(granted, filepath.Join(home, name)) {
			t.Errorf("~/%s granted: it leads to the hidden ~/.ssh", name)
		}
	}
	for _, name := range []string{"src", "code"} {
		if !slices.Contains(granted, filepath.Join(home, name)) {
			t.Errorf("~/%s not granted: %q", name, granted)
		}
	}
}

// helperConfig is the configuration c.Command hands the helper as its
// argument, read back, and the argument.
func helperConfig(t *testing.T, c *Config) (Config, string) {
	t.Helper()
	_, argv, err := c.Command("/rein", "/bin/true", []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	var got Config
	if err := json.Unmarshal([]byte(argv[2]), &got); err != nil {
		t.Fatal(err)
	}
	return got, argv[2]
}

// Grants too large for one argument (MAX_ARG_STRLEN) are left out of the
// helper's configuration, and the helper works them out itself.
func TestGrantsTooLargeForAnArgument(t *testing.T) {
	c := &Config{Mode: "read-only", Workspace: "/w", Hide: []string{"/home/x/.ssh"}, Grants: &ReadGrants{}}
	for i := 0; len(c.Grants.Dirs)*24 < maxConfigArg; i++ {
		c.Grants.Dirs = append(c.Grants.Dirs, fmt.Sprintf("/home/x/folder-%08d", i))
	}
	got, arg := helperConfig(t, c)
	if len(arg) > maxConfigArg || got.Grants != nil || len(got.Hide) != 1 {
		t.Errorf("%d bytes, grants %v, hide %q: want the grants left out and the hidden paths kept", len(arg), got.Grants != nil, got.Hide)
	}
	if c.Grants == nil {
		t.Error("Command changed the Config it was given")
	}
}

// The ssh-agent folders are read off the kernel's table of bound unix
// sockets: each ssh-* entry of the temp folder a socket is bound in (or
// to), once, and nothing else.
func TestAgentFoldersFromSocketTable(t *testing.T) {
	table := "Num       RefCount Protocol Flags    Type St Inode Path\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 2001 /tmp/ssh-AbC123/agent.4242\n" +
		"0000000000000000: 00000003 00000000 00000000 0001 03 2002 /tmp/ssh-AbC123/agent.4242\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 2003 /tmp/ssh-solo\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 2004 /tmp/other/ssh-x/agent.1\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 2005 @/tmp/ssh-abstract/agent.1\n" +
		"0000000000000000: 00000003 00000000 00000000 0001 03 2006\n" +
		"0000000000000000: 00000002 00000000 00010000 0001 01 2007 /tmp/.X11-unix/X0\n"
	if got, want := agentFoldersFrom([]byte(table), "/tmp"), []string{"/tmp/ssh-AbC123", "/tmp/ssh-solo"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	// A socket bound now is in the kernel's table at once.
	if runtime.GOOS != "linux" {
		return
	}
	tmp := t.TempDir()
	os.Mkdir(filepath.Join(tmp, "ssh-live"), 0o700)
	ln, err := net.Listen("unix", filepath.Join(tmp, "ssh-live", "agent.1"))
	if err != nil {
		t.Fatalf("cannot bind a unix socket: %v", err)
	}
	defer ln.Close()
	b, err := os.ReadFile("/proc/net/unix")
	if err != nil {
		t.Fatalf("no socket table: %v", err)
	}
	if got := agentFoldersFrom(b, tmp); !slices.Equal(got, []string{filepath.Join(tmp, "ssh-live")}) {
		t.Errorf("a live agent's folder: got %q", got)
	}
}

// The ssh-agent folders of a busy temp folder are listed again only when
// the folder changed (its modification time), and a time too recent to
// tell a later change by is never kept.
func TestAgentFoldersKept(t *testing.T) {
	tmp, cache := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(tmp, "ssh-a"), 0o700)
	os.Mkdir(filepath.Join(tmp, "other"), 0o700)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(tmp, old, old)
	if got := agentFoldersIn(tmp, cache); !slices.Equal(got, []string{filepath.Join(tmp, "ssh-a")}) {
		t.Fatalf("listed %q", got)
	}
	if _, err := os.Stat(filepath.Join(cache, "ssh-agent-folders.json")); err != nil {
		t.Fatalf("not kept: %v", err)
	}
	// Kept: a folder made behind the cache's back with the time set back
	// is not seen (the cache trusts the time, as designed)...
	os.Mkdir(filepath.Join(tmp, "ssh-hidden"), 0o700)
	os.Chtimes(tmp, old, old)
	if got := agentFoldersIn(tmp, cache); len(got) != 1 {
		t.Errorf("the kept list was not used: %q", got)
	}
	// ...but any change of the time lists the folder again, and a fresh
	// time is neither trusted nor kept.
	os.Mkdir(filepath.Join(tmp, "ssh-b"), 0o700)
	if got := agentFoldersIn(tmp, cache); len(got) != 3 {
		t.Errorf("after a change: %q", got)
	}
	if got := agentFoldersIn(tmp, ""); len(got) != 3 {
		t.Errorf("without a cache: %q", got)
	}
}

// A hidden path among many others is covered by a mount where the helper
// has its own mount namespace; one in a folder of mostly hidden entries,
// and a link, are left out of Landlock's grants instead.
func TestCoverable(t *testing.T) {
	dir := t.TempDir()
	crowded, sparse := filepath.Join(dir, "etc"), filepath.Join(dir, "dev")
	for _, d := range []string{crowded, sparse} {
		os.MkdirAll(d, 0o755)
	}
	for i := range 6 {
		os.WriteFile(filepath.Join(crowded, fmt.Sprint("conf", i)), nil, 0o644)
	}
	os.WriteFile(filepath.Join(crowded, "shadow"), nil, 0o600)
	os.Mkdir(filepath.Join(crowded, "private"), 0o700)
	os.Symlink(filepath.Join(crowded, "private"), filepath.Join(crowded, "keys"))
	for _, n := range []string{"tty0", "tty1", "null"} {
		os.WriteFile(filepath.Join(sparse, n), nil, 0o644)
	}
	hide := []string{filepath.Join(crowded, "shadow"), filepath.Join(crowded, "private"), filepath.Join(crowded, "keys"),
		filepath.Join(sparse, "tty0"), filepath.Join(sparse, "tty1")}
	want := []string{filepath.Join(crowded, "private"), filepath.Join(crowded, "shadow")}
	if got := coverable(hide); !slices.Equal(got, want) {
		t.Errorf("coverable: %q, want %q", got, want)
	}
}

// With its own mount namespace the helper grants a folder holding a covered
// secret whole; without, every sibling on its own, the secret left out.
func TestPrepareCoversWithNamespaces(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	for i := range 4 {
		os.WriteFile(filepath.Join(home, fmt.Sprint("notes", i)), nil, 0o644)
	}
	c := &Config{Mode: "read-only", Workspace: t.TempDir(), Isolate: true,
		facts: &facts{deny: []string{"~/.ssh/**"}}}
	c.Prepare()
	if !slices.Contains(c.Cover, filepath.Join(home, ".ssh")) || slices.Contains(c.Grants.List, home) {
		t.Errorf("with namespaces: cover %q, listed-only folders %q", c.Cover, c.Grants.List)
	}
	// A namespace that may not mount (AppArmor): the helper hides what it
	// would have covered with Landlock, as restrict works the grants out.
	uc := c.uncovered()
	if uc.Grants != nil || len(uc.Cover) > 0 {
		t.Fatalf("uncovered kept cover %q, grants %v", uc.Cover, uc.Grants)
	}
	if g := readGrants(uc.readRoots(uc.Read), uc.Hide); !slices.Contains(g.List, home) || slices.Contains(g.Dirs, filepath.Join(home, ".ssh")) {
		t.Errorf("uncovered: listed-only %q, dirs %q", g.List, g.Dirs)
	}
	plain, err := c.WithoutNamespaces(Status{Network: true})
	if err != nil {
		t.Fatal(err)
	}
	plain.Prepare()
	if len(plain.Cover) > 0 || !slices.Contains(plain.Grants.List, home) || slices.Contains(plain.Grants.Dirs, filepath.Join(home, ".ssh")) {
		t.Errorf("without: cover %q, listed-only %q, dirs %q", plain.Cover, plain.Grants.List, plain.Grants.Dirs)
	}
}

// BenchmarkPrepare is working out the facts a program start needs for the
// built-in secret places, on this machine.
func BenchmarkPrepare(b *testing.B) {
	ws, cache := b.TempDir(), b.TempDir()
	home, _ := os.UserHomeDir()
	reads := (&recipe.Recipe{Workspace: ws}).ReadRoots(home, os.Getenv)
	for b.Loop() {
		c := &Config{Mode: "read-only", Workspace: ws, Isolate: true,
			facts: &facts{deny: recipe.SecretPaths, toolConfig: recipe.ToolConfig, reads: reads, cacheDir: cache}}
		c.Prepare()
	}
}
