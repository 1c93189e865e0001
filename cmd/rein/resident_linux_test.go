package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/resident"
	"github.com/reinsh/rein/engine/sandbox"
)

// residentWorld is a built rein with an environment of its own: state,
// configuration, cache and the resident engines' sockets in throwaway
// folders, so the engines it starts serve these tests alone.
type residentWorld struct {
	bin     string
	env     []string
	sockets string // $XDG_RUNTIME_DIR/rein
}

func newResidentWorld(t *testing.T) *residentWorld { return newResidentWorldIn(t, true) }

// newResidentWorldIn makes a world whose sockets are in $XDG_RUNTIME_DIR,
// or, where runtimeDir is false, in the temporary folder ($TMPDIR).
func newResidentWorldIn(t *testing.T, runtimeDir bool) *residentWorld {
	t.Helper()
	bin := reinBinary(t)
	// A short name: a socket's path holds at most 107 bytes.
	base, err := os.MkdirTemp("", "rr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	w := &residentWorld{bin: bin}
	for _, kv := range os.Environ() {
		switch strings.SplitN(kv, "=", 2)[0] {
		case "PATH", "LANG":
			w.env = append(w.env, kv)
		}
	}
	if runtimeDir {
		w.sockets = filepath.Join(base, "rein")
		w.env = append(w.env, "XDG_RUNTIME_DIR="+base)
	} else {
		w.sockets = filepath.Join(base, fmt.Sprintf("rein-resident-%d", os.Getuid()))
		w.env = append(w.env, "TMPDIR="+base)
	}
	w.env = append(w.env,
		"HOME="+t.TempDir(),
		"XDG_CONFIG_HOME="+t.TempDir(),
		"XDG_STATE_HOME="+t.TempDir(),
		"REIN_CACHE_DIR="+t.TempDir(),
		"REIN_DB="+filepath.Join(t.TempDir(), "rein.db"),
		"REIN_RESIDENT_IDLE=1m",
		"CI=true",
	)
	t.Cleanup(func() { w.stopEngines(t) })
	return w
}

// stopEngines ends the engines this world started (they would end by
// themselves once idle).
func (w *residentWorld) stopEngines(t *testing.T) {
	out, _ := exec.Command("pgrep", "-f", w.sockets).Output()
	for _, pid := range strings.Fields(string(out)) {
		exec.Command("kill", pid).Run()
	}
}

var durations = regexp.MustCompile(`"duration_ms": \d+`)

type reinRun struct {
	stdout, stderr string
	code           int
}

// run runs rein in dir, with $PWD set to dir as a shell sets it, and mode
// as $REIN_RESIDENT.
func (w *residentWorld) run(t *testing.T, mode, dir, stdin string, args ...string) reinRun {
	t.Helper()
	cmd := exec.Command(w.bin, args...)
	cmd.Dir = dir
	cmd.Env = append(append([]string{}, w.env...), "PWD="+dir, "REIN_RESIDENT="+mode)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return reinRun{out.String(), errb.String(), code}
}

// startEngine makes sure an engine serves mode's environment: the first
// command finds none and starts one, which is up once its socket answers.
func (w *residentWorld) startEngine(t *testing.T, mode, dir string) string {
	t.Helper()
	first := w.run(t, mode, dir, "", "check", "true")
	for i := 0; i < 500; i++ {
		matches, _ := filepath.Glob(filepath.Join(w.sockets, "*.sock"))
		for _, m := range matches {
			if c, err := net.Dial("unix", m); err == nil {
				c.Close()
				return m
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	entries, _ := os.ReadDir(w.sockets)
	t.Fatalf("no resident engine started (the first check: %+v; %d files in %s)", first, len(entries), w.sockets)
	return ""
}

func residentRepo(t *testing.T) string {
	t.Helper()
	if st := resident.SocketDir(); st == "" {
		t.Skip("no resident engines here")
	}
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, "sub"), 0o755)
	os.WriteFile(filepath.Join(repo, "rein.jsonnet"), []byte(`local lib = import 'lib.libsonnet';
{ commands: [{ command: 'make test' }] + lib.commands, deny: ['git push'] }
`), 0o644)
	os.WriteFile(filepath.Join(repo, "lib.libsonnet"), []byte(`{ commands: [{ command: 'go vet ./...' }] }`), 0o644)
	os.WriteFile(filepath.Join(repo, "extra.jsonnet"), []byte(`{ commands: [{ command: 'make lint' }] }`), 0o644)
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("hello\n"), 0o644)
	return repo
}

// A resident engine answers as rein answers by itself, byte for byte:
// verdicts, JSON, help, usage and recipe errors, folders below the
// recipe's, a folder reached through a link, relative paths in flags,
// commands read from standard input, and the agents' hooks.
func TestResidentAnswersAsReinDoes(t *testing.T) {
	w := newResidentWorld(t)
	repo := residentRepo(t)
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "rein.jsonnet"), []byte("{ commands: [ }\n"), 0o644)
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(repo, link)
	w.startEngine(t, resident.Require, repo)

	claude := func(command string) string {
		return fmt.Sprintf(`{"session_id":"s-1","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":%q},"tool_use_id":"t-1"}`, repo, command)
	}
	codex := fmt.Sprintf(`{"session_id":"s-2","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"shell","tool_input":{"command":["bash","-lc","git push"]}}`, repo)
	cases := []struct {
		name, dir, stdin string
		args             []string
	}{
		{"allowed", repo, "", []string{"check", "make test"}},
		{"imported", repo, "", []string{"check", "go vet ./..."}},
		{"denied", repo, "", []string{"check", "git status; git push"}},
		{"json", repo, "", []string{"check", "--json", "ls | xargs rm"}},
		{"preset", repo, "", []string{"--preset", "readonly", "check", "cat README.md"}},
		{"help", repo, "", []string{"check", "--help"}},
		{"bad flag", repo, "", []string{"check", "--bogus", "ls"}},
		{"bad preset", repo, "", []string{"check", "--preset", "nope", "ls"}},
		{"recipe error", broken, "", []string{"check", "ls"}},
		{"below the recipe", filepath.Join(repo, "sub"), "", []string{"check", "cat ../README.md > ../out"}},
		{"through a link", link, "", []string{"check", "--json", "cat ~/.ssh/id_rsa README.md"}},
		{"relative recipe", repo, "", []string{"--recipe", "extra.jsonnet", "check", "make lint"}},
		{"standard input", repo, "make test\ngit push\nrm -rf /\n", []string{"check", "--json"}},
		{"no command", repo, "", []string{"check"}},
		{"hook allowed", repo, claude("cat README.md"), []string{"hook", "claude-code"}},
		{"hook denied", repo, claude("git push"), []string{"hook", "claude-code"}},
		{"hook codex", repo, codex, []string{"hook", "codex"}},
		{"hook malformed", repo, "{not json", []string{"hook", "gemini"}},
		{"exec", repo, "", []string{"exec", "--preset", "readonly", "cat README.md | wc -l"}},
		{"exec in a folder below", filepath.Join(repo, "sub"), "", []string{"exec", "--preset", "readonly", "ls ..; pwd"}},
		{"exec fails", repo, "", []string{"exec", "--preset", "readonly", "ls nothing-here"}},
		{"exec denied", repo, "", []string{"exec", "--preset", "readonly", "rm README.md"}},
		{"exec json", repo, "", []string{"exec", "--preset", "readonly", "--json", "head -1 README.md"}},
		{"exec dry run", repo, "", []string{"exec", "--dry-run", "git push"}},
		{"exec reads standard input", repo, "line one\nline two\n", []string{"exec", "--preset", "readonly", "sort -r"}},
		{"exec of the repository's recipe", repo, "", []string{"exec", "go vet ./..."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			alone := w.run(t, resident.Off, c.dir, c.stdin, c.args...)
			served := w.run(t, resident.Require, c.dir, c.stdin, c.args...)
			// How long a run took is the one thing allowed to differ.
			for _, r := range []*reinRun{&alone, &served} {
				r.stdout = durations.ReplaceAllString(r.stdout, `"duration_ms": N`)
			}
			if served != alone {
				t.Errorf("served by the resident engine:\n%+v\nby rein alone:\n%+v", served, alone)
			}
			if alone.stdout == "" && alone.stderr == "" && c.name != "no command" {
				t.Errorf("no output at all: %+v", alone)
			}
		})
	}
}

// An engine sees every change a fresh rein would: the recipe, a file it
// imports.
func TestResidentFollowsRecipeChanges(t *testing.T) {
	w := newResidentWorld(t)
	repo := residentRepo(t)
	w.startEngine(t, resident.Require, repo)
	verdict := func(command string) int {
		t.Helper()
		r := w.run(t, resident.Require, repo, "", "check", command)
		if r.stderr != "" {
			t.Fatalf("%+v", r)
		}
		return r.code
	}
	if verdict("make test") != exitOK || verdict("go vet ./...") != exitOK {
		t.Fatal("the recipe's commands are not allowed")
	}
	os.WriteFile(filepath.Join(repo, "rein.jsonnet"), []byte(`local lib = import 'lib.libsonnet';
{ commands: lib.commands, deny: ['make test', 'git push'] }
`), 0o644)
	if got := verdict("make test"); got != exitDeny {
		t.Errorf("after the recipe denied make test: exit %d", got)
	}
	os.WriteFile(filepath.Join(repo, "lib.libsonnet"), []byte(`{ commands: [] }`), 0o644)
	if got := verdict("go vet ./..."); got == exitOK {
		t.Errorf("after the imported file dropped go vet: still allowed")
	}
}

// Without an engine, rein answers by itself and starts one; with
// REIN_RESIDENT=off it starts none.
func TestResidentStartsOnce(t *testing.T) {
	w := newResidentWorld(t)
	repo := residentRepo(t)
	if r := w.run(t, resident.Off, repo, "", "check", "make test"); r.code != exitOK {
		t.Fatalf("%+v", r)
	}
	if entries, _ := os.ReadDir(w.sockets); len(entries) != 0 {
		t.Errorf("REIN_RESIDENT=off left %d files in %s", len(entries), w.sockets)
	}
	if r := w.run(t, "", repo, "", "check", "make test"); r.code != exitOK || r.stderr != "" {
		t.Fatalf("the first check: %+v", r)
	}
	for i := 0; ; i++ {
		matches, _ := filepath.Glob(filepath.Join(w.sockets, "*.sock"))
		if len(matches) == 1 {
			break
		}
		if i == 500 {
			t.Fatalf("sockets after the first check: %q", matches)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := w.run(t, "", repo, "", "exec", "--preset", "readonly", "cat README.md"); r.code != exitOK || r.stdout != "hello\n" {
		t.Errorf("rein exec: %+v", r)
	}
	// Commands that talk to models or serve agents are rein's own.
	if r := w.run(t, resident.Require, repo, "", "--preset", "readonly", "tools"); r.code != exitOK || !strings.Contains(r.stdout, "run_command") {
		t.Errorf("rein tools: %+v", r)
	}
}

// The attack: a command rein runs in its sandbox connects to the resident
// engine's socket (its path is no secret) and hands it a request, to have
// something decided outside the sandbox. The socket's folder is hidden
// from the command where the sandbox has namespaces, and the engine
// refuses a caller with no_new_privs or in other namespaces anyway. The
// same request from outside the sandbox is served: the probe works.
func TestSandboxedCommandCannotUseTheResidentEngine(t *testing.T) {
	if st := sandbox.Probe(); !st.Available() {
		t.Skipf("the sandbox is not enforced here: %s", st.Why)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("needs python3 to send descriptors over a unix socket")
	}
	t.Run("XDG_RUNTIME_DIR", func(t *testing.T) { probeResident(t, python, newResidentWorldIn(t, true)) })
	t.Run("TMPDIR", func(t *testing.T) { probeResident(t, python, newResidentWorldIn(t, false)) })
}

func probeResident(t *testing.T, python string, w *residentWorld) {
	repo := residentRepo(t)
	socket := w.startEngine(t, "", repo)
	body := repo + "\x00\x00\x00check\x00make test\x00"
	req := []byte(resident.Magic)
	req = append(req, byte(len(body)>>24), byte(len(body)>>16), byte(len(body)>>8), byte(len(body)))
	req = append(req, body...)
	os.WriteFile(filepath.Join(repo, "request"), req, 0o644)
	os.WriteFile(filepath.Join(repo, "probe.py"), []byte(`import os, socket, sys
s = socket.socket(socket.AF_UNIX)
try:
    s.connect(sys.argv[1])
    null = os.open('/dev/null', os.O_RDWR)
    socket.send_fds(s, [open('request', 'rb').read()], [null, null, null])
    print('answer', repr(s.recv(200)))
except OSError as e:
    print('unreachable', e)
`), 0o644)
	os.WriteFile(filepath.Join(repo, "rein.jsonnet"), []byte(`{ commands: [{ command: 'python3 probe.py' }], sandbox: { mode: 'workspace-write' } }`), 0o644)

	outside := exec.Command(python, "probe.py", socket)
	outside.Dir = repo
	got, err := outside.Output()
	if err != nil || !strings.Contains(string(got), "answer b'a") {
		t.Fatalf("the probe from outside the sandbox was not served: %v %s", err, got)
	}

	r := w.run(t, "", repo, "", "exec", "python3 probe.py "+socket)
	t.Logf("inside: %s", r.stdout)
	if strings.Contains(r.stdout, "answer b'a") || !strings.Contains(r.stdout, "unreachable") && !strings.Contains(r.stdout, "answer b'r") {
		t.Errorf("from inside the sandbox: %+v", r)
	}
}

// A served rein exec whose caller is killed (SIGKILL: no word to the
// engine) stops its command and all it left, as rein's own death does
// (TestCommandsDieWithRein), records its end, and ends the engine.
func TestResidentExecDiesWithItsCaller(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills rein")
	}
	w := newResidentWorld(t)
	repo := residentRepo(t)
	os.WriteFile(filepath.Join(repo, "rein.jsonnet"), []byte(`{ allow: ['sleep *', 'sh *'], shell: { background: 'allow' }, sandbox: { mode: 'workspace-write' } }`), 0o644)
	socket := w.startEngine(t, resident.Require, repo)
	marker := "37.43"
	cmd := exec.Command(w.bin, "exec", "--timeout", "5m", "sh -c 'sleep "+marker+" & sleep "+marker+"'")
	cmd.Dir = repo
	cmd.Env = append(append([]string{}, w.env...), "PWD="+repo, "REIN_RESIDENT="+resident.Require)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	awaitSleepers(t, marker, cmd)
	if _, err := os.Stat(socket + resident.BusySuffix); err != nil {
		t.Errorf("the engine running rein exec is not marked busy: %v", err)
	}
	// A check meanwhile is answered, by a rein of its own.
	if r := w.run(t, "", repo, "", "check", "sleep 1"); r.code != exitOK {
		t.Errorf("a check while the engine is busy: %+v", r)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	awaitNoSleepers(t, marker, "their caller")
	for i := 0; ; i++ {
		if _, err := os.Stat(socket); err != nil {
			break
		}
		if i == 250 {
			t.Fatal("the engine did not end after its caller died")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := w.run(t, resident.Off, repo, "", "audit", "--json")
	if !strings.Contains(r.stdout, marker) || !strings.Contains(r.stdout, `"state":"finished"`) && !strings.Contains(r.stdout, `"exit_code"`) {
		t.Errorf("the audit log: %+v", r)
	}
}

// The engine keeps the database open between commands, but not a file that
// is gone: a database moved aside (or removed) is opened again where the
// next command's record belongs, and nothing is written where nobody can
// find it.
func TestResidentReopensAMovedDatabase(t *testing.T) {
	w := newResidentWorld(t)
	repo := residentRepo(t)
	w.startEngine(t, resident.Require, repo)
	exec := func(text string) {
		t.Helper()
		if r := w.run(t, resident.Require, repo, "", "exec", "--preset", "readonly", text); r.code != exitOK {
			t.Fatalf("%s: %+v", text, r)
		}
	}
	exec("echo first")
	var db string
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "REIN_DB="); ok {
			db = v
		}
	}
	if err := os.Rename(db, db+".old"); err != nil {
		t.Fatal(err)
	}
	os.Remove(db + "-wal")
	os.Remove(db + "-shm")
	exec("echo second")
	r := w.run(t, resident.Off, repo, "", "audit", "--json")
	if !strings.Contains(r.stdout, "echo second") || strings.Contains(r.stdout, "echo first") {
		t.Errorf("the database at REIN_DB after it was moved aside: %+v", r)
	}
}
