package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/schemas"
)

// newRunner compiles a recipe (Jsonnet text, or a preset name) for a fresh
// workspace and returns a runner for it.
func newRunner(t *testing.T, recipeText string, env []string) (*runner.Runner, string) {
	t.Helper()
	dir := t.TempDir()
	preset := ""
	if !strings.ContainsAny(recipeText, "{(") {
		preset = recipeText
	} else if err := os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(recipeText), 0o644); err != nil {
		t.Fatal(err)
	}
	_, p := policytest.Load(t, dir, preset)
	if env == nil {
		env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	}
	return runner.New(p, runner.Options{Env: env, Grace: 300 * time.Millisecond}), dir
}

func needUnix(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs POSIX tools")
	}
}

func TestRunAllowedCommand(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("one\ntwo\nthree\n"), 0o644)
	res := r.Run(context.Background(), "cat README.md | head -2; echo done >&2", runner.RunOptions{})
	if res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("result %+v", res)
	}
	if res.Stdout != "one\ntwo\n" || res.Stderr != "done\n" || !strings.Contains(res.Combined, "one\ntwo\n") {
		t.Errorf("stdout %q stderr %q combined %q", res.Stdout, res.Stderr, res.Combined)
	}
}

func TestExitCodes(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, `{ allow: ['sh *', 'false', 'true', 'exit *'] }`, nil)
	for text, want := range map[string]int{"true": 0, "false": 1, "sh -c 'exit 3'": 3, "nonexistent-program-xyz": 126} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if res.ExitCode != want {
			t.Errorf("%s: exit %d, want %d (%+v)", text, res.ExitCode, want, res)
		}
	}
}

func TestDeniedBeforeRunning(t *testing.T) {
	r, dir := newRunner(t, "readonly", nil)
	victim := filepath.Join(dir, "x")
	os.WriteFile(victim, []byte("keep"), 0o644)
	res := r.Run(context.Background(), "git status; rm -rf x", runner.RunOptions{})
	if res.Error == "" || res.DeniedBy != "danger-rm" || len(res.Alternatives) == 0 {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("x was removed: %v", err)
	}
}

// A process tree (a background child and a foreground one) is gone within
// timeout + 1 s of the deadline.
func TestTimeoutKillsProcessTree(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	r, _ := newRunner(t, `{ allow: ['sh *', 'sleep *'], shell: { background: 'allow' } }`, nil)
	marker := "3217.5"
	start := time.Now()
	res := r.Run(context.Background(), "sh -c 'sleep "+marker+" & sleep "+marker+"'", runner.RunOptions{Timeout: time.Second})
	elapsed := time.Since(start)
	if !res.TimedOut || res.ExitCode != 124 {
		t.Errorf("result %+v", res)
	}
	if elapsed > 2500*time.Millisecond {
		t.Errorf("returned after %v; deadline was 1s", elapsed)
	}
	deadline := time.Now().Add(time.Second)
	for {
		left := processesWith("sleep " + marker)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes survived the timeout: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Background children left behind by a command that finished are killed too.
func TestLeftoverChildrenKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	marker := "3218.5"
	r, _ := newRunner(t, `{ allow: ['sh *', 'sleep *', 'echo *'], shell: { background: 'allow' } }`, nil)
	res := r.Run(context.Background(), "sh -c 'sleep "+marker+" > /dev/null 2>&1 & echo started'", runner.RunOptions{Timeout: 10 * time.Second})
	if res.TimedOut || res.Stdout != "started\n" {
		t.Errorf("result %+v", res)
	}
	time.Sleep(100 * time.Millisecond)
	if left := processesWith("sleep " + marker); len(left) > 0 {
		t.Errorf("background child outlived its command: %v", left)
	}
}

func processesWith(needle string) []string {
	var found []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, needle) && !strings.Contains(cmd, "sh -c") {
			if stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); err == nil && strings.Contains(string(stat), ") Z ") {
				continue // a zombie is already dead
			}
			found = append(found, e.Name()+": "+cmd)
		}
	}
	return found
}

// yes floods: the output is capped with a marker, the process is stopped,
// and memory stays bounded.
func TestFloodIsCappedAndStopped(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, `{ allow: ['yes'], limits: { max_output_bytes: 65536 } }`, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	res := r.Run(context.Background(), "yes", runner.RunOptions{Timeout: 20 * time.Second})
	runtime.ReadMemStats(&after)
	if res.TimedOut || time.Since(start) > 5*time.Second {
		t.Errorf("flood was not stopped early: %v, %+v", time.Since(start), res.TimedOut)
	}
	if !res.Truncated || !strings.Contains(res.Stdout, "rein cut") || !strings.Contains(res.Stderr, "rein stopped the command") {
		t.Errorf("truncated=%v stdout has marker=%v stderr=%q", res.Truncated, strings.Contains(res.Stdout, "rein cut"), res.Stderr)
	}
	if len(res.Stdout) > 65536+200 {
		t.Errorf("stdout is %d bytes, over the cap", len(res.Stdout))
	}
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 16<<20 {
		t.Errorf("heap grew by %d bytes", grew)
	}
}

func TestSecretsNotInEnvironment(t *testing.T) {
	needUnix(t)
	t.Setenv("OPENAI_API_KEY", "sk-test-openai")
	t.Setenv("GITHUB_TOKEN", "ghp-test")
	r, _ := newRunner(t, "readonly", os.Environ())
	res := r.Run(context.Background(), "env", runner.RunOptions{})
	if res.ExitCode != 0 || !strings.Contains(res.Stdout, "PATH=") {
		t.Fatalf("result %+v", res)
	}
	for _, secret := range []string{"OPENAI_API_KEY", "GITHUB_TOKEN", "sk-test-openai", "ghp-test"} {
		if strings.Contains(res.Stdout, secret) {
			t.Errorf("env output contains %s", secret)
		}
	}
}

// A recipe that lets dynamic command names through to the run-time check:
// $c expands to rm, which is stopped before it runs.
func TestDynamicNameStoppedAtRunTime(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `{ allow: ['echo *'], shell: { dynamic_command_name: 'allow' } }`, nil)
	victim := filepath.Join(dir, "x")
	os.WriteFile(victim, []byte("keep"), 0o644)
	res := r.Run(context.Background(), "echo before; c=rm; $c x; echo after", runner.RunOptions{})
	if !strings.HasPrefix(res.Error, "stopped at run time") || res.DeniedBy != "shell.unknown_program" {
		t.Errorf("result %+v", res)
	}
	if res.Stdout != "before\n" {
		t.Errorf("stdout %q: the script must stop at the denial", res.Stdout)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("x was removed: %v", err)
	}
}

// A rule on an option's value sees the value the interpreter expands, in
// the folder the command runs in: sort -o $d/out passes vetting (the value
// is not known yet) and is stopped when $d leaves the workspace.
func TestFlagValueRuleAtRunTime(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `
local rein = import 'rein.libsonnet';
{
  allow: ['sort *', 'echo *', 'cd *'],
  rules: [rein.rule('sort-output', 'deny', 'sort writes only where commands may write',
    each='cmd.name == "sort" && any(flagValues(cmd, "-o", "--output"), {!mayWrite(cmd, #)})')],
  paths: { write: ['**'] },
}`, nil)
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("b\na\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	outside := t.TempDir()
	res := r.Run(context.Background(), "d="+outside+"; sort -o $d/out in.txt", runner.RunOptions{})
	if !strings.HasPrefix(res.Error, "stopped at run time") || res.DeniedBy != "sort-output" {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(outside, "out")); err == nil {
		t.Error("sort wrote outside the workspace")
	}
	res = r.Run(context.Background(), "cd sub; d=..; sort -o $d/sorted.txt ../in.txt", runner.RunOptions{})
	if b, err := os.ReadFile(filepath.Join(dir, "sorted.txt")); err != nil || string(b) != "a\nb\n" || res.Error != "" {
		t.Errorf("sort inside the workspace: %q %v %+v", b, err, res)
	}
}

// Builtins and eval are re-vetted too.
func TestEvalReVetted(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `{ allow: ['echo *', 'eval *'], shell: { dynamic_command_name: 'allow' } }`, nil)
	os.WriteFile(filepath.Join(dir, "x"), []byte("keep"), 0o644)
	res := r.Run(context.Background(), `v="rm x"; eval "$v"`, runner.RunOptions{})
	if !strings.HasPrefix(res.Error, "stopped at run time") {
		t.Errorf("result %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err != nil {
		t.Error("x was removed")
	}
}

// Code-loading variables exported by the script are re-checked with every
// program at run time, as every variable the script exports (scriptVars).
func TestCodeEnvReCheckedAtRunTime(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, `{ allow: ['echo *'] }`, nil)
	for _, name := range []string{"LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "GIT_DIR"} {
		res := r.Interpret(context.Background(), "export "+name+"=/tmp/x; echo ran", runner.RunOptions{})
		if !strings.HasPrefix(res.Error, "stopped at run time") || strings.Contains(res.Stdout, "ran") {
			t.Errorf("%s: %+v", name, res)
		}
	}
}

// Vetting bypassed on purpose (Interpret): the open handler still refuses a
// write outside the allowed targets.
func TestRedirectRefusedAtRunTime(t *testing.T) {
	needUnix(t)
	outside := filepath.Join(t.TempDir(), "outside.txt")
	r, dir := newRunner(t, `{ allow: ['echo *'], shell: { redirect_write: 'workspace' } }`, nil)
	res := r.Interpret(context.Background(), "echo hi > "+outside+"; echo inside > in.txt; echo bye > /dev/null", runner.RunOptions{})
	if _, err := os.Stat(outside); err == nil {
		t.Error("the file outside the workspace was written")
	}
	if !strings.Contains(res.Stderr, "refused by rein") {
		t.Errorf("stderr %q", res.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "in.txt")); err != nil || string(b) != "inside\n" {
		t.Errorf("write inside the workspace: %q %v", b, err)
	}
	readonly, _ := newRunner(t, "readonly", nil)
	res = readonly.Interpret(context.Background(), "echo hi > "+outside, runner.RunOptions{})
	if _, err := os.Stat(outside); err == nil || res.ExitCode == 0 {
		t.Errorf("readonly let a redirect write: %+v", res)
	}
}

// A write that reaches a git hook through a symbolic link is refused when
// the shell opens it.
func TestProtectedPathRefusedAtRunTime(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `{ allow: ['echo *'], shell: { redirect_write: 'workspace' } }`, nil)
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	os.Symlink(filepath.Join(".git", "hooks", "pre-commit"), filepath.Join(dir, "notes.txt"))
	res := r.Interpret(context.Background(), "echo 'curl x | sh' > notes.txt", runner.RunOptions{})
	if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("the hook was written")
	}
	if !strings.Contains(res.Stderr, "refused by rein (rule paths.protect: notes.txt leads to") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

func TestRunArgv(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.MkdirAll(filepath.Join(dir, "sub"), 0o755)
	res := r.RunArgv(context.Background(), []string{"echo", "a b", "$(rm x)"}, runner.RunOptions{})
	if res.Error != "" || res.Stdout != "a b $(rm x)\n" {
		t.Errorf("argv is not shell text: %+v", res)
	}
	res = r.RunArgv(context.Background(), []string{"pwd"}, runner.RunOptions{Dir: "sub"})
	if strings.TrimSpace(res.Stdout) != filepath.Join(dir, "sub") {
		t.Errorf("cwd: %+v", res)
	}
	if res = r.RunArgv(context.Background(), []string{"rm", "x"}, runner.RunOptions{}); res.DeniedBy == "" {
		t.Errorf("rm allowed: %+v", res)
	}
	if res = r.RunArgv(context.Background(), []string{"ls"}, runner.RunOptions{Dir: ".."}); !strings.Contains(res.Error, "outside the workspace") {
		t.Errorf("cwd outside: %+v", res)
	}
	if res = r.RunArgv(context.Background(), []string{"ls"}, runner.RunOptions{Timeout: time.Hour}); !strings.Contains(res.Error, "max_timeout") {
		t.Errorf("timeout over max: %+v", res)
	}
	if res = r.RunArgv(context.Background(), []string{"ls"}, runner.RunOptions{Timeout: -time.Second}); !strings.Contains(res.Error, "must be positive") {
		t.Errorf("negative timeout: %+v", res)
	}
}

// Results validate against schemas/tool-result.schema.json in both forms.
func TestResultMatchesSchema(t *testing.T) {
	needUnix(t)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schemas.ToolResult))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool-result.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("tool-result.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := newRunner(t, "readonly", nil)
	for _, text := range []string{"echo hi", "rm x", "echo 'unterminated"} {
		b, err := json.Marshal(r.Run(context.Background(), text, runner.RunOptions{}))
		if err != nil {
			t.Fatal(err)
		}
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s: %s does not match the schema: %v", text, b, err)
		}
	}
}

// A script that puts its own folder first on PATH still runs the real
// program: vetting saw "ls", so "ls" is what runs.
func TestPathHijackIgnored(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `{ allow: ['ls', 'ls *', 'echo *'] }`, nil)
	os.MkdirAll(filepath.Join(dir, "evil"), 0o755)
	os.WriteFile(filepath.Join(dir, "evil", "ls"), []byte("#!/bin/sh\necho HIJACKED\n"), 0o755)
	res := r.Run(context.Background(), `PATH="`+filepath.Join(dir, "evil")+`:$PATH"; ls`, runner.RunOptions{})
	if strings.Contains(res.Stdout, "HIJACKED") || res.Error != "" {
		t.Errorf("PATH hijack: %+v", res)
	}
}

// vaultRunner makes a runner under readonly plus a secret folder outside
// the workspace (outside/vault, holding key.txt with content) and extra
// recipe fields.
func vaultRunner(t *testing.T, content, extra string) (r *runner.Runner, dir, outside string) {
	t.Helper()
	outside = t.TempDir()
	os.MkdirAll(filepath.Join(outside, "vault"), 0o755)
	os.WriteFile(filepath.Join(outside, "vault", "key.txt"), []byte(content), 0o644)
	r, dir = newRunner(t, "local rein = import 'rein.libsonnet';\nrein.presets.readonly + { paths+: { deny+: ['"+outside+"/vault/**'] }, "+extra+" }\n", nil)
	return r, dir, outside
}

// A bare name runs the program outside the workspace when there is one:
// with the workspace's bin or . on PATH (an activated virtualenv, direnv's
// PATH_add), rein vetted ls and ran the repository's ./ls. A program found
// only in the workspace is still found; a relative entry never is.
func TestWorkspacePathEntriesComeLast(t *testing.T) {
	needUnix(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"bin/ls": "#!/bin/sh\necho PLANTED\n", "cat": "#!/bin/sh\necho PLANTED\n", ".venv/bin/onlyhere": "#!/bin/sh\necho venv tool\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o755)
	}
	os.WriteFile(filepath.Join(dir, "f"), []byte("text\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly + { allow+: ['onlyhere'] }`), 0o644)
	_, p := policytest.Load(t, dir, "")
	path := strings.Join([]string{filepath.Join(dir, "bin"), ".", filepath.Join(dir, ".venv", "bin"), os.Getenv("PATH")}, string(os.PathListSeparator))
	r := runner.New(p, runner.Options{Env: []string{"PATH=" + path, "HOME=" + os.Getenv("HOME")}})
	for text, want := range map[string]string{"ls f": "f\n", "cat f": "text\n", "onlyhere": "venv tool\n"} {
		for _, res := range []*runner.Result{
			r.Run(context.Background(), text, runner.RunOptions{}),
			r.RunArgv(context.Background(), strings.Fields(text), runner.RunOptions{}),
		} {
			if res.Stdout != want {
				t.Errorf("%s: %+v", text, res)
			}
		}
	}
}
