//go:build linux

package runner_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
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
