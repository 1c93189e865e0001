package runner_test

import (
	"context"
	"github.com/reinsh/rein/engine/app"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// sandboxed compiles recipeText for a fresh workspace holding scripts and
// returns a runner that confines programs as rein would.
func sandboxed(t *testing.T, recipeText string, scripts map[string]string) (*runner.Runner, string) {
	t.Helper()
	return sandboxedWith(t, recipeText, scripts, nil)
}

// sandboxedWith is sandboxed with the runner's options (the sandbox
// among them) changed by change.
func sandboxedWith(t testing.TB, recipeText string, scripts map[string]string, change func(*runner.Options)) (*runner.Runner, string) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel sandbox is Linux's Landlock")
	}
	if st := sandbox.Probe(); !st.Available() {
		t.Skipf("Landlock is not available: %s", st.Why)
	}
	dir := t.TempDir()
	for name, body := range scripts {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(recipeText), 0o644)
	r, p := policytest.Load(t, dir, "")
	cfg, warning, err := app.Sandbox(r)
	if err != nil || warning != "" || cfg == nil {
		t.Fatalf("sandbox: %v %q", err, warning)
	}
	opts := runner.Options{Sandbox: cfg, Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}}
	if change != nil {
		change(&opts)
	}
	return runner.New(p, opts), dir
}

// serve listens at addr and greets each connection, until the test ends.
func serve(t *testing.T, network, addr, greeting string) net.Listener {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte(greeting))
			c.Close()
		}
	}()
	return ln
}

// An allowed command, and a script it starts, cannot write outside the
// workspace and its private temp folder; inside works.
func TestSandboxConfinesWrites(t *testing.T) {
	outside := t.TempDir() // not the workspace, not the command's temp folder
	r, dir := sandboxed(t, `{ commands: [{ command: './write.sh' }] }`, map[string]string{
		"write.sh": "#!/bin/sh\necho inside > inside.txt\necho tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"\n./child.sh\n",
		"child.sh": "#!/bin/sh\necho escaped > " + outside + "/f\n",
	})
	res := r.Run(context.Background(), "./write.sh", runner.RunOptions{})
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Fatal("a script wrote outside the workspace")
	}
	if !strings.Contains(res.Stderr, "Permission denied") || res.Stdout != "tmp\n" {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "inside.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("writing inside the workspace: %q %v", b, err)
	}
}

func TestSandboxNetwork(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for /dev/tcp")
	}
	if !sandbox.Probe().Network {
		t.Skip("this kernel's Landlock cannot restrict the network")
	}
	ln := serve(t, "tcp4", "127.0.0.1:0", "")
	port := ln.Addr().(*net.TCPAddr).Port
	script := map[string]string{"connect.sh": "#!/bin/bash\nexec 3<>/dev/tcp/127.0.0.1/" + itoa(port) + " && echo connected\n"}
	for _, tt := range []struct {
		network string
		want    bool
	}{{"deny", false}, {"allow", true}} {
		r, _ := sandboxed(t, `{ commands: [{ command: './connect.sh' }], sandbox: { network: '`+tt.network+`' } }`, script)
		res := r.Run(context.Background(), "./connect.sh", runner.RunOptions{Timeout: 10 * time.Second})
		if got := strings.Contains(res.Stdout, "connected"); got != tt.want {
			t.Errorf("network %s: connected=%v (stdout %q stderr %q)", tt.network, got, res.Stdout, res.Stderr)
		}
	}
}

func TestResourceLimits(t *testing.T) {
	tests := []struct {
		name, limits, script, limit string
	}{
		{"cpu", "cpu_seconds: 1", "#!/bin/sh\nwhile :; do :; done\n", "limits.cpu_seconds"},
		{"file size", "file_size_bytes: 65536", "#!/bin/sh\nhead -c 10000000 /dev/zero > big\n", "limits.file_size_bytes"},
		{"processes", "processes: 8", "#!/bin/sh\nfor i in $(seq 1 60); do sleep 2 & done\nwait\n", "limits.processes"},
		{"fork bomb", "processes: 16", "#!/bin/sh\nbomb() { bomb | bomb & }\nbomb\nsleep 3\n", "limits.processes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if strings.Contains(tt.limits, "processes") && os.Getuid() == 0 && sandbox.Probe().PIDsCgroup == "" {
				t.Skip("as root only a pids cgroup limits processes, and none is writable here")
			}
			r, dir := sandboxed(t, `{ commands: [{ command: './hog.sh' }], limits: { `+tt.limits+` } }`, map[string]string{"hog.sh": tt.script})
			start := time.Now()
			res := r.Run(context.Background(), "./hog.sh", runner.RunOptions{Timeout: 20 * time.Second})
			if res.TimedOut || time.Since(start) > 15*time.Second {
				t.Errorf("not stopped by the limit: %v", time.Since(start))
			}
			if tt.name == "fork bomb" {
				// The bomb's forks fail at the limit; what is left is killed
				// with its group when the script ends.
				if !strings.Contains(res.Stderr, tt.limit) {
					t.Errorf("stderr %q: want the %s named", res.Stderr, tt.limit)
				}
				return
			}
			if res.ExitCode == 0 || !strings.Contains(res.Stderr, tt.limit) {
				t.Errorf("exit %d, stderr %q: want the %s named", res.ExitCode, res.Stderr, tt.limit)
			}
			if st, err := os.Stat(filepath.Join(dir, "big")); err == nil && st.Size() > 65536 {
				t.Errorf("file grew to %d bytes", st.Size())
			}
		})
	}
}

// Without Landlock the recipe decides: refuse, or warn and run unsandboxed.
func TestSandboxUnavailable(t *testing.T) {
	noKernel := sandbox.Status{OS: "linux", Why: "Landlock is not enabled in this kernel"}
	r := &recipe.Recipe{Workspace: "/w", Sandbox: recipe.Sandbox{Mode: "workspace-write", Unavailable: "refuse"}}
	if _, _, err := app.SandboxWith(r, noKernel); err == nil || !strings.Contains(err.Error(), "sandbox.unavailable: refuse") {
		t.Errorf("refuse: %v", err)
	}
	r.Sandbox.Unavailable = "warn"
	// Without a sandbox on Linux the helper still supervises the command
	// (it dies with rein), and confines nothing.
	cfg, warning, err := app.SandboxWith(r, noKernel)
	if err != nil || cfg == nil || cfg.Confined() || !cfg.Supervise || !strings.Contains(warning, "not enabled in this kernel") || strings.Count(warning, "\n") != 0 {
		t.Errorf("warn: %v %v %q", cfg, err, warning)
	}
	r.Sandbox.Mode = "off"
	if cfg, warning, err := app.SandboxWith(r, noKernel); cfg == nil || cfg.Confined() || !cfg.Supervise || warning != "" || err != nil {
		t.Errorf("off: %v %q %v", cfg, warning, err)
	}
	if cfg, _, _ := app.SandboxWith(r, sandbox.Status{OS: "darwin"}); cfg != nil {
		t.Errorf("darwin: %v", cfg)
	}
}

func itoa(n int) string {
	s := ""
	for n > 0 {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

// homeWithKey is a home folder (HOME for the test) holding a private key in
// .ssh, public notes, and a link beside .ssh leading into it: granting the
// link would grant the key.
func homeWithKey(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, ".ssh"), 0o700)
	os.WriteFile(filepath.Join(home, ".ssh", "id_test"), []byte("PRIVATE KEY"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("public notes"), 0o644)
	os.Symlink(filepath.Join(home, ".ssh"), filepath.Join(home, "keys"))
	return home
}

// Secret folders named by the recipe's paths.deny (~/.ssh, ~/.aws, ...) are
// hidden from every program, including ones analysis cannot see into.
func TestSandboxHidesSecrets(t *testing.T) {
	home := homeWithKey(t)
	r, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths: { scope: 'anywhere' } }`, map[string]string{
		"peek.sh": "#!/bin/sh\ncat \"$1/notes.txt\"; echo; cat \"$1/.ssh/id_test\"; cat \"$1/keys/id_test\"; grep -r KEY \"$1\"\n",
	})
	res := r.Run(context.Background(), "./peek.sh "+home, runner.RunOptions{})
	if strings.Contains(res.Stdout, "PRIVATE KEY") {
		t.Fatalf("a secret was read: %q", res.Stdout)
	}
	// Unreadable (Landlock leaves it out), or empty (a mount covers it, in
	// the helper's own mount namespace).
	if !strings.Contains(res.Stdout, "public notes") || !strings.Contains(res.Stderr, "Permission denied") && !strings.Contains(res.Stderr, "No such file") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// Without the namespaces (a kernel or container that refuses them), the
// secrets are left out of Landlock's grants instead of covered: hidden all
// the same.
func TestSandboxHidesSecretsWithoutNamespaces(t *testing.T) {
	home := homeWithKey(t)
	r, _ := sandboxedWith(t, `{ commands: [{ command: './peek.sh' }], paths: { scope: 'anywhere' } }`, map[string]string{
		"peek.sh": "#!/bin/sh\ncat \"$1/notes.txt\"; echo; cat \"$1/.ssh/id_test\"; cat \"$1/keys/id_test\"; grep -r KEY \"$1\"\n",
	}, func(o *runner.Options) {
		plain, err := o.Sandbox.WithoutNamespaces(sandbox.Probe())
		if err != nil {
			noSandboxOrFatal(t, err)
		}
		o.Sandbox = &plain
	})
	res := r.Run(context.Background(), "./peek.sh "+home, runner.RunOptions{})
	if strings.Contains(res.Stdout, "PRIVATE KEY") {
		t.Fatalf("a secret was read: %q", res.Stdout)
	}
	if !strings.Contains(res.Stdout, "public notes") || !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// The places the README says are hidden are hidden: the newer entries of
// the list, and a secret folder that is a link, where it leads as well.
func TestSandboxHidesWhatTheReadmeSays(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	secret := map[string]string{
		".config/containers/auth.json": "REGISTRY", ".codex/auth.json": "CODEX", ".claude/.credentials.json": "CLAUDE",
		".oci/config": "ORACLE", ".config/gh/hosts.yml": "GH", "dotfiles/kube/config": "KUBE",
		".config/git/credentials": "GITCRED",
	}
	t.Setenv("XDG_CACHE_HOME", "")
	// git's credential cache (its socket's folder) and Docker Desktop's:
	// hidden where commands get namespaces of their own.
	services := []string{".cache/git/credential/socket", ".docker/run/docker.sock"}
	if !sandbox.Probe().Namespaces {
		services = nil
	}
	for _, name := range services {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700)
		os.WriteFile(filepath.Join(home, name), []byte("SERVICE-LEAK"), 0o600)
	}
	for name, body := range secret {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o700)
		os.WriteFile(filepath.Join(home, name), []byte(body+"-LEAK"), 0o600)
	}
	if err := os.Symlink(filepath.Join(home, "dotfiles", "kube"), filepath.Join(home, ".kube")); err != nil {
		t.Fatal(err)
	}
	// The script names the files itself: vetting, which refuses them by
	// name, does not see them.
	var names []string
	for name := range secret {
		names = append(names, "\"$HOME/"+name+"\"")
	}
	r, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths: { scope: 'anywhere' } }`, map[string]string{
		"peek.sh": "#!/bin/sh\necho ran\nfor f in " + strings.Join(names, " ") + " \"$HOME/.kube/config\"; do cat \"$f\"; done; grep -r LEAK \"$HOME\"\n",
	})
	res := r.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "ran") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

func TestSandboxReadOnly(t *testing.T) {
	r, dir := sandboxed(t, `{ commands: [{ command: './write.sh' }], sandbox: { mode: 'read-only' } }`, map[string]string{
		"write.sh": "#!/bin/sh\ncat write.sh > /dev/null && echo read-ok\necho x > inside.txt\n",
	})
	res := r.Run(context.Background(), "./write.sh", runner.RunOptions{})
	if _, err := os.Stat(filepath.Join(dir, "inside.txt")); err == nil {
		t.Error("read-only mode let a program write in the workspace")
	}
	if res.Stdout != "read-ok\n" || !strings.Contains(res.Stderr, "Permission denied") {
		t.Errorf("stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// A read-only recipe runs its commands read-only: what vetting lets through
// by mistake cannot write the workspace, though it has its own temp folder.
// The allow rule stands in for such a mistake.
func TestReadOnlyRecipesRunReadOnly(t *testing.T) {
	scripts := map[string]string{"tmp.sh": "#!/bin/sh\necho x > \"$TMPDIR/scratch\" && cat \"$TMPDIR/scratch\"\n"}
	grant := `{ allow+: ['touch *'], commands+: [{ command: './tmp.sh' }] }`
	for _, text := range []string{
		`local rein = import 'rein.libsonnet'; rein.presets.readonly + ` + grant,
		`local rein = import 'rein.libsonnet'; rein.presets.strict + ` + grant,
		`{ paths: { write: [] } } + ` + grant,
	} {
		r, dir := sandboxed(t, text, scripts)
		res := r.Run(context.Background(), "touch made", runner.RunOptions{})
		if _, err := os.Stat(filepath.Join(dir, "made")); err == nil || res.ExitCode == 0 {
			t.Errorf("%s: a command wrote the workspace: %+v", text, res)
		}
		res = r.Run(context.Background(), "./tmp.sh", runner.RunOptions{})
		if res.ExitCode != 0 || res.Stdout != "x\n" {
			t.Errorf("%s: the private temp folder is not writable: %+v", text, res)
		}
	}
	// Presets that build, test or commit write the workspace, in either order.
	for _, text := range []string{
		`local rein = import 'rein.libsonnet'; rein.presets.readonly + rein.presets.go + ` + grant,
		`local rein = import 'rein.libsonnet'; rein.presets.git + ` + grant,
	} {
		r, dir := sandboxed(t, text, scripts)
		res := r.Run(context.Background(), "touch made", runner.RunOptions{})
		if _, err := os.Stat(filepath.Join(dir, "made")); err != nil {
			t.Errorf("%s: %v %+v", text, err, res)
		}
	}
}

func TestSandboxNetworkBind(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 to bind a socket")
	}
	if !sandbox.Probe().Network {
		t.Skip("this kernel's Landlock cannot restrict the network")
	}
	script := map[string]string{"bind.sh": "#!/bin/sh\npython3 -c 'import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(\"bound\")'\n"}
	// Denied, the network is the command's own loopback where it has a
	// namespace (nothing outside reaches it there), and Landlock refuses
	// the bind where it has none.
	for _, tt := range []struct {
		network string
		want    bool
	}{{"deny", sandbox.Probe().Namespaces}, {"allow", true}} {
		r, _ := sandboxed(t, `{ commands: [{ command: './bind.sh' }], sandbox: { network: '`+tt.network+`' } }`, script)
		res := r.Run(context.Background(), "./bind.sh", runner.RunOptions{Timeout: 10 * time.Second})
		if got := strings.Contains(res.Stdout, "bound"); got != tt.want {
			t.Errorf("network %s: bound=%v (stdout %q stderr %q)", tt.network, got, res.Stdout, res.Stderr)
		}
	}
}

// macOS and Windows have no helper: limits there are not applied (and said
// so), instead of every command failing in a helper that cannot run.
func TestNoHelperOutsideLinux(t *testing.T) {
	r := &recipe.Recipe{Workspace: "/w", Sandbox: recipe.Sandbox{Mode: "workspace-write", Unavailable: "warn"}, Limits: recipe.Limits{CPUSeconds: 5}}
	cfg, warning, err := app.SandboxWith(r, sandbox.Status{OS: "darwin", Why: "no Landlock on darwin"})
	if cfg != nil || err != nil || !strings.Contains(warning, "no Landlock on darwin") {
		t.Errorf("darwin: %+v %v %q", cfg, err, warning)
	}
	cfg, _, _ = app.SandboxWith(r, sandbox.Status{OS: "linux", Why: "old kernel"})
	if cfg == nil || cfg.Mode != "off" || cfg.Limits.CPUSeconds != 5 {
		t.Errorf("linux without Landlock keeps the limits: %+v", cfg)
	}
}

// The language presets' caches are the workspace's own: a command writes
// this workspace's module, package and build caches (under
// $XDG_CACHE_HOME/rein-builds), never the shared ones other projects and
// the person run code from later, nor cargo's bin, env or config.
func TestPresetCachesAreNotAWayOut(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	shared := map[string]string{"go": "go/pkg/mod/m", "python": ".cache/pip/wheel", "node": ".npm/_cacache/x", "rust": ".cargo/registry/c"}
	own := map[string]string{"go": "GOMODCACHE", "python": "PIP_CACHE_DIR", "node": "npm_config_cache", "rust": "CARGO_HOME"}
	for preset, path := range shared {
		os.MkdirAll(filepath.Dir(filepath.Join(home, path)), 0o755)
		for _, d := range []string{".cargo/bin"} {
			os.MkdirAll(filepath.Join(home, d), 0o755)
		}
		r, _ := sandboxed(t, `(import 'rein.libsonnet').presets.`+preset+` + { commands+: [{ command: './w.sh' }] }`, map[string]string{
			"w.sh": "#!/bin/sh\n" +
				"echo code > \"$HOME/" + path + "\" && echo wrote shared\n" +
				"echo evil > \"$HOME/.cargo/bin/git\" && echo wrote bin\n" +
				"echo evil >> \"$HOME/.cargo/env\" && echo wrote env\n" +
				"mkdir -p \"$" + own[preset] + "\" && echo own > \"$" + own[preset] + "/x\" && echo wrote own \"$" + own[preset] + "\"\n",
		})
		res := r.Run(context.Background(), "./w.sh", runner.RunOptions{Env: []string{"HOME=" + home}})
		want := "wrote own " + filepath.Join(home, ".cache", "rein-builds")
		if !strings.HasPrefix(res.Stdout, want) || strings.Contains(res.Stdout, "shared") || strings.Contains(res.Stdout, "bin") || strings.Contains(res.Stdout, "wrote env") {
			t.Errorf("%s: stdout %q stderr %q", preset, res.Stdout, res.Stderr)
		}
	}
}

// No recipe can let commands write where rein keeps its recipes, compile
// cache and record; run from a folder holding them, commands only read.
func TestSandboxKeepsReinsFoldersOut(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "REIN_CACHE_DIR"} {
		t.Setenv(v, "")
	}
	linux := sandbox.Status{OS: "linux", LandlockABI: 4, Filesystem: true, Network: true}
	r := &recipe.Recipe{Workspace: t.TempDir(), Sandbox: recipe.Sandbox{Mode: "workspace-write", Write: []string{"~/.cache"}}}
	if _, _, err := app.SandboxWith(r, linux); err == nil || !strings.Contains(err.Error(), "sandbox.write "+filepath.Join(home, ".cache")+" holds") {
		t.Errorf("~/.cache granted: %v", err)
	}
	r.Sandbox.Write, r.Workspace = nil, home
	cfg, warning, err := app.SandboxWith(r, linux)
	if err != nil || cfg.Mode != "read-only" || !strings.Contains(warning, "commands may not write here") {
		t.Errorf("workspace = home: %+v %q %v", cfg, warning, err)
	}
	for _, preset := range []string{"readonly", "strict", "git", "go", "node", "python", "rust", "make"} {
		r, _ := policytest.Load(t, t.TempDir(), preset)
		if _, _, err := app.SandboxWith(r, linux); err != nil {
			t.Errorf("preset %s: %v", preset, err)
		}
	}
}

// A command that fails for want of the network, under a recipe that
// denies it, is explained: go build and cargo build failed with "network
// is unreachable" and no word from rein.
func TestNetworkDeniedIsExplained(t *testing.T) {
	r, _ := sandboxed(t, `{ commands: [{ command: './fetch.sh' }, { command: './other.sh' }], sandbox: { network: 'deny' } }`, map[string]string{
		"fetch.sh": "#!/bin/sh\necho 'fatal: unable to access: Could not resolve host: example.invalid' >&2\nexit 128\n",
		"other.sh": "#!/bin/sh\necho 'no such file' >&2\nexit 1\n",
	})
	if res := r.Run(context.Background(), "./fetch.sh", runner.RunOptions{}); !strings.Contains(res.Stderr, "this recipe denies the network (sandbox.network: deny)") {
		t.Errorf("no note: %+v", res)
	}
	if res := r.RunArgv(context.Background(), []string{"./fetch.sh"}, runner.RunOptions{}); !strings.Contains(res.Stderr, "denies the network") {
		t.Errorf("no note (argv): %+v", res)
	}
	if res := r.Run(context.Background(), "./other.sh", runner.RunOptions{}); strings.Contains(res.Stderr, "network") {
		t.Errorf("a note for another failure: %+v", res)
	}
}

// Under paths.scope 'workspace' (strict's) a script the recipe runs reads
// the workspace and the system folders, and nothing else: the sandbox's
// read side holds what vetting cannot see.
func TestConfinedReadsHoldInTheSandbox(t *testing.T) {
	elsewhere := t.TempDir()
	os.WriteFile(filepath.Join(elsewhere, "other-project.txt"), []byte("OTHER\n"), 0o644)
	script := "#!/bin/sh\n" +
		"cat " + filepath.Join(elsewhere, "other-project.txt") + " || echo BLOCKED-OUTSIDE\n" +
		"cat /etc/hostname >/dev/null && echo READ-SYSTEM\n" +
		"cat inside.txt\n"
	r, dir := sandboxed(t, `local rein = import 'rein.libsonnet'; rein.presets.strict + { commands+: [rein.command('./read.sh')] }`, map[string]string{"read.sh": script})
	os.WriteFile(filepath.Join(dir, "inside.txt"), []byte("INSIDE\n"), 0o644)
	res := r.Run(context.Background(), "./read.sh", runner.RunOptions{})
	for _, want := range []string{"BLOCKED-OUTSIDE", "READ-SYSTEM", "INSIDE"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("stdout lacks %s: %+v", want, res)
		}
	}
	if strings.Contains(res.Stdout, "OTHER") {
		t.Errorf("the script read another project's file: %+v", res)
	}
	// Vetting refuses what it can see.
	if d := r.Run(context.Background(), "cat "+filepath.Join(elsewhere, "other-project.txt"), runner.RunOptions{}); d.DeniedBy != "paths.scope" {
		t.Errorf("cat of a file outside: %+v", d)
	}
}

// noSandboxOrFatal ends a test whose sandbox could not be made: a skip
// where this kernel has no sandbox, a failure where it has one.
func noSandboxOrFatal(t *testing.T, err error) {
	t.Helper()
	if sandbox.Probe().Available() {
		t.Fatalf("the kernel has a sandbox, and it could not be made: %v", err)
	}
	t.Skipf("no sandbox on this kernel: %v", err)
}
