package tasks

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

func load(t *testing.T, text string) (*recipe.Recipe, string) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(text), 0o644)
	r, err := recipe.Load(recipe.Options{Dir: dir, CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	return r, dir
}

const taskRecipe = `
local rein = import 'rein.libsonnet';
rein.presets.readonly + {
  tasks: {
    greet: rein.task('Say hello', run='echo "hello $name"; echo "$count $loud $level"',
      params={ name: rein.param('string', 'who'), count: rein.param('int', 'how many', default=1),
               loud: rein.param('bool', 'shout', default=false), level: rein.param('enum', 'how', default='low', enum=['low', 'high']) }),
    a: rein.task('first', run='echo a >> /dev/null; echo a'),
    b: rein.task('second', run='echo b', deps=['a']),
    c: rein.task('third', steps=['echo c1', 'false', 'echo never'], deps=['a', 'b']),
    loop1: rein.task('cycle', run='echo 1', deps=['loop2']),
    loop2: rein.task('cycle', run='echo 2', deps=['loop3']),
    loop3: rein.task('cycle', run='echo 3', deps=['loop1']),
    clean: rein.task('remove the build folder', run='rm -rf build', allow=['rm -rf build']),
    sneaky: rein.task('not allowed', run='rm -rf build'),
  },
}`

func TestParameterIsNeverCode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX")
	}
	r, dir := load(t, taskRecipe)
	os.MkdirAll(filepath.Join(dir, "y"), 0o755)
	vals, err := Bind("greet", r.Tasks["greet"], map[string]string{"name": "x; rm -rf y"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	res, err := Run(context.Background(), r, "greet", vals, Options{Stdout: &out})
	if err != nil || res.ExitCode != 0 || res.Error != "" {
		t.Fatalf("%v %+v", err, res)
	}
	if out.String() != "hello x; rm -rf y\n1 false low\n" {
		t.Errorf("output %q", out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "y")); err != nil {
		t.Error("y was removed: the parameter ran as code")
	}
}

func TestBind(t *testing.T) {
	r, _ := load(t, taskRecipe)
	g := r.Tasks["greet"]
	tests := []struct {
		named map[string]string
		pos   []string
		want  string
		err   string
	}{
		{nil, []string{"ann"}, "count=1 level=low loud=false name=ann", ""},
		{map[string]string{"count": "3", "loud": "yes"}, []string{"bo"}, "", "true or false"},
		{map[string]string{"count": "3", "loud": "TRUE", "level": "high"}, []string{"bo"}, "count=3 level=high loud=true name=bo", ""},
		{map[string]string{"count": "many"}, []string{"bo"}, "", "whole number"},
		{map[string]string{"level": "max"}, []string{"bo"}, "", "one of low, high"},
		{nil, nil, "", "needs --name"},
		{map[string]string{"nope": "1"}, nil, "", `no parameter "nope"`},
		{nil, []string{"a", "1", "true", "low", "extra"}, "", "more argument"},
	}
	for _, tt := range tests {
		vals, err := Bind("greet", g, tt.named, tt.pos)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%v %v: err %v, want %q", tt.named, tt.pos, err, tt.err)
			}
			continue
		}
		var got []string
		for _, k := range []string{"count", "level", "loud", "name"} {
			got = append(got, k+"="+vals[k])
		}
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("%v %v: %v %v", tt.named, tt.pos, got, err)
		}
	}
}

func TestDependenciesAndFailure(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX")
	}
	r, _ := load(t, taskRecipe)
	order, err := Plan(r, "c")
	if err != nil || strings.Join(order, ",") != "a,b,c" {
		t.Errorf("plan %v %v (a runs once although b and c both need it)", order, err)
	}
	var out bytes.Buffer
	var steps []string
	res, err := Run(context.Background(), r, "c", map[string]string{}, Options{Stdout: &out,
		OnStep: func(task, script string, _ *policy.Decision) { steps = append(steps, task+": "+script) }})
	if strings.Join(steps, "; ") != "a: echo a >> /dev/null; echo a; b: echo b; c: echo c1; c: false" {
		t.Errorf("steps %v", steps)
	}
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "a\nb\nc1\n" || res.ExitCode != 1 {
		t.Errorf("output %q exit %d: the failing step must stop the task with its code", out.String(), res.ExitCode)
	}
	if _, err := Plan(r, "loop1"); err == nil || !strings.Contains(err.Error(), "cycle: loop1 → loop2 → loop3 → loop1") {
		t.Errorf("cycle: %v", err)
	}
	if _, err := Plan(r, "nope"); err == nil || !strings.Contains(err.Error(), "the tasks are: a, b, c") {
		t.Errorf("unknown task: %v", err)
	}
}

func TestTaskAllowIsExplicit(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX")
	}
	r, dir := load(t, taskRecipe)
	build := filepath.Join(dir, "build")
	os.MkdirAll(build, 0o755)
	res, err := Run(context.Background(), r, "sneaky", map[string]string{}, Options{})
	if err != nil || res.DeniedBy == "" {
		t.Errorf("a task cannot do what the recipe forbids: %+v %v", res, err)
	}
	if _, err := os.Stat(build); err != nil {
		t.Fatal("build was removed by a task without an allowance")
	}
	res, err = Run(context.Background(), r, "clean", map[string]string{}, Options{})
	if err != nil || res.Error != "" || res.ExitCode != 0 {
		t.Fatalf("clean: %+v %v", res, err)
	}
	if _, err := os.Stat(build); err == nil {
		t.Error("clean's explicit allowance did not apply")
	}
}

func TestSchema(t *testing.T) {
	r, _ := load(t, taskRecipe)
	got := string(Schema(r.Tasks["greet"]))
	for _, want := range []string{`"count":{"default":1,"description":"how many","type":"integer"}`, `"enum":["low","high"]`, `"required":["name"]`, `"loud":{"default":false,"description":"shout","type":"boolean"}`} {
		if !strings.Contains(got, want) {
			t.Errorf("schema lacks %s:\n%s", want, got)
		}
	}
}

// A mistyped task is answered with the closest one.
func TestDidYouMean(t *testing.T) {
	r := &recipe.Recipe{Tasks: map[string]*recipe.Task{"test": {Params: map[string]*recipe.Param{"pattern": {Type: "string"}}}, "vet": {}, "bench": {}}}
	if _, err := Plan(r, "tset"); err == nil || !strings.Contains(err.Error(), `no task "tset"; did you mean test?; the tasks are: bench, test, vet`) {
		t.Errorf("%v", err)
	}
	if _, err := Plan(r, "deploy"); err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("%v", err)
	}
}

// A task whose folder lies outside the workspace stops with an error that
// names the task and the folder, before any step runs.
func TestTaskFolderOutsideWorkspace(t *testing.T) {
	r, _ := load(t, "local rein = import 'rein.libsonnet'; rein.presets.readonly + { tasks: { away: rein.task('elsewhere', run='ls') + { dir: '/' } } }")
	ran := false
	_, err := Run(context.Background(), r, "away", nil, Options{OnStep: func(string, string, *policy.Decision) { ran = true }})
	if err == nil || !strings.Contains(err.Error(), "task away") || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("error %v", err)
	}
	if ran {
		t.Error("a step was decided and run")
	}
}
