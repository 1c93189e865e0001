package runner_test

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// namespaced is sandboxed, where the helper can make its namespaces, with
// a repository (.git/hooks holding a pre-push hook, .git/config) in the
// workspace.
func namespaced(t *testing.T, recipeText string, scripts map[string]string) (*runner.Runner, string) {
	t.Helper()
	r, dir := sandboxed(t, recipeText, scripts)
	if st := sandbox.Probe(); !st.Namespaces {
		t.Skipf("no namespaces here: %s", st.NamespacesWhy)
	}
	if !r.Sandbox().Isolate {
		t.Fatal("the sandbox does not ask for namespaces where the kernel has them")
	}
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	return r, dir
}

// Inside a workspace the command may write, the recipe, the scripts it
// allows and the repository's hooks are read-only to it: the kernel
// refuses the write, so there is nothing for rein to put back, not even
// for a moment in which git or rein could run the change.
func TestNamespaceKeepsPolicyAndHooksReadOnly(t *testing.T) {
	r, dir := namespaced(t, `{ commands: [{ command: './change.sh' }, { command: './lint.sh' }] }`, map[string]string{
		"lint.sh": "#!/bin/sh\necho lint\n",
		"change.sh": `#!/bin/sh
echo '{ allow: ["*"] }' > rein.jsonnet
echo 'curl x | sh' > lint.sh
printf '#!/bin/sh\nid\n' > .git/hooks/pre-commit
echo id >> .git/hooks/pre-push
rm -f .git/hooks/pre-push
echo work > notes.txt
`,
	})
	recipeText, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet"))
	res := r.Run(context.Background(), "./change.sh", runner.RunOptions{})
	if got := strings.Count(res.Stderr, "Read-only file system"); got < 4 {
		t.Errorf("want the kernel to refuse each write, stderr:\n%s", res.Stderr)
	}
	if strings.Contains(res.Stderr, "put it back") || strings.Contains(res.Stderr, "removed it") {
		t.Errorf("rein had to put something back:\n%s", res.Stderr)
	}
	for name, want := range map[string]string{"rein.jsonnet": string(recipeText), "lint.sh": "#!/bin/sh\necho lint\n", ".git/hooks/pre-push": "#!/bin/sh\nexit 0\n", "notes.txt": "work\n"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != want {
			t.Errorf("%s now %q, want %q", name, b, want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a new hook was written")
	}
}

// A command started inside a read-only place (its folder is where the
// helper starts, before it mounts) still finds it read-only: a folder
// entered before a mount over it is the folder under the mount, and writes
// through it would go around the mount.
func TestNamespaceReadOnlyFromInside(t *testing.T) {
	r, dir := namespaced(t, `{ commands: [{ command: 'cd' }, { command: '../../write.sh' }] }`, map[string]string{
		"write.sh": "#!/bin/sh\nprintf '#!/bin/sh\\nid\\n' > pre-commit\necho id >> pre-push\n",
	})
	res := r.Run(context.Background(), "cd .git/hooks && ../../write.sh", runner.RunOptions{})
	if got := strings.Count(res.Stderr, "Read-only file system"); got < 2 {
		t.Errorf("want the kernel to refuse both writes, exit %d, stderr:\n%s\n%+v", res.ExitCode, res.Stderr, res)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("a new hook was written from inside the hooks folder")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "hooks", "pre-push")); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("pre-push now %q", b)
	}
}

// The repository's folder cannot be moved aside and made again without the
// read-only hooks; its config stays writable (a new branch's upstream is
// written there), and rein takes back entries that run programs.
func TestNamespacePinsTheRepository(t *testing.T) {
	r, dir := namespaced(t, `{ commands: [{ command: './swap.sh' }] }`, map[string]string{
		"swap.sh": "#!/bin/sh\nmv .git .git-old && mkdir -p .git/hooks && echo id > .git/hooks/pre-commit\nprintf '[branch \"main\"]\\n\\tremote = origin\\n' >> .git/config\n",
	})
	res := r.Run(context.Background(), "./swap.sh", runner.RunOptions{})
	if !strings.Contains(res.Stderr, "Device or resource busy") {
		t.Errorf("want the move refused, stderr:\n%s", res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git-old")); err == nil {
		t.Error(".git was moved")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); !strings.Contains(string(b), "remote = origin") {
		t.Errorf("the config could not be written: %q", b)
	}
}

// Nothing a command starts outlives it, not even a process that left its
// process group (setsid), which the group kill after each command misses.
func TestNothingOutlivesTheCommand(t *testing.T) {
	r, dir := sandboxed(t, `{ commands: [{ command: './escape.sh' }] }`, map[string]string{
		"escape.sh": "#!/bin/sh\n( setsid sh -c 'sleep 0.5; echo late > late.txt' & )\necho started\n",
	})
	start := time.Now()
	res := r.Run(context.Background(), "./escape.sh", runner.RunOptions{})
	if res.Stdout != "started\n" || res.ExitCode != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if time.Since(start) > 400*time.Millisecond {
		t.Errorf("the run waited %v for what the command left behind", time.Since(start))
	}
	time.Sleep(time.Second)
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("a process the command started wrote after it ended")
	}
}

// The helper reports the program's status as a shell does, signals
// included, and passes on the runner's SIGTERM.
func TestSupervisedStatus(t *testing.T) {
	r, _ := sandboxed(t, `{ commands: [{ command: './end.sh' }, { command: './trap.sh' }] }`, map[string]string{
		"end.sh":  "#!/bin/sh\n[ \"$1\" = kill ] && kill -9 $$\nexit \"$1\"\n",
		"trap.sh": "#!/bin/sh\ntrap 'echo got TERM; exit 7' TERM\nsleep 5 & wait\n",
	})
	for arg, want := range map[string]int{"0": 0, "3": 3, "kill": 137} {
		if res := r.Run(context.Background(), "./end.sh "+arg, runner.RunOptions{}); res.ExitCode != want {
			t.Errorf("end.sh %s: exit %d, want %d (stderr %q)", arg, res.ExitCode, want, res.Stderr)
		}
	}
	res := r.Run(context.Background(), "./trap.sh", runner.RunOptions{Timeout: 300 * time.Millisecond})
	if !res.TimedOut || !strings.Contains(res.Stdout, "got TERM") {
		t.Errorf("timed out %v, stdout %q, stderr %q", res.TimedOut, res.Stdout, res.Stderr)
	}
}

// With the network denied, the command has a network namespace of its
// own: UDP (which Landlock does not restrict) reaches nothing either. The
// send itself succeeds: the namespace's own loopback takes it.
func TestNetworkNamespaceStopsUDP(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("needs bash for /dev/udp")
	}
	port, received := udpListener(t)
	r, _ := namespaced(t, `{ commands: [{ command: './send.sh' }], sandbox: { network: 'deny' } }`, map[string]string{
		"send.sh": "#!/usr/bin/env bash\necho secret > /dev/udp/127.0.0.1/" + itoa(port) + "\n",
	})
	res := r.Run(context.Background(), "./send.sh", runner.RunOptions{})
	if got, ok := received(); ok {
		t.Fatalf("a datagram got out: %q (stderr %q)", got, res.Stderr)
	}
}

// udpListener listens on a local UDP port until the test ends; received
// is the datagram that came within 300 ms, if one did.
func udpListener(t *testing.T) (port int, received func() ([]byte, bool)) {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn.LocalAddr().(*net.UDPAddr).Port, func() ([]byte, bool) {
		conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		buf := make([]byte, 64)
		n, _, err := conn.ReadFrom(buf)
		return buf[:n], err == nil
	}
}

// Without a network namespace (AppArmor refuses it on many desktops),
// Landlock stops TCP only: a seccomp filter refuses the command UDP and
// every other socket but unix and netlink ones. Unix sockets still work.
func TestNetworkDeniedWithoutNamespaces(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 to send a datagram")
	}
	if !sandbox.Probe().Seccomp {
		t.Skip("no seccomp filter of rein's here (amd64 and arm64, a kernel with seccomp)")
	}
	port, received := udpListener(t)
	unixSock := filepath.Join(t.TempDir(), "svc")
	serve(t, "unix", unixSock, "unix works\n")
	r, _ := sandboxedWith(t, `{ commands: [{ command: './send.sh' }, { command: './local.sh' }], sandbox: { network: 'deny', sockets: ['`+unixSock+`'] } }`, map[string]string{
		"send.sh":  "#!/bin/sh\nexec python3 -c 'import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b\"secret\", (\"127.0.0.1\", " + itoa(port) + "))'\n",
		"local.sh": "#!/bin/sh\nexec python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode().strip())' " + unixSock + "\n",
	}, func(o *runner.Options) {
		c, err := o.Sandbox.WithoutNamespaces(sandbox.Probe())
		if err != nil {
			noSandboxOrFatal(t, err)
		}
		o.Sandbox = &c
	})
	res := r.Run(context.Background(), "./send.sh", runner.RunOptions{})
	if got, ok := received(); ok {
		t.Fatalf("a datagram got out: %q (stderr %q)", got, res.Stderr)
	}
	if res.ExitCode == 0 || !strings.Contains(res.Stderr, "Network is unreachable") || !strings.Contains(res.Stderr, "denies the network") {
		t.Errorf("exit %d, stderr %q: want the socket refused as where no network is, and rein's note", res.ExitCode, res.Stderr)
	}
	if res := r.Run(context.Background(), "./local.sh", runner.RunOptions{}); res.Stdout != "unix works\n" {
		t.Errorf("a unix socket: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// The helper that stays while the program runs is a Go program, which a
// small address space would kill: the limit binds the program only.
func TestAddressSpaceLimitBindsTheProgram(t *testing.T) {
	r, _ := sandboxed(t, `{ commands: [{ command: './small.sh' }, { command: './big.sh' }], limits: { address_space_bytes: 67108864 } }`, map[string]string{
		"small.sh": "#!/bin/sh\necho ok\n",
		"big.sh":   "#!/bin/sh\nexec python3 -c 'bytearray(200*1024*1024)'\n",
	})
	if res := r.Run(context.Background(), "./small.sh", runner.RunOptions{}); res.ExitCode != 0 || res.Stdout != "ok\n" {
		t.Fatalf("under a 64 MiB address space: exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3 to allocate 200 MiB with")
	}
	if res := r.Run(context.Background(), "./big.sh", runner.RunOptions{}); res.ExitCode == 0 || !strings.Contains(res.Stderr, "MemoryError") {
		t.Errorf("a 200 MiB allocation: exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
}

// BenchmarkSandboxedProgram is the cost of running a program in the
// sandbox, with and without the namespaces (supervised either way).
func BenchmarkSandboxedProgram(b *testing.B) {
	for _, isolate := range []bool{false, true} {
		b.Run(map[bool]string{false: "landlock", true: "landlock+namespaces"}[isolate], func(b *testing.B) {
			r, _ := sandboxedWith(b, `{ commands: [{ command: 'true' }] }`, nil, func(o *runner.Options) {
				if isolate && !o.Sandbox.Isolate {
					b.Skip("no namespaces here")
				}
				o.Sandbox.Isolate = isolate
			})
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if res := r.RunArgv(context.Background(), []string{"true"}, runner.RunOptions{}); res.ExitCode != 0 {
					b.Fatalf("exit %d: %s", res.ExitCode, res.Stderr)
				}
			}
		})
	}
}

// A kernel that refuses the namespaces when the helper starts (here: user
// namespaces nested as deep as the kernel allows, as a container's seccomp
// filter would refuse them) still runs the command, under Landlock and
// supervised. The test runs itself again that deep.
func TestNamespacesRefusedAtStart(t *testing.T) {
	if os.Getenv("REIN_TEST_NESTED") == "" {
		unshare, err := exec.LookPath("unshare")
		if err != nil || !sandbox.Probe().Namespaces {
			t.Skip("needs unshare and user namespaces")
		}
		args := []string{os.Args[0], "-test.run=^TestNamespacesRefusedAtStart$", "-test.v"}
		for i := 0; i < 33; i++ { // the kernel's limit is 32 below the first
			args = append([]string{unshare, "--user", "--map-root-user"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "REIN_TEST_NESTED=1")
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "--- PASS: TestNamespacesRefusedAtStart") {
			t.Fatalf("%v:\n%s", err, out)
		}
		return
	}
	r, dir := namespaced(t, `{ commands: [{ command: './work.sh' }] }`, map[string]string{
		"work.sh": "#!/bin/sh\necho ran > ran.txt\n( setsid sh -c 'sleep 0.3; echo late > late.txt' & )\n",
	})
	res := r.Run(context.Background(), "./work.sh", runner.RunOptions{})
	if res.ExitCode != 0 {
		t.Fatalf("exit %d, stderr %q", res.ExitCode, res.Stderr)
	}
	time.Sleep(600 * time.Millisecond)
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err != nil {
		t.Error("the command did not run")
	}
	if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
		t.Error("without namespaces, a process the command started outlived it")
	}
}

// A kept place that is missing, or a link to nothing, is no reason to
// refuse the command, nor to leave the places after it writable: there is
// nothing to mount there.
func TestNamespaceSkipsMissingPlaces(t *testing.T) {
	r, dir := namespaced(t, `{ commands: [{ command: './ok.sh' }, { command: './scripts/gone.sh' }, { command: './scripts/dangling.sh' }] }`, map[string]string{
		"ok.sh": "#!/bin/sh\necho ok\necho id > .git/hooks/pre-commit\n",
	})
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.Symlink("nowhere.sh", filepath.Join(dir, "scripts", "dangling.sh"))
	res := r.Run(context.Background(), "./ok.sh", runner.RunOptions{})
	if res.Stdout != "ok\n" || !strings.Contains(res.Stderr, "Read-only file system") {
		t.Errorf("exit %d, stdout %q, stderr %q", res.ExitCode, res.Stdout, res.Stderr)
	}
}

// A program that ignores SIGTERM past its grace period is killed with its
// group; what it left outside the group is killed too (the helper does it
// before the group kill reaches the helper itself), with the network open
// or closed (closing it also scopes signals).
func TestNothingOutlivesATimeout(t *testing.T) {
	for _, network := range []string{"allow", "deny"} {
		t.Run(network, func(t *testing.T) {
			r, dir := sandboxedWith(t, `{ commands: [{ command: './stubborn.sh' }], sandbox: { network: '`+network+`' } }`, map[string]string{
				"stubborn.sh": "#!/bin/sh\ntrap '' TERM\n( setsid sh -c 'trap \"\" TERM; sleep 1; echo late > late.txt' & )\nsleep 30\n",
			}, func(o *runner.Options) { o.Grace = 100 * time.Millisecond })
			res := r.Run(context.Background(), "./stubborn.sh", runner.RunOptions{Timeout: 200 * time.Millisecond})
			if !res.TimedOut {
				t.Fatalf("not timed out: exit %d, stderr %q", res.ExitCode, res.Stderr)
			}
			time.Sleep(1500 * time.Millisecond)
			if _, err := os.Stat(filepath.Join(dir, "late.txt")); err == nil {
				t.Errorf("a process the command started wrote after it timed out: %q", res.Stderr)
			}
		})
	}
}

// Behind a local service's socket can be a way out of any sandbox (the
// session bus has systemd start a program, Docker's socket is root): in its
// namespace a command finds the user's runtime folder empty, unless the
// recipe lets it reach that service.
func TestLocalServicesAreHidden(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 to connect to a unix socket")
	}
	runtimeDir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", runtimeDir)
	serve(t, "unix", filepath.Join(runtimeDir, "bus"), "systemd at your service\n")
	connect := "#!/bin/sh\nexec python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode().strip())' " + filepath.Join(runtimeDir, "bus") + "\n"
	for _, tt := range []struct {
		name, sockets string
		reached       bool
	}{
		{"hidden", "", false},
		{"allowed by the recipe", `, sockets: ['` + runtimeDir + `']`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, _ := namespaced(t, `{ commands: [{ command: './connect.sh' }], sandbox: { mode: 'workspace-write'`+tt.sockets+` } }`, map[string]string{"connect.sh": connect})
			res := r.Run(context.Background(), "./connect.sh", runner.RunOptions{})
			if reached := strings.Contains(res.Stdout, "at your service"); reached != tt.reached {
				t.Errorf("reached the service: %v, want %v (stdout %q, stderr %q)", reached, tt.reached, res.Stdout, res.Stderr)
			}
		})
	}
}

// Another session's ssh-agent (a socket in /tmp/ssh-*, which rein finds in
// the kernel's table of bound sockets) signs for the user's keys: a command
// finds its folder empty.
func TestOtherSSHAgentsAreHidden(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("needs python3 to connect to a unix socket")
	}
	agentDir, err := os.MkdirTemp("/tmp", "ssh-reintest")
	if err != nil {
		t.Fatalf("cannot make an agent folder in /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(agentDir) })
	sock := filepath.Join(agentDir, "agent.1")
	serve(t, "unix", sock, "agent at your service\n")
	r, _ := namespaced(t, `{ commands: [{ command: './connect.sh' }], sandbox: { mode: 'workspace-write' } }`, map[string]string{
		"connect.sh": "#!/bin/sh\nexec python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(s.recv(64).decode().strip())' " + sock + "\n",
	})
	res := r.Run(context.Background(), "./connect.sh", runner.RunOptions{})
	if strings.Contains(res.Stdout, "at your service") {
		t.Errorf("the command reached another session's ssh-agent (stdout %q)", res.Stdout)
	}
}

// A command cannot signal processes outside it (rein, the user's other
// programs), network or not; its own children it can.
func TestSignalsStayInsideTheCommand(t *testing.T) {
	if st := sandbox.Probe(); st.LandlockABI < 6 {
		t.Skipf("Landlock ABI %d cannot scope signals (needs 6)", st.LandlockABI)
	}
	r, _ := sandboxed(t, `{ commands: [{ command: './signal.sh' }] }`, map[string]string{
		"signal.sh": "#!/bin/sh\nsleep 5 & kill $! && echo own child\nkill -0 " + itoa(os.Getpid()) + " && echo reached rein\n",
	})
	res := r.Run(context.Background(), "./signal.sh", runner.RunOptions{})
	if !strings.Contains(res.Stdout, "own child") || strings.Contains(res.Stdout, "reached rein") {
		t.Errorf("stdout %q, stderr %q", res.Stdout, res.Stderr)
	}
}

// Started by hand, without namespaces of its own, the helper mounts
// nothing: as root its mounts would be the whole machine's.
func TestHelperMountsOnlyInItsOwnNamespaces(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Linux's namespaces")
	}
	if b, err := os.ReadFile("/proc/self/uid_map"); err != nil || !strings.Contains(string(b), "4294967295") {
		t.Skip("the tests run in a user namespace of their own")
	}
	before, _ := os.ReadFile("/proc/self/mountinfo")
	cfg := `{"mode":"workspace-write","workspace":"` + t.TempDir() + `","limits":{},"isolate":true,"hide_services":["` + t.TempDir() + `"],"protocol":"` + sandbox.Protocol() + `"}`
	out, err := exec.Command(os.Args[0], sandbox.HelperArg, cfg, "/bin/true", "true").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "not in namespaces of its own") {
		t.Errorf("%v: %s", err, out)
	}
	if after, _ := os.ReadFile("/proc/self/mountinfo"); string(after) != string(before) {
		t.Error("the helper changed this machine's mounts")
	}
}

// A helper whose gate closes before a whole configuration came (rein died
// or could not write it), or that is named a gate it cannot use, runs
// nothing and says why, with status 126.
func TestHelperGateFailures(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the helper is Linux's")
	}
	canary := filepath.Join(t.TempDir(), "ran")
	for _, tt := range []struct {
		name, gate, sent, want string
	}{
		{"closed at once", "fd:3", "", "rein sent no configuration"},
		{"half a configuration", "fd:3", `{"mode":"read-only"`, "rein sent no configuration"},
		{"not a descriptor", "fd:x", "", "bad gate fd:x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], sandbox.HelperArg, tt.gate, "/usr/bin/touch", "touch", canary)
			cmd.ExtraFiles = []*os.File{r}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			r.Close()
			w.WriteString(tt.sent)
			w.Close()
			err = cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 126 || !strings.Contains(out.String(), tt.want) {
				t.Errorf("%v: %q, want status 126 and %q", err, out.String(), tt.want)
			}
			if _, err := os.Stat(canary); err == nil {
				t.Fatal("the helper ran the program")
			}
		})
	}
}
