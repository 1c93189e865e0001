package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestMain lets tests run the test binary as rein itself
// (REIN_TEST_MAIN=1), for tests that need a real process to kill.
func TestMain(m *testing.M) {
	if os.Getenv("REIN_TEST_MAIN") == "1" || len(os.Args) > 2 && os.Args[1] == sandbox.HelperArg {
		main()
	}
	// The developer's home and git configuration never decide a test.
	cleanup := testenv.Isolate()
	// The tests' recipes are approved as a CI pipeline's are; trust_test.go
	// unsets CI to test the approval itself.
	os.Setenv("CI", "true")
	code := m.Run()
	if binary != "" {
		os.RemoveAll(filepath.Dir(binary)) // reinBinary's build
	}
	cleanup()
	os.Exit(code)
}

// testOwnedState are the state folders tests made for themselves
// (ownState): rein keeps them for the test's next calls.
var testOwnedState = map[string]bool{}

// ownState gives the test a state folder of its own, kept across its rein
// calls.
func ownState(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testOwnedState[dir] = true
	t.Setenv("XDG_STATE_HOME", dir)
	return dir
}

// rein runs the CLI in-process in a clean environment: no user recipe, a
// private compile cache, discovery starting in dir.
func rein(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("REIN_CACHE_DIR", t.TempDir())
	if !testOwnedState[os.Getenv("XDG_STATE_HOME")] {
		// Approvals: never the user's real state folder, wherever it is
		// (one under /tmp was written to); tests of them set their own.
		t.Setenv("XDG_STATE_HOME", t.TempDir())
	}
	if os.Getenv("REIN_DB") == "" || !strings.HasPrefix(os.Getenv("REIN_DB"), os.TempDir()) {
		t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	}
	var out, errb bytes.Buffer
	if dir != "" {
		args = append([]string{"--dir", dir}, args...)
	}
	code = run(args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return out.String(), errb.String(), code
}

func TestCheckExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"check", "git status"}, exitOK},
		{[]string{"check", "git status; rm -rf x"}, exitDeny},
		{[]string{"check", "--preset", "git", "git commit -m x"}, exitAsk},
		{[]string{"check", "--preset", "nope", "ls"}, exitUsage},
		{[]string{"check", "--bogus"}, exitUsage},
		{[]string{"check", "git", "log", "--", "-5"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			out, errOut, code := rein(t, dir, "", tt.args...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, out, errOut)
			}
		})
	}
}

func TestCheckText(t *testing.T) {
	out, _, code := rein(t, t.TempDir(), "", "check", "ls | xargs rm")
	if code != exitDeny {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{
		"deny  ls | xargs rm",
		"rule danger-rm: rm deletes files for good",
		"allow  ls",
		"(via xargs)",
		"allowed instead: git status",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCheckJSONGolden(t *testing.T) {
	dir := t.TempDir()
	for name, command := range map[string]string{
		"sequence":   "git status; rm -rf x",
		"xargs":      "ls | xargs rm",
		"devnull":    "echo hi > /dev/null",
		"substitute": "wc -l $(git ls-files '*.go')",
		"parse":      "echo 'unterminated",
	} {
		t.Run(name, func(t *testing.T) {
			out, _, _ := rein(t, dir, "", "check", "--json", command)
			var d map[string]any
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatalf("not JSON: %v\n%s", err, out)
			}
			golden := filepath.Join("testdata", "check", name+".json")
			if *update {
				if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/rein -update)", err)
			}
			if out != string(want) {
				t.Errorf("rein check --json %q differs from %s:\n%s", command, golden, out)
			}
		})
	}
}

func TestCheckStdin(t *testing.T) {
	input := "git status\n\nrm -rf x\ngit log | head\n"
	out, _, code := rein(t, t.TempDir(), input, "check", "--json")
	if code != exitDeny {
		t.Errorf("exit %d, want %d (strictest)", code, exitDeny)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("want one JSON line per command, got %d:\n%s", len(lines), out)
	}
	var verdicts []string
	for _, l := range lines {
		var d struct{ Verdict string }
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatal(err)
		}
		verdicts = append(verdicts, d.Verdict)
	}
	if strings.Join(verdicts, ",") != "allow,deny,allow" {
		t.Errorf("verdicts = %v", verdicts)
	}
	out, _, code = rein(t, t.TempDir(), "git status\n", "check")
	if code != exitOK || !strings.HasPrefix(out, "allow\tgit status\t") {
		t.Errorf("text bulk output %q exit %d", out, code)
	}
}

func TestTestCommand(t *testing.T) {
	dir := t.TempDir()
	out, _, code := rein(t, dir, "", "test")
	if code != exitOK || !strings.Contains(out, "preset readonly") || !strings.Contains(out, " passed, 0 failed\n") {
		t.Errorf("exit %d:\n%s", code, out)
	}

	failing := t.TempDir()
	os.WriteFile(filepath.Join(failing, "rein.jsonnet"), []byte(`
local rein = import 'rein.libsonnet';
rein.presets.readonly + { tests+: { allow+: ['git push'], deny+: ['git status'] } }`), 0o644)
	out, _, code = rein(t, failing, "", "test", "--no-presets")
	if code != exitDeny {
		t.Errorf("failing tests: exit %d, want %d", code, exitDeny)
	}
	for _, want := range []string{"FAIL  want allow got deny  git push", "rule programs.git.deny_subcommands: git push is denied", "FAIL  want deny  got allow git status", "2 failed"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCompileAndRecipeErrors(t *testing.T) {
	out, _, code := rein(t, t.TempDir(), "", "compile", "--preset", "go")
	if code != exitOK || !strings.Contains(out, `"go": {`) {
		t.Errorf("compile: exit %d", code)
	}
	broken := t.TempDir()
	os.WriteFile(filepath.Join(broken, "rein.jsonnet"), []byte("local rein = import 'rein.libsonnet';\n{\n  rules: [rein.rule('r', 'deny', 'x', each='cmd.nmae == \"rm\"')],\n}\n"), 0o644)
	_, errOut, code := rein(t, broken, "", "check", "ls")
	if code != exitUsage || !strings.Contains(errOut, "rein.jsonnet:3:") || !strings.Contains(errOut, `rule "r"`) {
		t.Errorf("broken rule: exit %d stderr %q", code, errOut)
	}
}

func TestHelpAndVersion(t *testing.T) {
	out, _, code := rein(t, "", "", "check", "--help")
	if code != exitOK || !strings.Contains(out, "Exit status: 0 allow, 1 deny, 3 ask") {
		t.Errorf("help: exit %d\n%s", code, out)
	}
	out, _, code = rein(t, "", "", "version")
	if code != exitOK || !strings.HasPrefix(out, "rein ") {
		t.Errorf("version: %q", out)
	}
	// rein alone and rein help print the help; rein help CMD the command's.
	for _, args := range [][]string{{}, {"help"}} {
		if out, errOut, code := rein(t, "", "", args...); code != exitOK || !strings.Contains(out, "Usage: rein") || !strings.Contains(out, "exec") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
	if out, _, code := rein(t, "", "", "help", "check"); code != exitOK || !strings.Contains(out, "Exit status: 0 allow") {
		t.Errorf("help check: exit %d\n%s", code, out)
	}
}

// Every recipe shown in the README and docs compiles and passes its own
// tests.
func TestReadmeRecipes(t *testing.T) {
	docs, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	var blocks []string
	for _, f := range append([]string{filepath.Join("..", "..", "README.md")}, docs...) {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks, strings.Split(string(text), "```jsonnet\n")[1:]...)
	}
	if len(blocks) < 2 {
		t.Fatalf("found %d jsonnet blocks in the README and docs", len(blocks))
	}
	for i, b := range blocks {
		recipe := b[:strings.Index(b, "```")]
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(recipe), 0o644); err != nil {
			t.Fatal(err)
		}
		out, errOut, code := rein(t, dir, "", "test", "--no-presets")
		if code != exitOK {
			t.Errorf("recipe %d of the README and docs: rein test exit %d\n%s%s", i+1, code, out, errOut)
		}
	}
}

func TestExec(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX commands")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hello\n"), 0o644)
	out, errOut, code := rein(t, dir, "", "exec", "cat README.md; echo oops >&2; false")
	if code != 1 || out != "hello\n" || errOut != "oops\n" {
		t.Errorf("exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, errOut, code = rein(t, dir, "", "exec", "git status; rm -rf x")
	if code != exitRefused || out != "" || !strings.Contains(errOut, "rule danger-rm") {
		t.Errorf("denied: exit %d stdout %q stderr %q", code, out, errOut)
	}
	out, _, code = rein(t, dir, "", "exec", "--dry-run", "cat README.md")
	if code != exitOK || !strings.Contains(out, "dry run: nothing was run") || strings.Contains(out, "hello") {
		t.Errorf("dry run: exit %d %q", code, out)
	}
	// A dry run of a denied or asked command says so and exits as a real run
	// would; it used to crash writing the audit record it has no database for.
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"exec", "--dry-run", "rm -rf x"}, exitRefused},
		{[]string{"exec", "--dry-run", "--json", "rm -rf x"}, exitRefused},
		{[]string{"--preset", "git", "exec", "--dry-run", "git commit -m x"}, exitConfirm},
	} {
		out, errOut, code := rein(t, dir, "", c.args...)
		if code != c.code || out+errOut == "" || strings.Contains(out+errOut, "panic") {
			t.Errorf("%v: exit %d stdout %q stderr %q", c.args, code, out, errOut)
		}
	}
	out, _, code = rein(t, dir, "", "exec", "--json", "cat README.md")
	var res struct {
		Stdout   string `json:"stdout"`
		ExitCode int    `json:"exit_code"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != exitOK || res.Stdout != "hello\n" {
		t.Errorf("json: exit %d %q %v", code, out, err)
	}
	// --json keeps to JSON when the command is refused before it runs, and
	// for a dry run (the decision, as rein check --json prints it).
	out, _, code = rein(t, dir, "", "exec", "--json", "cat .env")
	var denied struct {
		Error        string   `json:"error"`
		DeniedBy     string   `json:"denied_by"`
		Alternatives []string `json:"alternatives"`
	}
	if err := json.Unmarshal([]byte(out), &denied); err != nil || code != exitRefused || denied.DeniedBy != "paths.deny" ||
		!strings.Contains(out, "git show <rev>") {
		t.Errorf("json denial: exit %d %q %v", code, out, err)
	}
	out, _, code = rein(t, dir, "", "exec", "--json", "--dry-run", "cat README.md")
	var decision struct {
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(out), &decision); err != nil || code != exitOK || decision.Verdict != "allow" {
		t.Errorf("json dry run: exit %d %q %v", code, out, err)
	}
	// -- only ends rein's flags; one of rein's flags after a quoted command
	// is refused with the order to write.
	if out, errOut, code := rein(t, dir, "", "exec", "--", "cat README.md"); code != exitOK || out != "hello\n" {
		t.Errorf("exec --: exit %d %q %q", code, out, errOut)
	}
	if out, errOut, code := rein(t, dir, "", "exec", "cat README.md", "--json"); code != exitUsage || out != "" ||
		!strings.Contains(errOut, "--json comes after the command; put rein's flags first: rein exec --json 'cat README.md'") {
		t.Errorf("a flag after the command: exit %d %q %q", code, out, errOut)
	}
	if out, _, code := rein(t, dir, "", "exec", "cat", "README.md"); code != exitOK || out != "hello\n" {
		t.Errorf("unquoted words: exit %d %q", code, out)
	}
	if _, errOut, code := rein(t, dir, "", "exec", "--timeout", "1", "ls"); code != exitUsage || !strings.Contains(errOut, "did you mean 1s?") {
		t.Errorf("--timeout 1: exit %d %q", code, errOut)
	}
	_, errOut, code = rein(t, dir, "", "exec", "--timeout", "300ms", "sleep 5")
	if code != 124 || !strings.Contains(errOut, "timed out") {
		t.Errorf("timeout: exit %d %q", code, errOut)
	}
	_, errOut, code = rein(t, dir, "", "--preset", "git", "exec", "git commit -m x")
	if code != exitConfirm || !strings.Contains(errOut, "--yes") {
		t.Errorf("ask: exit %d %q", code, errOut)
	}
}

// The exact tool lists sent to providers, for a fixed recipe.
func TestToolsGolden(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "tools"))
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"openai", "anthropic"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := rein(t, dir, "", "tools", "--format", format)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			out = strings.ReplaceAll(out, dir, "$WORKSPACE")
			golden := filepath.Join("testdata", "tools", format+".json")
			if *update {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				os.WriteFile(golden, []byte(out), 0o644)
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/rein -update)", err)
			}
			if out != string(want) {
				t.Errorf("rein tools --format %s differs from %s:\n%s", format, golden, out)
			}
		})
	}
}

func TestRunTasks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX")
	}
	dir, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "tools"))
	out, _, code := rein(t, dir, "", "run")
	if code != exitOK || !strings.Contains(out, "greet (model tool)") || !strings.Contains(out, "--name") || !strings.Contains(out, "int (default 1)") {
		t.Errorf("list: %d\n%s", code, out)
	}
	out, errOut, code := rein(t, dir, "", "run", "greet", "--name", "x; rm -rf y")
	if code != exitOK || out != "hello x; rm -rf y\n" || !strings.Contains(errOut, "▶ greet:") {
		t.Errorf("run with --name: %d %q %q", code, out, errOut)
	}
	out, _, code = rein(t, dir, "", "run", "greet", "ann", "--times=2")
	if code != exitOK || out != "hello ann\n" {
		t.Errorf("positional: %d %q", code, out)
	}
	if _, errOut, code := rein(t, dir, "", "run", "greet", "--nope", "1"); code != exitUsage || !strings.Contains(errOut, "unknown parameter --nope") {
		t.Errorf("unknown parameter: %d %q", code, errOut)
	}
	if _, errOut, code := rein(t, dir, "", "run", "greet", "--times", "x", "bo"); code != exitUsage || !strings.Contains(errOut, "whole number") {
		t.Errorf("bad int: %d %q", code, errOut)
	}
	if _, errOut, code := rein(t, dir, "", "run", "deploy"); code != exitUsage || !strings.Contains(errOut, "the tasks are: greet, hidden, lint") {
		t.Errorf("unknown task: %d %q", code, errOut)
	}
	out, _, code = rein(t, dir, "", "check", "--task", "lint")
	if code != exitOK || !strings.Contains(out, "task lint") || !strings.Contains(out, "allow  ./scripts/lint.sh") {
		t.Errorf("check --task: %d\n%s", code, out)
	}
}

// A task that stops says where and why, after the step's own output.
func TestRunSaysWhichStepStopped(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{
  allow: ['echo *', 'false', 'sleep *'],
  tasks: {
    steps: { steps: ['echo one', 'false', 'echo three'] },
    slow: { run: 'sleep 5', timeout: '100ms' },
  },
}`), 0o644)
	out, errOut, code := rein(t, dir, "", "run", "steps")
	if code != 1 || out != "one\n" || !strings.Contains(errOut, "rein: task steps stopped at `false`: exit 1") {
		t.Errorf("failing step: %d %q %q", code, out, errOut)
	}
	_, errOut, code = rein(t, dir, "", "run", "slow")
	if code != 124 || !strings.Contains(errOut, "rein: task slow stopped at `sleep 5`\nrein: timed out after") {
		t.Errorf("timed out step: %d %q", code, errOut)
	}
}

func TestTestReportsTaskCycles(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ tasks: { a: { run: 'true', deps: ['b'] }, b: { run: 'true', deps: ['a'] } } }`), 0o644)
	out, _, code := rein(t, dir, "", "test", "--no-presets")
	if code != exitDeny || !strings.Contains(out, "FAIL tasks: task dependencies form a cycle: a → b → a") {
		t.Errorf("exit %d\n%s", code, out)
	}
}

// The parser is built with only the command named in the arguments; help,
// usage errors and suggestions must read exactly as with every command.
func TestNarrowParserSameAsFull(t *testing.T) {
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	cases := [][]string{
		{"--help"}, {}, {"nosuch"}, {"chek", "ls"}, {"--preset", "readonly", "chek", "ls"},
		{"exec", "--help"}, {"check", "--help"}, {"--preset", "readonly", "check", "--bogus", "ls"},
		{"--preset=readonly", "check", "--json", "git status"}, {"--db", "x.db", "version"},
		{"run", "--help"}, {"version", "extra"}, {"check"}, {"--", "check"}, {"-h", "exec"}, {"--help", "mcp"},
	}
	for _, args := range cases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			var narrowOut, narrowErr, fullOut, fullErr bytes.Buffer
			narrow := run(args, &env{stdin: strings.NewReader(""), stdout: &narrowOut, stderr: &narrowErr})
			full := runWith(args, &env{stdin: strings.NewReader(""), stdout: &fullOut, stderr: &fullErr}, commands)
			if narrow != full || narrowOut.String() != fullOut.String() || narrowErr.String() != fullErr.String() {
				t.Errorf("narrow parser: exit %d\n%s%s\nfull parser: exit %d\n%s%s", narrow, narrowOut.String(), narrowErr.String(), full, fullOut.String(), fullErr.String())
			}
		})
	}
	if got := selectCommands([]string{"--recipe", "exec", "check", "ls"}); len(got) != 1 || got[0].name != "check" {
		t.Errorf("a global flag's value was taken for the command: %v", got)
	}
}

// A broken rule is a recipe error on every run, also once the compile cache
// is warm, and also when no command reaches the rule.
func TestBrokenRuleEveryRun(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte("local rein = import 'rein.libsonnet';\n{\n  rules: [rein.rule('r', 'deny', 'x', each='cmd.name == \"rm\" && cmd.nmae == \"x\"')],\n}\n"), 0o644)
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("REIN_CACHE_DIR", t.TempDir())
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	for i := 0; i < 3; i++ {
		var out, errb bytes.Buffer
		code := run([]string{"--dir", dir, "check", "ls"}, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
		if code != exitUsage || !strings.Contains(errb.String(), `rule "r"`) {
			t.Fatalf("run %d: exit %d stderr %q", i, code, errb.String())
		}
	}
}

// A command starts where the person is, when that is inside the workspace
// (rein exec in src/ lists src), and its relative paths are vetted from
// there.
func TestExecStartsWhereThePersonIs(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX commands")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`(import 'rein.libsonnet').presets.readonly`), 0o644)
	sub := filepath.Join(dir, "sub")
	os.MkdirAll(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "x.txt"), []byte("in sub\n"), 0o644)
	os.WriteFile(filepath.Join(sub, ".env"), []byte("S=1\n"), 0o644)
	if out, errOut, code := rein(t, sub, "", "exec", "cat x.txt"); code != exitOK || out != "in sub\n" {
		t.Errorf("exec in a sub-folder: exit %d %q %q", code, out, errOut)
	}
	if out, errOut, code := rein(t, sub, "", "exec", "pwd"); code != exitOK || out != sub+"\n" {
		t.Errorf("pwd: exit %d %q %q", code, out, errOut)
	}
	if _, errOut, code := rein(t, sub, "", "exec", "cat ../sub/.env"); code != exitRefused || !strings.Contains(errOut, "paths.deny") {
		t.Errorf("a secret from a sub-folder: exit %d %q", code, errOut)
	}
	if out, _, code := rein(t, sub, "", "exec", "--cwd", ".", "cat sub/x.txt"); code != exitOK || out != "in sub\n" {
		t.Errorf("--cwd . is the workspace: exit %d %q", code, out)
	}
}

// rein compile --summary is one screen: sources, what it allows, and every
// grant beyond readonly.
func TestCompileSummary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`(import 'rein.libsonnet').presets.go + { programs+: { bash: {} } }`), 0o644)
	out, errOut, code := rein(t, dir, "", "compile", "--summary")
	for _, want := range []string{"recipe:     " + filepath.Join(dir, "rein.jsonnet"), "allows:", "programs:", "beyond readonly:", "+ programs that run any code: bash", "+ network for go mod download*"} {
		if code != exitOK || !strings.Contains(out, want) {
			t.Errorf("exit %d, lacks %q:\n%s%s", code, want, out, errOut)
		}
	}
	if n := strings.Count(out, "\n"); n > 24 {
		t.Errorf("%d lines", n)
	}
}

// The README's quickstart works as written in a fresh Go repository: each
// rein line (but ask, which needs a key) runs with the exit status the
// README gives it.
func TestReadmeQuickstart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX commands")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## Quickstart\n\n```sh\n")
	if !ok {
		t.Fatal("the README has no quickstart")
	}
	section, _, _ = strings.Cut(section, "```")
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/q\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"-c", "user.name=q", "-c", "user.email=q@example.com", "commit", "-qm", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	ran := 0
	for _, line := range strings.Split(strings.TrimSpace(section), "\n") {
		line, _, _ = strings.Cut(line, "   #")
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "rein ") || strings.HasPrefix(line, "rein ask") {
			continue
		}
		args, err := shellWords(strings.TrimPrefix(line, "rein "))
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		out, errOut, code := rein(t, dir, "", args...)
		want := exitOK
		if args[0] == "check" {
			want = exitDeny // the README says so
		}
		if code != want {
			t.Errorf("%s: exit %d, want %d\n%s%s", line, code, want, out, errOut)
		}
		if args[0] == "exec" && !strings.Contains(out, "first") {
			t.Errorf("%s printed %q", line, out)
		}
		ran++
	}
	if ran != 3 {
		t.Errorf("ran %d quickstart lines, want init, check and exec", ran)
	}
}

// shellWords splits a README line as the shell would (single quotes only).
func shellWords(s string) ([]string, error) {
	var out []string
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		if s[0] == '\'' {
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unclosed quote")
			}
			out = append(out, s[1:end+1])
			s = s[end+2:]
			continue
		}
		word, rest, _ := strings.Cut(s, " ")
		out, s = append(out, word), rest
	}
	return out, nil
}

// Bulk check answers each line as it comes when its input arrives a line
// at a time (a program talking to it), though it writes in batches.
func TestBulkCheckAnswersEachLineAtOnce(t *testing.T) {
	in, feed := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"--preset", "readonly", "check", "--json"}, &env{stdin: in, stdout: outW, stderr: io.Discard})
		outW.Close()
	}()
	answers := bufio.NewReader(outR)
	for _, cmd := range []string{"git status", "rm -rf x"} {
		fmt.Fprintln(feed, cmd)
		line, err := answers.ReadString('\n')
		if err != nil || !strings.Contains(line, `"command":"`+cmd+`"`) {
			t.Fatalf("%s: %q %v", cmd, line, err)
		}
	}
	feed.Close()
	if code := <-done; code != exitDeny {
		t.Errorf("exit %d", code)
	}
}
