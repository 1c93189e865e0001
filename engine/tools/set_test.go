package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tools"
)

func newSet(t *testing.T, preset string, opts tools.Options) (*tools.Set, string) {
	t.Helper()
	dir := t.TempDir()
	_, p := policytest.Load(t, dir, preset)
	return tools.NewSet(p, runner.New(p, runner.Options{}), opts), dir
}

func errorOf(o tools.Outcome) string {
	var e struct{ Error, DeniedBy string }
	json.Unmarshal([]byte(o.Output), &e)
	return e.Error
}

// git commit is an ask under the git preset; tag creation is allowed.
func TestApproval(t *testing.T) {
	commit := `{"command":"git commit -m x","reason":"save"}`
	var asked []tools.ApprovalRequest
	answer := tools.Approval{}
	approver := func(_ context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
		asked = append(asked, req)
		return answer, nil
	}

	set, _ := newSet(t, "git", tools.Options{})
	if o := set.Call(context.Background(), "run_command", commit); !strings.Contains(errorOf(o), "no terminal to ask on") {
		t.Errorf("no approver: %s", o.Output)
	}

	set, _ = newSet(t, "git", tools.Options{Approver: approver})
	answer = tools.Approval{Note: "not on main"}
	o := set.Call(context.Background(), "run_command", commit)
	if !strings.Contains(errorOf(o), "declined") || !strings.Contains(errorOf(o), "not on main") || len(asked) != 1 || asked[0].Reason != "save" {
		t.Errorf("declined with a note: %s (asked %d)", o.Output, len(asked))
	}
	answer = tools.Approval{Approved: true, Always: true}
	set.Call(context.Background(), "run_command", commit)
	set.Call(context.Background(), "run_command", commit)
	if len(asked) != 2 {
		t.Errorf("'always' should approve the same command for the session; asked %d times", len(asked))
	}

	set, _ = newSet(t, "git", tools.Options{Yes: true, Approver: approver})
	asked = nil
	if o := set.Call(context.Background(), "run_command", `{"command":"git push","reason":"x"}`); !strings.Contains(errorOf(o), "denied") || len(asked) != 0 {
		t.Errorf("--yes must never override deny: %s", o.Output)
	}

	// The policy decides the ask (one decider); the tool set asks.
	r, _ := policytest.Load(t, t.TempDir(), "readonly")
	p, err := policy.New(r, policy.Options{ConfirmAll: true})
	if err != nil {
		t.Fatal(err)
	}
	set = tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{Approver: approver})
	answer = tools.Approval{}
	asked = nil
	set.Call(context.Background(), "run_command", `{"command":"ls","reason":"x"}`)
	if len(asked) != 1 {
		t.Errorf("--confirm-commands asks for allowed commands too")
	}
}

func TestDryRunRunsNothing(t *testing.T) {
	set, dir := newSet(t, "python", tools.Options{DryRun: true})
	o := set.Call(context.Background(), "run_command", `{"command":"ls > /dev/null","reason":"x"}`)
	if !o.Success || !strings.Contains(o.Output, `"dry_run":true`) || set.CommandsRun() != 0 {
		t.Errorf("dry run: %s", o.Output)
	}
	// Nothing runs, not even a command that would create a file.
	set.Call(context.Background(), "run_command", `{"command":"pytest --junitxml=report.xml","reason":"x"}`)
	if _, err := os.Stat(filepath.Join(dir, "report.xml")); err == nil {
		t.Error("a dry run ran a command")
	}
}

func TestSpecsFollowTheRecipe(t *testing.T) {
	set, _ := newSet(t, "readonly", tools.Options{})
	var names []string
	for _, s := range set.Specs() {
		names = append(names, s.Name)
		var schema map[string]any
		if err := json.Unmarshal(s.Schema, &schema); err != nil || schema["type"] != "object" {
			t.Errorf("%s schema: %s", s.Name, s.Schema)
		}
	}
	if strings.Join(names, ",") != "run_command,execute_command,list_allowed_commands,glob,file_read,grep,list_directory,system_info" {
		t.Errorf("tools %v (file_write is off by default)", names)
	}
	desc := set.Specs()[0].Description
	for _, want := range []string{"`git status`: Working tree status", "- git ", "Not allowed: writing files with >"} {
		if !strings.Contains(desc, want) {
			t.Errorf("run_command description lacks %q", want)
		}
	}

	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ tools: { run_command: false, file_write: true, grep: 'ask' } }`), 0o644)
	_, p := policytest.Load(t, dir, "")
	set = tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
	names = nil
	for _, s := range set.Specs() {
		names = append(names, s.Name)
	}
	if strings.Contains(strings.Join(names, ","), "run_command") || !strings.Contains(strings.Join(names, ","), "file_write") {
		t.Errorf("recipe tools: %v", names)
	}
	if o := set.Call(context.Background(), "grep", `{"pattern":"x"}`); !strings.Contains(errorOf(o), "needs a person's confirmation") {
		t.Errorf("ask tool without approver: %s", o.Output)
	}
	set = tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{AllowCommands: true})
	if o := set.Call(context.Background(), "run_command", `{"command":"ls","reason":"x"}`); strings.Contains(o.Output, "unknown tool") {
		t.Errorf("--allow-commands: %s", o.Output)
	}
}

func TestExposedTaskTool(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`
local rein = import 'rein.libsonnet';
rein.presets.readonly + { tasks: {
  greet: rein.task('Greet', run='echo "hello $name"', expose=true, params={ name: rein.param('string', 'who') }),
  grep: rein.task('shadows a built-in tool', run='echo g', expose=true),
} }`), 0o644)
	_, p := policytest.Load(t, dir, "")
	set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
	var names []string
	for _, s := range set.Specs() {
		names = append(names, s.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "greet") || !strings.Contains(strings.Join(names, ","), "task_grep") {
		t.Errorf("specs %v", names)
	}
	o := set.Call(context.Background(), "greet", `{"name":"x; rm -rf y"}`)
	var res struct{ Stdout string }
	json.Unmarshal([]byte(o.Output), &res)
	if !o.Success || res.Stdout != "hello x; rm -rf y\n" {
		t.Errorf("task tool: %s", o.Output)
	}
	if o := set.Call(context.Background(), "greet", `{}`); !strings.Contains(errorOf(o), `missing required field "name"`) {
		t.Errorf("missing param: %s", o.Output)
	}
}

// The file tools' one-line summaries say what was read, found or written,
// for the person watching (not a bare "ok").
func TestFileToolSummaries(t *testing.T) {
	set, dir := newSet(t, "readonly", tools.Options{})
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "a.go"), []byte("package a // two\n"), 0o644)
	for _, tt := range []struct{ tool, args, want string }{
		{tools.FileRead, `{"path":"notes.txt"}`, "read notes.txt: 3 lines, 14 bytes"},
		{tools.FileRead, `{"path":"notes.txt","offset":2,"limit":1}`, "read notes.txt: 1 line, 4 bytes from line 2 (more follows)"},
		{tools.GrepTool, `{"pattern":"two"}`, "2 matches of two in the workspace"},
		{tools.GlobTool, `{"pattern":"**/*.go","path":"src"}`, "1 file match **/*.go in src"},
		{tools.ListDirectory, `{"path":"src"}`, "listed src: 1 entry"},
	} {
		if o := set.Call(context.Background(), tt.tool, tt.args); o.Summary != tt.want {
			t.Errorf("%s %s: summary %q, want %q (%s)", tt.tool, tt.args, o.Summary, tt.want, o.Output)
		}
	}
}

// tools: { run_command: 'ask' } confirms every command the tool runs, an
// allowed one too; without anyone to ask, the command is refused, naming
// the setting.
func TestCommandToolInAskMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX ls")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly + { tools+: { run_command: 'ask' } }`), 0o644)
	_, p := policytest.Load(t, dir, "")
	set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
	o := set.Call(context.Background(), tools.RunCommand, `{"command":"ls","reason":"look"}`)
	if !strings.Contains(errorOf(o), "tools.run_command is 'ask'") {
		t.Errorf("ls ran or was refused for another reason: %s", o.Output)
	}
	var asked []string
	set = tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{Approver: func(_ context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
		asked = append(asked, req.Command+" / "+req.Decision.Rule)
		return tools.Approval{Approved: true}, nil
	}})
	if o := set.Call(context.Background(), tools.RunCommand, `{"command":"ls","reason":"look"}`); !o.Success {
		t.Errorf("approved ls: %s", o.Output)
	}
	if len(asked) != 1 || asked[0] != "ls / tools.run_command" {
		t.Errorf("asked %v", asked)
	}
	// execute_command, which the recipe does not set, is asked about too:
	// the model would otherwise take the tool that is not.
	if o := set.Call(context.Background(), tools.ExecuteCommand, `{"command":"ls"}`); !o.Success || len(asked) != 2 || asked[1] != "ls / tools.run_command" {
		t.Errorf("execute_command: %s, asked %v", o.Output, asked)
	}
}

// execute_command's timeout: 60 s by default and at most 120 s, unless the
// recipe sets limits.timeout or limits.max_timeout; the schema says so.
func TestExecuteCommandTimeouts(t *testing.T) {
	for _, tt := range []struct {
		recipe       string
		def, longest int
		refused      int
	}{
		{`local rein = import 'rein.libsonnet'; rein.presets.readonly`, 60, 120, 121},
		{`local rein = import 'rein.libsonnet'; rein.presets.readonly + { limits+: { timeout: '10s', max_timeout: '20s' } }`, 10, 20, 21},
		{`local rein = import 'rein.libsonnet'; rein.presets.readonly + { limits+: { max_timeout: '30s' } }`, 30, 30, 31},
	} {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(tt.recipe), 0o644)
		_, p := policytest.Load(t, dir, "")
		set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
		var schema struct {
			Properties struct {
				Timeout struct{ Default, Maximum int }
			}
		}
		var desc string
		for _, s := range set.Specs() {
			if s.Name == tools.ExecuteCommand {
				json.Unmarshal(s.Schema, &schema)
				desc = s.Description
			}
		}
		if schema.Properties.Timeout.Default != tt.def || schema.Properties.Timeout.Maximum != tt.longest {
			t.Errorf("%s: schema timeout %+v, want default %d maximum %d", tt.recipe, schema.Properties.Timeout, tt.def, tt.longest)
		}
		if !strings.Contains(desc, "exit_code") || !strings.Contains(desc, "default "+strconv.Itoa(tt.def)) {
			t.Errorf("description: %s", desc)
		}
		o := set.Call(context.Background(), tools.ExecuteCommand, fmt.Sprintf(`{"command":"true","timeout":%d}`, tt.refused))
		if !strings.Contains(errorOf(o), fmt.Sprintf("must be at most %d", tt.longest)) {
			t.Errorf("timeout %d: %s", tt.refused, o.Output)
		}
	}
}

// A working folder outside the workspace is an error naming the folder and
// what to give instead, decided before anything runs.
func TestExecuteCommandCwdOutside(t *testing.T) {
	set, _ := newSet(t, "readonly", tools.Options{})
	o := set.Call(context.Background(), tools.ExecuteCommand, `{"command":"ls","cwd":"/"}`)
	if e := errorOf(o); o.Success || !strings.Contains(e, "outside the workspace") || !strings.Contains(e, "give a folder inside the workspace") {
		t.Errorf("%s", o.Output)
	}
	if n := set.CommandsRun(); n != 0 {
		t.Errorf("%d commands ran", n)
	}
}

// list_allowed_commands shows each subcommand with what it is for.
func TestListAllowedCommandsDescribesSubcommands(t *testing.T) {
	set, _ := newSet(t, "git", tools.Options{})
	o := set.Call(context.Background(), tools.ListAllowedCommands, `{}`)
	var got struct{ Output string }
	json.Unmarshal([]byte(o.Output), &got)
	for _, want := range []string{"\n  - git blame: Who last changed each line\n", "\n  - git cherry-pick (asks first): "} {
		if !strings.Contains(got.Output, want) {
			t.Errorf("the catalog lacks %q:\n%s", want, got.Output)
		}
	}
}

// Every call's arguments are held to the tool's input schema in Call, for
// every caller: an unknown argument, or a timeout below its minimum, is
// an error the model reads, and nothing runs.
func TestCallValidatesArgumentsAgainstTheSchema(t *testing.T) {
	set, _ := newSet(t, "readonly", tools.Options{})
	for _, tt := range []struct{ tool, args, want string }{
		{tools.RunCommand, `{"command":"ls","reason":"x","sudo":true}`, "do not match its input schema"},
		{tools.ExecuteCommand, `{"command":"ls","timeout":0}`, "do not match its input schema"},
		{tools.FileRead, `{"path":"x","offset":-1}`, "do not match its input schema"},
		{tools.GlobTool, `{"pattern":5}`, "do not match its input schema"},
	} {
		o := set.Call(context.Background(), tt.tool, tt.args)
		if o.Success || !strings.Contains(errorOf(o), tt.want) {
			t.Errorf("%s %s: %s", tt.tool, tt.args, o.Output)
		}
	}
	if o := set.Call(context.Background(), tools.RunCommand, `{"command":"ls","reason":"x"}`); !o.Success && strings.Contains(errorOf(o), "schema") {
		t.Errorf("valid arguments refused: %s", o.Output)
	}
}

// An answer of "always, in the recipe" runs the command, holds for the
// session, and hands the command to Options.Remember (rein allow).
func TestApprovalRemembered(t *testing.T) {
	var remembered []string
	asked := 0
	set, _ := newSet(t, "git", tools.Options{
		Approver: func(context.Context, tools.ApprovalRequest) (tools.Approval, error) {
			asked++
			return tools.Approval{Approved: true, Remember: true}, nil
		},
		Remember: func(command string) { remembered = append(remembered, command) },
	})
	commit := `{"command":"git commit --allow-empty -m x","reason":"save"}`
	set.Call(context.Background(), "run_command", commit)
	set.Call(context.Background(), "run_command", commit)
	if asked != 1 || len(remembered) != 1 || remembered[0] != "git commit --allow-empty -m x" {
		t.Errorf("asked %d times, remembered %q", asked, remembered)
	}
}

// A task tool under --confirm-commands is asked about once and, approved,
// runs: the policy's confirmation is the tool's, and the runner does not
// ask again for the steps. Under tools.run_command: 'ask' a task tool runs
// as the recipe defines it, without asking.
func TestConfirmedTaskToolRuns(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		confirmAll  bool
		asks        int
	}{
		{"--confirm-commands", "", true, 1},
		{"tools.run_command: 'ask'", ", tools+: { run_command: 'ask' }", false, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`
local rein = import 'rein.libsonnet';
rein.presets.readonly + { tasks: { greet: rein.task('Greet', run='echo hello', expose=true) }`+c.extra+` }`), 0o644)
			r, _ := policytest.Load(t, dir, "")
			p, err := policy.New(r, policy.Options{Tool: tools.RunCommand, ConfirmAll: c.confirmAll})
			if err != nil {
				t.Fatal(err)
			}
			var asked []string
			set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{Approver: func(_ context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
				asked = append(asked, req.Decision.Rule)
				return tools.Approval{Approved: true}, nil
			}})
			o := set.Call(context.Background(), "greet", `{}`)
			if !o.Success || !strings.Contains(o.Output, "hello") || len(asked) != c.asks {
				t.Errorf("greet: %s, asked %v", o.Output, asked)
			}
		})
	}
}
