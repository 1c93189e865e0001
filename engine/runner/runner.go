// Package runner runs vetted shell text and argv: through the embedded
// mvdan.cc/sh interpreter (never bash), re-vetting every expanded argv and
// every file the shell opens, with each program in its own process group,
// a timeout, capped output and an explicit environment.
package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"mvdan.cc/sh/v3/syntax"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/sandbox"
)

// Runner runs commands for one recipe and workspace. It is safe for
// concurrent use.
type Runner struct {
	policy     *policy.Policy
	recipe     *recipe.Recipe
	workspace  string
	env        []string
	timeout    time.Duration
	maxTimeout time.Duration
	maxOutput  int
	grace      time.Duration
	sandbox    *sandbox.Config
	helper     string
	lookupEnv  expand.Environ // PATH for finding programs
	// shellMemory and runaway bound the shell's own memory (memory.go).
	shellMemory int64
	runaway     func(string)
	// kept are the files no command may change (keep.go).
	kept     keptFiles
	inFlight inFlight // runs going on at once, which share one snapshot
}

// Options configure a Runner.
type Options struct {
	// Env is the parent environment to build from (default: os.Environ()).
	Env []string
	// Grace is the time between SIGTERM and SIGKILL (default 2s).
	Grace time.Duration
	// Sandbox confines every program (see sandbox.FromRecipe); nil: none.
	Sandbox *sandbox.Config
	// Helper is the rein binary that applies the sandbox (default: this
	// executable).
	Helper string
	// ShellMemory is how far one run may grow rein's heap: the embedded
	// shell's variables live there (default DefaultShellMemory).
	ShellMemory int64
	// Runaway is called when a run goes on growing the heap after it was
	// stopped, which only exiting can end (default: print the message and
	// exit).
	Runaway func(message string)
}

// New makes a runner for a compiled policy.
func New(p *policy.Policy, opts Options) *Runner {
	r := p.Recipe()
	if opts.Env == nil {
		opts.Env = os.Environ()
	}
	if opts.Grace == 0 {
		opts.Grace = 2 * time.Second
	}
	if opts.ShellMemory == 0 {
		opts.ShellMemory = DefaultShellMemory
	}
	if opts.Runaway == nil {
		opts.Runaway = exitOnRunaway
	}
	timeout, maxTimeout := r.Limits.Timeout.D(), r.Limits.MaxTimeout.D()
	run := &Runner{
		policy: p, recipe: r, workspace: r.Workspace,
		env:     workspaceCacheEnv(BuildEnv(r.Env, opts.Env), r.Workspace),
		timeout: timeout, maxTimeout: maxTimeout,
		maxOutput: r.Limits.MaxOutputBytes, grace: opts.Grace,
		sandbox: opts.Sandbox, helper: opts.Helper,
		shellMemory: opts.ShellMemory, runaway: opts.Runaway,
	}
	run.lookupEnv = expand.ListEnviron(run.env...)
	if opts.Sandbox != nil {
		// Working the sandbox's facts out here too, on the other core,
		// cost 0.4 ms a run: the helper's fork then copies rein's memory
		// while it changes. os's check of pidfds is a vfork, and pays.
		warmProcessStart()
	}
	return run
}

// RunOptions are per-run choices.
type RunOptions struct {
	// Dir is the working folder, inside the workspace (default: the workspace).
	Dir string
	// Timeout overrides limits.timeout; it may not exceed limits.max_timeout.
	Timeout time.Duration
	// Approved says a person approved this command's ask verdicts.
	Approved bool
	// Stdout and Stderr receive the output live, as well as the result.
	Stdout, Stderr io.Writer
	// Stdin is the command's input (default: empty).
	Stdin io.Reader
	// Env adds variables (NAME=value) for this run only: task parameters
	// reach scripts this way, as variables, never spliced into the text.
	Env []string
}

// Run vets shell text and, if it is allowed, interprets it.
func (r *Runner) Run(ctx context.Context, text string, opts RunOptions) *Result {
	dir, err := r.dir(opts.Dir)
	if err != nil {
		return Failed("%v", err)
	}
	d := r.policy.Decide(policy.Facts{Text: text, Dir: dir})
	if d.Verdict == policy.Deny || d.Verdict == policy.Ask && !opts.Approved {
		return Denied(d)
	}
	return r.Interpret(ctx, text, opts)
}

// Decide is the policy's decision on a command before it runs, with the
// facts known then, in the folder Run and RunArgv would run it in (f.Dir as
// RunOptions.Dir takes it). Callers ask it to know whether to ask a person;
// Run decides the same way, then again as the script runs. The error is a
// folder rein cannot run in.
func (r *Runner) Decide(f policy.Facts) (*policy.Decision, error) {
	dir, err := r.dir(f.Dir)
	if err != nil {
		return nil, fmt.Errorf("%w; give a folder inside the workspace", err)
	}
	f.Dir = dir
	return r.policy.Decide(f), nil
}

// errDenied halts the interpreter when a command is denied at run time.
var errDenied = errors.New("denied at run time")

// Interpret runs shell text with the run-time checks only: every argv the
// interpreter is about to run and every file it opens is vetted again.
// Callers normally use Run, which vets the text first.
func (r *Runner) Interpret(ctx context.Context, text string, opts RunOptions) *Result {
	start := time.Now()
	dir, timeout, err := r.placeAndTime(opts)
	if err != nil {
		return Failed("%v", err)
	}
	file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return Failed("cannot parse the command: %v", err)
	}
	ctx, out, stdin, done, err := r.prepare(ctx, timeout, opts)
	if err != nil {
		return Failed("%v", err)
	}
	defer done()

	base := expand.ListEnviron(append(append([]string(nil), r.env...), opts.Env...)...)
	checks := &runChecks{runner: r, approved: opts.Approved, base: base}
	checks.programsDone = sync.NewCond(&checks.mu)
	shell, err := interp.New(
		interp.Env(base),
		interp.Dir(dir),
		interp.StdIO(stdin, stream{out, false}, stream{out, true}),
		interp.CallHandler(checks.call),
		interp.ExecHandlers(func(interp.ExecHandlerFunc) interp.ExecHandlerFunc { return checks.exec }),
		interp.OpenHandler(checks.open),
		interp.ReadDirHandler2(checks.readDir),
		interp.StatHandler(checks.stat),
		interp.AccessHandler(checks.access),
	)
	if err != nil {
		return Failed("cannot start the interpreter: %v", err)
	}
	checks.shell = shell
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	mem := r.watchMemory(cancel)
	kept := r.keep()
	// Put back even when the run panics: the runs in flight share one
	// snapshot, and one that never ended would keep the rest from
	// putting anything back.
	restored := false
	defer func() {
		if !restored {
			r.restore(kept)
		}
	}()
	err = shell.Run(ctx, file)
	// What a process substitution still runs is stopped, and ended,
	// before rein looks at what the command changed.
	cancel()
	checks.endPrograms()
	outgrown := mem.stop()
	restored = true
	if note := r.restore(kept); note != "" {
		fmt.Fprint(stream{out, true}, note)
	}
	res := &Result{DurationMS: time.Since(start).Milliseconds()}
	out.fill(res)
	var status interp.ExitStatus
	switch denial := checks.denied(); {
	case denial != nil:
		d := Denied(denial)
		d.Error = "stopped at run time: " + d.Error
		d.Stdout, d.Stderr, d.Combined, d.DurationMS = res.Stdout, res.Stderr, res.Combined, res.DurationMS
		return d
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		res.TimedOut, res.ExitCode = true, 124
		res.Stderr += fmt.Sprintf("\n[rein stopped the command after %s]\n", timeout)
	case out.flooded:
		res.ExitCode, res.Stopped = 125, "output"
	case outgrown:
		res.ExitCode, res.Stopped = 125, "memory"
		res.Stderr += r.memoryNote()
		res.Combined += r.memoryNote()
	case err == nil:
	case errors.As(err, &status):
		res.ExitCode = int(status)
	case errors.Is(err, context.Canceled):
		res.ExitCode = 130
	default:
		res.ExitCode = 1
		res.Stderr += "\nrein: " + err.Error() + "\n"
	}
	return res
}

// prepare sets a run up: the deadline, the output capture (which cancels
// the run when it floods) and the input. done releases them.
func (r *Runner) prepare(ctx context.Context, timeout time.Duration, opts RunOptions) (context.Context, *capture, io.Reader, func(), error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	out := newCapture(r.maxOutput, opts.Stdout, opts.Stderr, cancel)
	stdin, closeStdin, err := r.stdin(opts.Stdin)
	if err != nil {
		cancel()
		return nil, nil, nil, nil, err
	}
	return ctx, out, stdin, func() { closeStdin(); cancel() }, nil
}

// exec runs a program for the interpreter (the last exec handler), with
// stdin in place of the shell's input when it is not nil.
func (r *Runner) exec(ctx context.Context, args []string, stdin io.Reader) error {
	hc := interp.HandlerCtx(ctx)
	// A bare name is found on the PATH rein built, never on one the script
	// changed: PATH=/tmp/evil:$PATH; ls must not run /tmp/evil/ls while
	// vetting saw ls.
	path, err := r.lookPath(hc.Dir, r.lookupEnv, args[0])
	if err != nil {
		fmt.Fprintf(hc.Stderr, "rein: %s: command not found\n", args[0])
		return interp.ExitStatus(127)
	}
	if stdin == nil {
		stdin = hc.Stdin
	}
	stdout, stderr := hc.Stdout, hc.Stderr
	if printsConfiguration(args) {
		// Errors echo values too (git config of a bad value names it).
		rw, re := &redactingWriter{w: hc.Stdout}, &redactingWriter{w: hc.Stderr}
		defer finishRedacting(rw, re, hc.Stderr)
		stdout, stderr = rw, re
	}
	nw := r.watchStderr(stderr)
	out, err := r.process(path, args, envList(hc.Env), hc.Dir, stdin, stdout, nw).run(ctx)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "rein: %v\n", err)
	}
	if limit := nw.limit(out); limit != "" {
		fmt.Fprint(hc.Stderr, limitNote(limit, r.sandbox.Limits))
	}
	if out.code != 0 {
		fmt.Fprint(hc.Stderr, nw.note())
	}
	if len(out.refused) > 0 {
		fmt.Fprintf(hc.Stderr, "rein: %s asked for %s, which the recipe does not grant it (sandbox.hosts); it may reach only %s\n", args[0], strings.Join(out.refused, ", "), strings.Join(r.policy.GrantedHosts(args), ", "))
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if out.code != 0 {
		return interp.ExitStatus(min(out.code, 255))
	}
	return nil
}

func (r *Runner) process(path string, argv, env []string, dir string, stdin io.Reader, stdout, stderr io.Writer) process {
	k := r.kept.find(r)
	env = confineGit(env, k.ceiling)
	return process{path: path, argv: argv, env: env, dir: dir, stdin: stdin, stdout: stdout, stderr: stderr,
		grace: r.grace, sandbox: r.sandbox, helper: r.helper, readOnly: k.readOnly, pin: k.pin, reveal: r.policy.Revealed(argv),
		hosts: r.policy.GrantedHosts(argv)}
}

// Sandbox describes the sandbox commands run in.
func (r *Runner) Sandbox() *sandbox.Config { return r.sandbox }

// RunArgv runs a program without a shell (execute_command): vetted like
// shell text, run with the same limits, environment and process handling.
func (r *Runner) RunArgv(ctx context.Context, argv []string, opts RunOptions) *Result {
	start := time.Now()
	if len(argv) == 0 || argv[0] == "" {
		return Failed("no command given")
	}
	dir, timeout, err := r.placeAndTime(opts)
	if err != nil {
		return Failed("%v", err)
	}
	d := r.decide(ctx, policy.Facts{Argv: argv, Dir: dir})
	if d.Verdict == policy.Deny || d.Verdict == policy.Ask && !opts.Approved {
		return Denied(d)
	}
	original := argv
	argv = d.Run
	envList := append(append([]string(nil), r.env...), opts.Env...)
	env := expand.ListEnviron(envList...)
	path, err := r.lookPath(dir, env, argv[0])
	if err != nil {
		return &Result{Stderr: fmt.Sprintf("rein: %s: command not found\n", argv[0]), ExitCode: 127, DurationMS: time.Since(start).Milliseconds()}
	}
	ctx, out, stdin, done, err := r.prepare(ctx, timeout, opts)
	if err != nil {
		return Failed("%v", err)
	}
	defer done()
	in, readAhead, err := readInput(argv, original, dir, stdin)
	if err != nil {
		return Failed("%v", err)
	}
	if d := r.decide(ctx, policy.Facts{Argv: argv, Dir: dir, Starting: true, Input: in}); d.Verdict == policy.Deny {
		return Denied(d)
	}
	if readAhead != nil {
		stdin = readAhead
	}
	var stdout, stderr io.Writer = stream{out, false}, stream{out, true}
	var rw, re *redactingWriter
	if printsConfiguration(argv) {
		rw, re = &redactingWriter{w: stdout}, &redactingWriter{w: stderr}
		stdout, stderr = rw, re
	}
	kept := r.keep()
	restored := false
	defer func() {
		if !restored { // a panic: see Interpret
			r.restore(kept)
		}
	}()
	nw := r.watchStderr(stderr)
	po, err := r.process(path, argv, envList, dir, stdin, stdout, nw).run(ctx)
	if rw != nil {
		finishRedacting(rw, re, stream{out, true})
	}
	if po.code != 0 {
		fmt.Fprint(stream{out, true}, nw.note())
	}
	restored = true
	if note := r.restore(kept); note != "" {
		fmt.Fprint(stream{out, true}, note)
	}
	res := &Result{ExitCode: po.code, DurationMS: time.Since(start).Milliseconds()}
	if err != nil {
		fmt.Fprintf(stream{out, true}, "rein: %v\n", err)
	}
	if limit := nw.limit(po); limit != "" {
		fmt.Fprint(stream{out, true}, limitNote(limit, r.sandbox.Limits))
	}
	out.fill(res)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && !out.flooded:
		res.TimedOut, res.ExitCode = true, 124
		res.Stderr += fmt.Sprintf("\n[rein stopped the command after %s]\n", timeout)
	case out.flooded:
		res.ExitCode, res.Stopped = 125, "output"
	}
	return res
}

// placeAndTime checks a run's working folder and timeout.
func (r *Runner) placeAndTime(opts RunOptions) (string, time.Duration, error) {
	dir, err := r.dir(opts.Dir)
	if err != nil {
		return "", 0, err
	}
	timeout, err := r.effectiveTimeout(opts.Timeout)
	return dir, timeout, err
}

// dir resolves a working folder, which must lie inside the workspace.
func (r *Runner) dir(d string) (string, error) {
	if d == "" {
		return r.workspace, nil
	}
	if !filepath.IsAbs(d) {
		d = filepath.Join(r.workspace, d)
	}
	d = filepath.Clean(d)
	real, err := filepath.EvalSymlinks(d)
	if err != nil {
		return "", fmt.Errorf("working folder %s: %w", d, err)
	}
	ws, err := filepath.EvalSymlinks(r.workspace)
	if err != nil {
		ws = r.workspace
	}
	if !policy.Inside(real, ws) {
		return "", fmt.Errorf("working folder %s (resolved: %s) is outside the workspace %s", d, real, r.workspace)
	}
	return d, nil
}

func (r *Runner) effectiveTimeout(t time.Duration) (time.Duration, error) {
	switch {
	case t == 0:
		return r.timeout, nil
	case t < 0:
		return 0, fmt.Errorf("timeout must be positive, got %s", t)
	case r.maxTimeout > 0 && t > r.maxTimeout:
		return 0, fmt.Errorf("timeout %s is longer than this recipe's limits.max_timeout (%s)", t, r.maxTimeout)
	}
	return t, nil
}

// stdin returns the command's input: the given reader, or an empty file.
func (r *Runner) stdin(in io.Reader) (io.Reader, func(), error) {
	if in != nil {
		return in, func() {}, nil
	}
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil, nil, err
	}
	return f, func() { f.Close() }, nil
}

// envList is the exported environment of the interpreter, for a program.
func envList(env expand.Environ) []string {
	var out []string
	env.Each(func(name string, vr expand.Variable) bool {
		if vr.Exported && vr.IsSet() {
			out = append(out, name+"="+vr.String())
		}
		return true
	})
	return out
}

// scriptVars returns the exported variables the script set or changed
// (those rein built the environment with, and a run's own, aside), for the
// run-time check: each command is checked as if they were its prefix
// assignments, as that is what it receives. export GIT_CONFIG_PARAMETERS=…
// or export HOME=… reach git exactly as GIT_CONFIG_PARAMETERS=… git would.
func scriptVars(env, base expand.Environ) map[string]string {
	var out map[string]string
	env.Each(func(name string, vr expand.Variable) bool {
		if !vr.Exported || !vr.IsSet() {
			return true
		}
		if b := base.Get(name); b.IsSet() && b.String() == vr.String() {
			return true
		}
		if out == nil {
			out = map[string]string{}
		}
		out[name] = vr.String()
		return true
	})
	return out
}
