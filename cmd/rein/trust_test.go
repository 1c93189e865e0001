package main

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// untrustedRepo is a repository whose recipe allows touch and has a task,
// with approvals kept in a fresh file and CI unset, as on a person's
// machine.
func untrustedRepo(t *testing.T) string {
	t.Helper()
	t.Setenv("CI", "")
	ownState(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "base.libsonnet"), []byte(`{ allow: ['touch *'] }`), 0o644)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`(import 'base.libsonnet') + { tasks: { make: { run: 'touch from-task' } } }`), 0o644)
	return dir
}

// A repository recipe nobody approved runs nothing: a cloned project's
// rein.jsonnet could allow anything and turn the sandbox off. What runs
// nothing (check, a dry run, listing tasks) needs no approval, nor does a
// preset.
func TestUnapprovedRecipeRunsNothing(t *testing.T) {
	dir := untrustedRepo(t)
	for _, args := range [][]string{{"exec", "touch made"}, {"run", "make"}} {
		_, stderr, code := rein(t, dir, "", args...)
		if code != exitUsage || !strings.Contains(stderr, "rein.jsonnet is not approved: rein has not seen it on this machine") || !strings.Contains(stderr, "run rein trust") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	for _, f := range []string{"made", "from-task"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was made under an unapproved recipe", f)
		}
	}
	if out, _, _ := rein(t, dir, "", "doctor"); !strings.Contains(out, "approved:    no, new") {
		t.Errorf("doctor does not say the recipe is not approved:\n%s", out)
	}
	for _, args := range [][]string{{"check", "touch made"}, {"exec", "--dry-run", "touch made"}, {"run"}, {"--preset", "readonly", "exec", "ls"}} {
		if _, stderr, code := rein(t, dir, "", args...); code != exitOK {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// rein trust approves the recipe as it is; a change to it, or to a file it
// imports, needs a new approval.
func TestApprovalCoversTheRecipeAndItsImports(t *testing.T) {
	dir := untrustedRepo(t)
	out, stderr, code := rein(t, dir, "", "trust")
	if code != exitOK || !strings.Contains(out, "approved "+filepath.Join(dir, "rein.jsonnet")+" as it is now (2 files)") || !strings.Contains(out, "1 allow rule, 1 task") {
		t.Fatalf("trust: %d %q %q", code, out, stderr)
	}
	if _, stderr, code := rein(t, dir, "", "exec", "touch made"); code != exitOK {
		t.Fatalf("approved: exit %d, stderr %q", code, stderr)
	}
	for _, change := range []struct{ file, text string }{
		{"rein.jsonnet", `(import 'base.libsonnet') + { tasks: { make: { run: 'touch from-task' } }, sandbox: { mode: 'off' } }`},
		{"base.libsonnet", `{ allow: ['*'] }`},
	} {
		rein(t, dir, "", "trust")
		os.WriteFile(filepath.Join(dir, change.file), []byte(change.text), 0o644)
		if _, stderr, code := rein(t, dir, "", "exec", "touch again"); code != exitUsage || !strings.Contains(stderr, "changed since it was approved") {
			t.Errorf("after changing %s: exit %d, stderr %q", change.file, code, stderr)
		}
	}

	out, _, _ = rein(t, dir, "", "trust", "--list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || list[0]["recipe"] != filepath.Join(dir, "rein.jsonnet") {
		t.Errorf("trust --list --json: %v %q", err, out)
	}
	if out, _, code := rein(t, dir, "", "trust", "--forget"); code != exitOK || !strings.Contains(out, "withdrew") {
		t.Errorf("trust --forget: %d %q", code, out)
	}
	if out, _, _ := rein(t, dir, "", "trust", "--list"); !strings.Contains(out, "no approved recipes") {
		t.Errorf("after forgetting: %q", out)
	}
}

// In a terminal rein asks; only yes approves (and runs).
func TestApprovalAskedOnTheTerminal(t *testing.T) {
	dir := untrustedRepo(t)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("REIN_CACHE_DIR", t.TempDir())
	terminal := func(answer string, args ...string) (string, int) {
		var out, errb bytes.Buffer
		code := run(append([]string{"--dir", dir}, args...), &env{stdin: strings.NewReader(answer), stdinTerminal: true, stdout: &out, stderr: &errb})
		return errb.String(), code
	}
	stderr, code := terminal("n\n", "exec", "touch no")
	if code != exitUsage || !strings.Contains(stderr, "Approve it as it is now? [y/N]") || !strings.Contains(stderr, "not approved; nothing was run") {
		t.Errorf("no: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "no")); err == nil {
		t.Error("ran after no")
	}
	if stderr, code := terminal("y\n", "exec", "touch yes"); code != exitOK {
		t.Errorf("yes: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "yes")); err != nil {
		t.Error("did not run after yes")
	}
	if stderr, code := terminal("", "exec", "touch again"); code != exitOK || strings.Contains(stderr, "Approve") {
		t.Errorf("approved once: exit %d, stderr %q", code, stderr)
	}
}

// A recipe a command writes into a subfolder is new: rein run from there
// does not take it.
func TestRecipeWrittenIntoASubfolderIsNotApproved(t *testing.T) {
	dir := untrustedRepo(t)
	rein(t, dir, "", "trust")
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "rein.jsonnet"), []byte(`{ allow: ['*'], sandbox: { mode: 'off' } }`), 0o644)
	if _, stderr, code := rein(t, sub, "", "exec", "touch x"); code != exitUsage || !strings.Contains(stderr, filepath.Join(sub, "rein.jsonnet")+" is not approved") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// A damaged approvals file approves nothing, and says which file it is.
func TestDamagedApprovalsRefuse(t *testing.T) {
	dir := untrustedRepo(t)
	os.MkdirAll(filepath.Join(os.Getenv("XDG_STATE_HOME"), "rein"), 0o700)
	os.WriteFile(filepath.Join(os.Getenv("XDG_STATE_HOME"), "rein", "trusted.json"), []byte("{not json"), 0o600)
	if _, stderr, code := rein(t, dir, "", "exec", "touch x"); code == exitOK || !strings.Contains(stderr, "trusted.json are not valid JSON") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// rein init writes a recipe at the person's request: it is approved as
// written.
func TestInitApprovesItsRecipe(t *testing.T) {
	t.Setenv("CI", "")
	ownState(t)
	dir := t.TempDir()
	if _, stderr, code := rein(t, dir, "", "init"); code != exitOK {
		t.Fatalf("init: %d %q", code, stderr)
	}
	if _, stderr, code := rein(t, dir, "", "exec", "ls"); code != exitOK {
		t.Errorf("exec after init: exit %d, stderr %q", code, stderr)
	}
}

// rein trust approves the repository recipe only, and a hand-edited
// approvals file does not crash the listing.
func TestTrustEdges(t *testing.T) {
	dir := untrustedRepo(t)
	if _, stderr, code := rein(t, dir, "", "--preset", "readonly", "trust"); code != exitUsage || !strings.Contains(stderr, "leave --preset out") {
		t.Errorf("trust --preset: %d %q", code, stderr)
	}
	if _, stderr, code := rein(t, t.TempDir(), "", "trust"); code != exitUsage || !strings.Contains(stderr, "nothing to approve") {
		t.Errorf("trust without a recipe: %d %q", code, stderr)
	}
	state := filepath.Join(os.Getenv("XDG_STATE_HOME"), "rein")
	os.MkdirAll(state, 0o700)
	recipePath := filepath.Join(dir, "rein.jsonnet")
	os.WriteFile(filepath.Join(state, "trusted.json"), []byte(`[{"recipe": "`+recipePath+`", "fingerprint": "ab"}, {"recipe": "/gone/rein.jsonnet", "fingerprint": "cd"}]`), 0o600)
	out, stderr, code := rein(t, dir, "", "trust", "--list")
	if code != exitOK || !strings.Contains(out, recipePath) || strings.Contains(out, "/gone/") || !strings.Contains(stderr, "dropped the approvals of /gone/rein.jsonnet") {
		t.Errorf("list: %d %q %q", code, out, stderr)
	}
}

// Where approvals cannot be kept, nothing is approved and the person is
// told why; rein init still writes its recipe and says to approve it.
func TestApprovalsThatCannotBeKept(t *testing.T) {
	dir := untrustedRepo(t)
	blocked := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(blocked, nil, 0o600)
	t.Setenv("XDG_STATE_HOME", blocked) // its rein folder cannot be made
	testOwnedState[blocked] = true
	if _, stderr, code := rein(t, dir, "", "trust"); code == exitOK || !strings.Contains(stderr, "cannot read the trusted recipes in "+filepath.Join(blocked, "rein", "trusted.json")) {
		t.Errorf("trust: exit %d, stderr %q", code, stderr)
	}
	fresh := t.TempDir()
	if _, stderr, code := rein(t, fresh, "", "init"); code != exitOK || !strings.Contains(stderr, "run rein trust before rein exec, run or ask") {
		t.Errorf("init: exit %d, stderr %q", code, stderr)
	}

	// No home folder and no XDG_STATE_HOME: no state folder at all.
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	var out, errb bytes.Buffer
	code := run([]string{"--dir", dir, "trust", "--list"}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	if code == exitOK || !strings.Contains(errb.String(), "no state folder to keep approved recipes in") {
		t.Errorf("no state folder: exit %d, stderr %q", code, errb.String())
	}
}

// The scripts a recipe runs by path are part of what is approved: a pull
// that changes scripts/lint.sh changes what the recipe runs.
func TestApprovalCoversTheScriptsItRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a shell script")
	}
	dir := untrustedRepo(t)
	os.MkdirAll(filepath.Join(dir, "scripts"), 0o755)
	os.WriteFile(filepath.Join(dir, "scripts", "lint.sh"), []byte("#!/bin/sh\necho lint ok\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ commands: [{ command: './scripts/lint.sh' }] }`), 0o644)
	if out, stderr, code := rein(t, dir, "", "trust"); code != exitOK || !strings.Contains(out, "(2 files)") {
		t.Fatalf("trust: %d %q %q", code, out, stderr)
	}
	if out, stderr, code := rein(t, dir, "", "exec", "./scripts/lint.sh"); code != exitOK || out != "lint ok\n" {
		t.Fatalf("approved: exit %d %q %q", code, out, stderr)
	}
	os.WriteFile(filepath.Join(dir, "scripts", "lint.sh"), []byte("#!/bin/sh\necho changed\n"), 0o755)
	if out, stderr, code := rein(t, dir, "", "exec", "./scripts/lint.sh"); code != exitUsage || !strings.Contains(stderr, "changed since it was approved") {
		t.Errorf("after changing the script: exit %d %q %q", code, out, stderr)
	}
}

// What a recipe grants beyond readonly is listed where it is approved: not
// the same line for readonly and for a recipe that allows sh, an allow
// rule, Docker's socket, a write grant on ~/.local/bin and another model
// endpoint.
func TestApprovalListsWhatTheRecipeWidens(t *testing.T) {
	dir := untrustedRepo(t)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet';
rein.presets.readonly + {
  programs+: { sh: rein.program('shell') },
  rules+: [rein.rule('anything', 'allow', 'x', each='true')],
  sandbox+: { mode: 'workspace-write', sockets: ['/var/run/docker.sock'], write: ['~/.local/bin'] },
  provider+: { base_url: 'http://127.0.0.1:9/v1' },
}`), 0o644)
	out, stderr, code := rein(t, dir, "", "trust")
	for _, want := range []string{"+ programs that run any code: sh", "+ rule anything allows: true", "+ local services commands may reach: /var/run/docker.sock",
		"+ writable outside the workspace: ~/.local/bin", "+ model endpoint: http://127.0.0.1:9/v1"} {
		if !strings.Contains(out, want) {
			t.Errorf("trust does not say %q:\n%s%s (exit %d)", want, out, stderr, code)
		}
	}
	plain := untrustedRepo(t)
	os.WriteFile(filepath.Join(plain, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly`), 0o644)
	if out, _, _ := rein(t, plain, "", "trust"); strings.Contains(out, "+ ") {
		t.Errorf("readonly widens nothing:\n%s", out)
	}
}

// rein mcp on a repository whose recipe is not approved starts, and
// answers every call with why and what to do (clients only said
// "Connection closed"); nothing runs.
func TestMCPOnAnUnapprovedRecipe(t *testing.T) {
	dir := untrustedRepo(t)
	cmd := exec.Command(os.Args[0], "--dir", dir, "mcp")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "CI=", "XDG_STATE_HOME="+os.Getenv("XDG_STATE_HOME"),
		"REIN_DB="+filepath.Join(t.TempDir(), "rein.db"), "REIN_CACHE_DIR="+t.TempDir(), "XDG_CONFIG_HOME="+t.TempDir())
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "run_command", Arguments: map[string]any{"command": "touch made", "reason": "x"}})
	if err != nil {
		t.Fatal(err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !res.IsError || !strings.Contains(text, "is not approved") || !strings.Contains(text, "run rein trust in "+dir) {
		t.Errorf("%v %q", res.IsError, text)
	}
	if _, err := os.Stat(filepath.Join(dir, "made")); err == nil {
		t.Error("a command ran under an unapproved recipe")
	}
}

// The prompt for a changed recipe shows what changed since it was
// approved, not the same summary as the first time.
func TestChangedRecipeShowsTheDifference(t *testing.T) {
	dir := untrustedRepo(t)
	if _, stderr, code := rein(t, dir, "", "trust"); code != exitOK {
		t.Fatalf("trust: %q", stderr)
	}
	os.WriteFile(filepath.Join(dir, "base.libsonnet"), []byte("{ allow: ['touch *', 'curl *'] }"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"--dir", dir, "exec", "touch x"}, &env{stdin: strings.NewReader("n\n"), stdinTerminal: true, stdout: &out, stderr: &errb})
	for _, want := range []string{"changed since approved: " + filepath.Join(dir, "base.libsonnet"), "- { allow: ['touch *'] }", "+ { allow: ['touch *', 'curl *'] }"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("exit %d, the prompt lacks %q:\n%s", code, want, errb.String())
		}
	}
}
