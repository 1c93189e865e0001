package runner_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// Under granted reads (every recipe's default) a script reads the
// workspace, the system folders, the toolchains and what paths.read
// grants, and nothing else of the home folder, whatever its files are
// called: no list of secret names has to hold them.
func TestReadsAreGranted(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	canaries := map[string]string{ // files no secret list names
		".cache/huggingface/token":      "HF-CANARY",
		".config/someapp/settings.json": "APP-CANARY",
		".android/adbkey":               "ADB-CANARY",
		"other-project/.env-production": "OTHER-CANARY",
		".local/share/app/history.db":   "DATA-CANARY",
	}
	granted := map[string]string{
		"notes/plan.txt":        "NOTES-READ",     // paths.read
		".gitconfig":            "GITCONFIG-READ", // what git reads for itself
		".rustup/settings.toml": "RUSTUP-READ",    // a toolchain
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for _, files := range []map[string]string{canaries, granted} {
		for f, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(home, f)), 0o755)
			if err := os.WriteFile(filepath.Join(home, f), []byte(text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			script.WriteString("cat \"$HOME/" + f + "\" 2>/dev/null\n")
		}
	}
	script.WriteString("ls \"$HOME\" 2>/dev/null && echo LISTED-HOME\n")
	scripts := map[string]string{"peek.sh": script.String()}

	r, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths+: { read: ['**', '~/notes/**'] } }`, scripts)
	res := r.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	for _, text := range canaries {
		if strings.Contains(res.Stdout, text) {
			t.Errorf("a file outside the grants was read (%s): %q", text, res.Stdout)
		}
	}
	if strings.Contains(res.Stdout, "LISTED-HOME") {
		t.Errorf("the home folder was listed: %q", res.Stdout)
	}
	for _, text := range granted {
		if !strings.Contains(res.Stdout, text) {
			t.Errorf("a granted file was not read (%s): stdout %q stderr %q", text, res.Stdout, res.Stderr)
		}
	}
	// Vetting refuses what it sees, naming the grant to add.
	d := r.Run(context.Background(), "cat ~/.cache/huggingface/token", runner.RunOptions{})
	if d.DeniedBy != "paths.scope" || !strings.Contains(d.Error, "read+: ['~/.cache/huggingface/**']") {
		t.Errorf("cat of an unnamed file in the home folder: %+v", d)
	}

	// The same script with reads open (paths.scope: 'anywhere') reads the
	// canaries: what holds them above is the grant, not their names.
	open, _ := sandboxed(t, `{ commands: [{ command: './peek.sh' }], paths+: { scope: 'anywhere' } }`, scripts)
	res = open.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	if !strings.Contains(res.Stdout, "HF-CANARY") {
		t.Errorf("with reads open, the canary was not read either: the test shows nothing: %q %q", res.Stdout, res.Stderr)
	}
}

// The workspace's secret files are covered for every command that the
// recipe does not grant them to (paths.grant): a script or a test finds
// them empty, while vetting refuses naming them. One git tracks is the
// repository's, for anyone to read, and stays.
func TestWorkspaceSecretsAreHidden(t *testing.T) {
	needGit(t)
	if !sandbox.Probe().Namespaces {
		t.Skip("the workspace's secrets are covered in a mount namespace of the command's own, which this kernel does not give")
	}
	files := map[string]string{
		".env":                "ENV-CANARY",
		"deploy/prod.pem":     "PEM-CANARY",
		"app/.env.local":      "LOCAL-CANARY",
		".env.defaults":       "DEFAULTS-READ", // tracked
		"node_modules/p/.env": "PACKAGE-READ",  // a package's, not the project's
	}
	var script strings.Builder
	script.WriteString("#!/bin/sh\n")
	for f := range files {
		script.WriteString("cat " + f + " 2>/dev/null\n")
	}
	run := func(recipeText string) *runner.Result {
		r, dir := sandboxed(t, recipeText, map[string]string{"peek.sh": script.String()})
		for f, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), []byte(text+"\n"), 0o644)
		}
		for _, args := range [][]string{{"init", "-q"}, {"add", ".env.defaults"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "defaults"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		return r.Run(context.Background(), "./peek.sh", runner.RunOptions{})
	}
	res := run(`{ commands: [{ command: './peek.sh' }] }`)
	for _, canary := range []string{"ENV-CANARY", "PEM-CANARY", "LOCAL-CANARY"} {
		if strings.Contains(res.Stdout, canary) {
			t.Errorf("a script read a secret file of the workspace (%s): %q", canary, res.Stdout)
		}
	}
	for _, want := range []string{"DEFAULTS-READ", "PACKAGE-READ"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("%s missing: stdout %q stderr %q", want, res.Stdout, res.Stderr)
		}
	}
	// A command cannot make rein count .env as the repository's by
	// staging or committing a name: what HEAD holds must be its content,
	// which the command never read.
	t.Run("staged", func(t *testing.T) {
		r, dir := sandboxed(t, `{ commands: [{ command: './peek.sh' }] }`, map[string]string{"peek.sh": script.String()})
		for f, text := range files {
			os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
			os.WriteFile(filepath.Join(dir, f), []byte(text+"\n"), 0o644)
		}
		empty := "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391" // git's empty blob
		for _, args := range [][]string{{"init", "-q"}, {"hash-object", "-w", os.DevNull}, {"update-index", "--add", "--cacheinfo", "100644," + empty + ",.env"},
			{"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "names only"}} {
			cmd := exec.Command("git", args...)
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("git %v: %v\n%s", args, err, out)
			}
		}
		if res := r.Run(context.Background(), "./peek.sh", runner.RunOptions{}); strings.Contains(res.Stdout, "ENV-CANARY") {
			t.Errorf("a .env HEAD holds by name only was read: %q", res.Stdout)
		}
	})
	// Granted to the command, .env is there for it; the key is not.
	res = run(`{ commands: [{ command: './peek.sh' }], paths+: { grant: [{ path: '.env', commands: ['./peek.sh'] }] } }`)
	if !strings.Contains(res.Stdout, "ENV-CANARY") || strings.Contains(res.Stdout, "PEM-CANARY") {
		t.Errorf("with .env granted to ./peek.sh: stdout %q stderr %q", res.Stdout, res.Stderr)
	}
}

// A command may not leave behind what programs the person runs later read:
// the workspace's hidden files and folders (an .envrc direnv loads, a
// husky hook, a CI workflow, a tool's rc file), git's own files that git
// does not write as it works, and a recipe below the top. Existing ones are
// read-only to it (where it has namespaces); one it makes is moved aside
// after it. The ignore lists and caches of sandbox.hidden_write stay
// writable.
func TestWritesThatRunLaterAreTakenBack(t *testing.T) {
	needGit(t)
	script := "#!/bin/sh\n" +
		"echo planted >> .github/ci.yml && echo CHANGED-CI\n" +
		"echo planted >> .toolrc && echo CHANGED-RC\n" +
		"echo planted > .git/info/attributes && echo CHANGED-ATTR\n" +
		"echo '*.log' >> .gitignore && echo CHANGED-GITIGNORE\n" +
		"mkdir -p .husky && echo 'id > /tmp/x' > .husky/pre-commit && echo MADE-HUSKY\n" +
		"mkdir -p sub && echo x > sub/.envrc && echo MADE-ENVRC\n" +
		"echo '{}' > sub/rein.jsonnet && echo MADE-RECIPE\n" +
		"mkdir -p .pytest_cache && echo data > .pytest_cache/v && echo MADE-CACHE\n" +
		"mkdir -p .git/modules/evil && echo '[core]' > .git/modules/evil/config && echo MADE-MODULE\n" +
		"mkdir -p evil && echo 'gitdir: ../.git/modules/evil' > evil/.git && echo MADE-POINTER\n" +
		"mv notes.txt .toolrc2 && echo RENAMED\n" +
		"mkdir -p ..z && echo x > ..z/.envrc && echo MADE-DOTDOT\n" +
		"mkdir -p s1/.git && ln -s \"$(cat target)\" s1/.git/config && echo LINKED-CONFIG\n"
	r, dir := sandboxed(t, `{ commands: [{ command: './plant.sh' }], sandbox+: { mode: 'workspace-write' } }`, map[string]string{"plant.sh": script})
	outside := filepath.Join(t.TempDir(), "credentials")
	os.WriteFile(outside, []byte("[core]\n\tsecretkey = CONFIG-CANARY\n"), 0o600)
	for f, text := range map[string]string{".github/ci.yml": "on: push\n", ".toolrc": "ok\n", ".gitignore": "out/\n", "notes.txt": "n\n", "target": outside} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
		os.WriteFile(filepath.Join(dir, f), []byte(text), 0o644)
	}
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	os.MkdirAll(filepath.Join(dir, ".git", "info"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "info", "attributes"), nil, 0o644)
	time.Sleep(50 * time.Millisecond) // what the test made is older than the run

	res := r.Run(context.Background(), "./plant.sh", runner.RunOptions{})
	namespaces := sandbox.Probe().Namespaces
	for file, want := range map[string]string{".github/ci.yml": "on: push\n", ".toolrc": "ok\n", ".git/info/attributes": ""} {
		b, _ := os.ReadFile(filepath.Join(dir, file))
		if namespaces && string(b) != want {
			t.Errorf("%s changed: %q (stderr %q)", file, b, res.Stderr)
		}
	}
	made := []string{".husky", "sub/.envrc", "sub/rein.jsonnet", ".git/modules", "..z"}
	// A nested repository's config that is a link goes, unread.
	if _, err := os.Lstat(filepath.Join(dir, "s1", ".git", "config")); err == nil {
		t.Errorf("s1/.git/config, a link out of the workspace, is still there: %q", res.Stderr)
	}
	if strings.Contains(res.Stderr, "secretkey") || strings.Contains(res.Stderr, "CONFIG-CANARY") {
		t.Errorf("rein read the file a nested config links to: %q", res.Stderr)
	}
	if namespaces {
		// A rename is told from a change by what was there before,
		// which rein looks at where it mounts.
		made = append(made, ".toolrc2")
	}
	if _, err := os.Lstat(filepath.Join(dir, "evil", ".git")); err == nil {
		t.Errorf("evil/.git, which led to a repository the run made, is still there: %q", res.Stderr)
	}
	for _, made := range made {
		if _, err := os.Lstat(filepath.Join(dir, made)); err == nil {
			t.Errorf("%s is still there after the run: %q", made, res.Stderr)
		}
		if _, err := os.Lstat(filepath.Join(dir, made+".rejected")); err == nil {
			t.Errorf("%s was kept aside in the workspace, where a later command could move it back", made)
		}
		if !strings.Contains(res.Stderr, filepath.Join(dir, made)) {
			t.Errorf("the note does not name %s: %q", made, res.Stderr)
		}
		if !strings.Contains(res.Stderr, filepath.Join("rein", "rejected")) {
			t.Errorf("the note does not say where %s went: %q", made, res.Stderr)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); !strings.Contains(string(b), "*.log") {
		t.Errorf(".gitignore was not written: %q %q", b, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".pytest_cache", "v")); err != nil {
		t.Errorf("a cache of sandbox.hidden_write was taken: %v", err)
	}
	// Vetting refuses what it sees, naming the field that would allow it.
	d := r.Run(context.Background(), "echo x > .toolrc", runner.RunOptions{})
	if d.DeniedBy != "sandbox.hidden_write" {
		t.Errorf("a redirect into a hidden file: %+v", d)
	}
}

// netScript fetches the registry through the proxy, then another host
// through it, then that host by a socket of its own around the proxy, and
// talks to itself on its loopback.
const netScript = `#!/usr/bin/env python3
import socket, sys, urllib.request
reg, other = sys.argv[1], sys.argv[2]
for name, url in (("registry", reg), ("other", other)):
    try:
        print(urllib.request.urlopen(url, timeout=5).read().decode())
    except Exception as e:
        print(name, "REFUSED", e)
host, port = other.split("//")[1].rstrip("/").split(":")
try:
    s = socket.create_connection((host, int(port)), timeout=3)
    print("DIRECT", s.recv(100).decode())
except Exception as e:
    print("DIRECT-FAILED", e)
srv = socket.socket(); srv.bind(("127.0.0.1", 0)); srv.listen(1)
c = socket.create_connection(srv.getsockname(), timeout=3); a, _ = srv.accept(); a.send(b"LOOPBACK-OK"); print(c.recv(20).decode())
`

// The network is granted per command and per host: the command's only way
// out of its network namespace is rein's proxy, which lets through the
// hosts sandbox.hosts names and refuses the rest (a registry on 127.0.0.2
// stands in for the granted one, a server on 127.0.0.3 for any other); a
// socket of the command's own reaches nothing; its loopback works; a
// command the recipe grants nothing has no network at all.
func TestNetworkIsGrantedPerHost(t *testing.T) {
	if !sandbox.Probe().Namespaces {
		t.Skip("hosts are granted through a network namespace of the command's own, which this kernel does not give")
	}
	needPython(t)
	registry := httpServer(t, "127.0.0.2:0", "REGISTRY-OK")
	other := httpServer(t, "127.0.0.3:0", "OTHER-LEAK")
	granted := `{ commands: [{ command: './net.py' }], sandbox+: { mode: 'workspace-write', network: 'granted', hosts: [{ commands: ['./net.py *'], hosts: ['127.0.0.2:*'] }] } }`
	r, _ := sandboxed(t, granted, map[string]string{"net.py": netScript})
	res := r.Run(context.Background(), "./net.py http://"+registry+"/ http://"+other+"/", runner.RunOptions{})
	for _, want := range []string{"REGISTRY-OK", "other REFUSED", "DIRECT-FAILED", "LOOPBACK-OK"} {
		if !strings.Contains(res.Stdout, want) {
			t.Errorf("stdout lacks %s: %q (stderr %q)", want, res.Stdout, res.Stderr)
		}
	}
	if strings.Contains(res.Stdout, "OTHER-LEAK") {
		t.Errorf("a host not granted was reached: %q", res.Stdout)
	}
	if !strings.Contains(res.Stderr, "127.0.0.3") {
		t.Errorf("rein does not say which host it refused: %q", res.Stderr)
	}
	// Granted nothing, the same command reaches no host at all.
	none, _ := sandboxed(t, `{ commands: [{ command: './net.py' }], sandbox+: { mode: 'workspace-write', network: 'granted' } }`, map[string]string{"net.py": netScript})
	res = none.Run(context.Background(), "./net.py http://"+registry+"/ http://"+other+"/", runner.RunOptions{})
	if strings.Contains(res.Stdout, "REGISTRY-OK") || strings.Contains(res.Stdout, "OTHER-LEAK") || !strings.Contains(res.Stdout, "LOOPBACK-OK") {
		t.Errorf("without a grant: %q (stderr %q)", res.Stdout, res.Stderr)
	}
}

// httpServer answers every request with body until the test ends, and
// returns its address.
func httpServer(t *testing.T, addr, body string) string {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Skipf("cannot listen on %s: %v", addr, err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, body) })}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// flipScript swaps the link argv[1] between argv[2] and the path the file
// argv[3] holds (which vetting would refuse as an argument), as fast as it
// can, for argv[4] seconds.
const flipScript = `#!/usr/bin/env python3
import os, sys, time
link, good, bad = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
end = time.time() + float(sys.argv[4])
while time.time() < end:
    for to in (bad, good):
        os.symlink(to, ".flip")
        os.replace(".flip", link)
print("done")
`

// rein opens a redirect's file itself, outside the sandbox. A command that
// swaps the link it names between a file of the workspace and one outside,
// while the shell reads and appends through it, reaches only the file that
// was checked (the race round three of the red team won).
func TestRedirectsThroughASwappedLink(t *testing.T) {
	needPython(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("OUTSIDE-CANARY\n"), 0o644)
	r, dir := sandboxed(t, `(import 'rein.libsonnet').presets.dev + { commands+: [{ command: './flip.sh' }] }`, map[string]string{"flip.sh": flipScript})
	os.WriteFile(filepath.Join(dir, "good.txt"), []byte("good\n"), 0o644)
	os.Symlink("good.txt", filepath.Join(dir, "lnk"))
	os.WriteFile(filepath.Join(dir, "target"), []byte(filepath.Join(outside, "secret")), 0o644)
	res := r.Run(context.Background(), "./flip.sh lnk good.txt target 4 | { for i in $(seq 150); do cat < lnk; echo x >> lnk; done; }", runner.RunOptions{Timeout: 20 * time.Second})
	if strings.Contains(res.Stdout, "OUTSIDE-CANARY") {
		t.Errorf("a redirect read the file outside through the swapped link: %d times", strings.Count(res.Stdout, "OUTSIDE-CANARY"))
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "OUTSIDE-CANARY\n" {
		t.Errorf("a redirect wrote the file outside: %q", b)
	}
	// The loop ran: it read the workspace's file, or was refused the
	// other (which of the two, load decides).
	if !strings.Contains(res.Stdout, "good") && !strings.Contains(res.Stderr, "refused by rein") {
		t.Errorf("the loop never opened the link: %+v", res)
	}
}

func needPython(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
}

// The shell returns without waiting for a process substitution: what its
// program still does (making an .envrc again and again) is stopped, and
// ended, before rein looks at what the command left (red team round four
// left an .envrc that way, unseen).
func TestProcessSubstitutionEndsBeforeTheChecks(t *testing.T) {
	script := "#!/bin/sh\ntrap '' TERM\necho x > .envrc\necho a\nwhile :; do [ -e .envrc ] || echo x > .envrc; done\n"
	r, dir := sandboxed(t, `(import 'rein.libsonnet').presets.dev + { commands+: [{ command: './mk.sh' }] }`, map[string]string{"mk.sh": script})
	res := r.Run(context.Background(), "head -c1 < <(./mk.sh)", runner.RunOptions{})
	time.Sleep(time.Second) // what would still run, running
	if _, err := os.Lstat(filepath.Join(dir, ".envrc")); err == nil {
		t.Errorf(".envrc is there after the run: %+v", res)
	}
}

// rein's shell tests files and expands globs itself, outside the sandbox:
// they see only what the command may read, so [[ -f ~/x ]] and ~/*/* do
// not tell a command what the home folder holds; cd - goes only where cd
// may (red team round four).
func TestShellTestsAndGlobsStayInTheGrants(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.MkdirAll(filepath.Join(home, "private"), 0o700)
	os.WriteFile(filepath.Join(home, "private", "plans.txt"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(home, "notes.txt"), []byte("x"), 0o600)
	r, dir := newRunner(t, "readonly", nil)
	os.WriteFile(filepath.Join(dir, "here.txt"), []byte("x"), 0o644)
	res := r.Run(context.Background(), `[[ -f ~/notes.txt ]] && echo LEAK-EXISTS; [[ -r ~/notes.txt ]] && echo LEAK-READABLE; for f in ~/*/* ~/*; do echo "N:${f##*/}"; done; for f in *.txt; do echo "W:$f"; done`, runner.RunOptions{})
	for _, leak := range []string{"LEAK-EXISTS", "LEAK-READABLE", "N:plans.txt", "N:notes.txt", "N:private"} {
		if strings.Contains(res.Stdout, leak) {
			t.Errorf("the shell told a command about the home folder (%s): %q", leak, res.Stdout)
		}
	}
	if !strings.Contains(res.Stdout, "W:here.txt") {
		t.Errorf("a glob in the workspace: %q (stderr %q)", res.Stdout, res.Stderr)
	}
	if d := r.Run(context.Background(), "OLDPWD="+home+"; cd -; ls", runner.RunOptions{}); d.ExitCode == 0 || strings.Contains(d.Stdout, "notes.txt") {
		t.Errorf("cd - went to the home folder: %+v", d)
	}
}
