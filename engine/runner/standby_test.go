//go:build linux

package runner_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// A program run through a sandbox helper started ahead (runner.Standby, a
// resident engine's) is confined and wired as one run through a helper of
// its own: the same output and errors, status, folder, input, writes kept
// to the workspace and the temp folder, secrets hidden.
func TestStandbyRunsAsAHelperOfItsOwn(t *testing.T) {
	home := homeWithKey(t)
	outside := t.TempDir()
	recipe := `{ commands: [{ command: './probe.sh' }], sandbox: { mode: 'workspace-write', network: 'deny' } }`
	scripts := map[string]string{
		"probe.sh": "#!/bin/sh\npwd\necho \"input: $(cat)\"\necho inside > inside.txt && cat inside.txt\n" +
			"echo tmp > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"\necho escaped > " + outside + "/f\n" +
			"cat \"$1/notes.txt\"; echo; cat \"$1/.ssh/id_test\"\n" +
			"echo to stderr >&2\nexit 3\n",
	}
	type outcome struct {
		stdout, stderr string
		code           int
	}
	run := func(r *runner.Runner, dir string) outcome {
		t.Helper()
		res := r.Run(context.Background(), "./probe.sh "+home, runner.RunOptions{Stdin: strings.NewReader("from the caller"), Dir: filepath.Join(dir, "sub")})
		return outcome{strings.ReplaceAll(res.Stdout, dir, "WORKSPACE"), strings.ReplaceAll(res.Stderr, dir, "WORKSPACE"), res.ExitCode}
	}
	own, ownDir := sandboxed(t, recipe, scripts)
	os.Mkdir(filepath.Join(ownDir, "sub"), 0o755)
	os.WriteFile(filepath.Join(ownDir, "sub", "probe.sh"), []byte(scripts["probe.sh"]), 0o755)
	want := run(own, ownDir)

	standby := &runner.Standby{}
	defer standby.Close()
	ahead, aheadDir := sandboxedWith(t, recipe, scripts, func(o *runner.Options) { o.Standby = standby })
	os.Mkdir(filepath.Join(aheadDir, "sub"), 0o755)
	os.WriteFile(filepath.Join(aheadDir, "sub", "probe.sh"), []byte(scripts["probe.sh"]), 0o755)
	if got := run(ahead, aheadDir); got != want {
		t.Fatalf("without a helper waiting yet:\n%+v\nwant\n%+v", got, want)
	}
	for i := 0; i < 2; i++ {
		standby.Refill()
		if !standby.Waiting() {
			t.Fatal("Refill started no helper")
		}
		if got := run(ahead, aheadDir); got != want {
			t.Errorf("through a helper started ahead:\n%+v\nwant\n%+v", got, want)
		}
		if standby.Waiting() {
			t.Error("the helper started ahead was not used")
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "f")); err == nil {
		t.Error("a program wrote outside the workspace")
	}
	if !strings.Contains(want.stdout, "public notes") || strings.Contains(want.stdout, "PRIVATE KEY") ||
		want.code != 3 || !strings.Contains(want.stdout, "input: from the caller") {
		t.Errorf("the probe itself: %+v", want)
	}
}

// A helper started ahead for other namespaces is not used: a program whose
// recipe denies the network, after one that had it, gets a helper of its
// own, in a network namespace of its own (had it taken the waiting one, it
// would reach this machine's listener).
func TestStandbyMustMatch(t *testing.T) {
	l := serve(t, "tcp", "127.0.0.1:0", "hello\n")
	probe := map[string]string{"probe.sh": "#!/bin/bash\n(exec 3<>/dev/tcp/127.0.0.1/" + strconv.Itoa(l.Addr().(*net.TCPAddr).Port) + ") 2>/dev/null && echo network || echo no network\nreadlink /proc/self/ns/net\n"}
	ours, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		t.Skip(err)
	}
	standby := &runner.Standby{}
	defer standby.Close()
	open, _ := sandboxedWith(t, `{ commands: [{ command: './probe.sh' }], sandbox: { mode: 'workspace-write', network: 'allow' } }`,
		probe, func(o *runner.Options) { o.Standby = standby })
	closed, _ := sandboxedWith(t, `{ commands: [{ command: './probe.sh' }], sandbox: { mode: 'workspace-write', network: 'deny' } }`,
		probe, func(o *runner.Options) { o.Standby = standby })
	if res := open.Run(context.Background(), "./probe.sh", runner.RunOptions{}); res.Stdout != "network\n"+ours+"\n" {
		t.Fatalf("with the network: %+v", res)
	}
	standby.Refill() // for a program with the network
	if res := closed.Run(context.Background(), "./probe.sh", runner.RunOptions{}); !strings.HasPrefix(res.Stdout, "no network\n") || strings.Contains(res.Stdout, ours) {
		t.Errorf("a program without the network, in this machine's network namespace: %+v", res)
	}
	if standby.Waiting() {
		t.Error("the helper for another namespace still waits")
	}
}

// A helper started ahead that is sent nothing, or not a whole launch, or
// no streams with it, runs nothing and says why, with status 126.
func TestStandbyHelperFailures(t *testing.T) {
	canary := filepath.Join(t.TempDir(), "ran")
	launch, _ := json.Marshal(sandbox.Launch{Path: "/usr/bin/touch", Argv: []string{"touch", canary}, Dir: "/"})
	framed := append(binary.BigEndian.AppendUint32(nil, uint32(len(launch))), launch...)
	damaged := append(binary.BigEndian.AppendUint32(nil, 5), "{nope"...)
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	streams := unix.UnixRights(int(null.Fd()), int(null.Fd()), int(null.Fd()))
	for _, tt := range []struct {
		name, arg string
		sent, oob []byte
		want      string
	}{
		{"closed at once", "standby:3", nil, nil, "rein sent nothing to run"},
		{"no streams", "standby:3", framed, nil, "without its three standard streams"},
		{"half a launch", "standby:3", framed[:10], streams, "rein sent part of what to run"},
		{"a damaged launch", "standby:3", damaged, streams, "rein sent a damaged launch"},
		{"not a descriptor", "standby:x", nil, nil, "bad standby descriptor standby:x"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
			if err != nil {
				t.Fatal(err)
			}
			ours, theirs := os.NewFile(uintptr(pair[0]), "ours"), os.NewFile(uintptr(pair[1]), "theirs")
			cmd := exec.Command(os.Args[0], sandbox.HelperArg, tt.arg)
			cmd.ExtraFiles = []*os.File{theirs}
			var out strings.Builder
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			theirs.Close()
			if tt.sent != nil {
				unix.Sendmsg(int(ours.Fd()), tt.sent, tt.oob, nil, 0)
			}
			ours.Close()
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
