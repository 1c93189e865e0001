package runner

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/reinsh/rein/engine/policy"
)

// runChecks are the run-time checks of one interpretation: the handlers the
// interpreter calls before it runs a command, starts a program or opens a
// file, and the first denial they met (which stops the script).
type runChecks struct {
	runner   *Runner
	approved bool
	base     expand.Environ // the environment rein started the script with
	shell    *interp.Runner // for the functions the script declared

	mu     sync.Mutex // pipelines run handlers concurrently
	denial *policy.Decision
	// originals holds, by the argv call handed the interpreter, the argv
	// it was given, where call changed it (exclusions of secret files):
	// exec vets the words xargs adds to what the script wrote.
	originals sync.Map

	// programs counts the programs running; ended, set when the script
	// has returned, refuses new ones. The shell returns without waiting
	// for a process substitution's programs: rein waits for them (they
	// are stopped first) before it looks at what the command changed.
	programs     int
	ended        bool
	programsDone *sync.Cond
}

// started counts a program in, unless the script has ended.
func (c *runChecks) started() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ended {
		return false
	}
	c.programs++
	return true
}

func (c *runChecks) finished() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.programs--
	c.programsDone.Broadcast()
}

// endPrograms refuses new programs and waits for the running ones to end.
func (c *runChecks) endPrograms() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	for c.programs > 0 {
		c.programsDone.Wait()
	}
}

func (c *runChecks) refuse(d *policy.Decision) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.denial == nil {
		c.denial = d
	}
	return errDenied
}

// denied is the first denial met, or nil.
func (c *runChecks) denied() *policy.Decision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.denial
}

func (c *runChecks) stops(v policy.Verdict) bool {
	return v == policy.Deny || v == policy.Ask && !c.approved
}

// call vets every command with its final argv (functions by name), and
// returns the argv to run: a program walking folders gets exclusions for
// secret files.
func (c *runChecks) call(ctx context.Context, args []string) ([]string, error) {
	r, hc := c.runner, interp.HandlerCtx(ctx)
	if _, isFunc := c.shell.Funcs[args[0]]; isFunc {
		if d := r.policy.Decide(policy.Facts{Argv: args, Dir: hc.Dir, Function: true}); c.stops(d.Verdict) {
			return nil, c.refuse(d)
		}
		return args, nil
	}
	// cd - goes to $OLDPWD, which a script can set: vetted as that.
	if (args[0] == "cd" || args[0] == "pushd") && len(args) > 1 && args[len(args)-1] == "-" {
		to := slices.Clone(args)
		to[len(to)-1] = hc.Env.Get("OLDPWD").String()
		if d := r.decide(ctx, policy.Facts{Argv: to, Vars: scriptVars(hc.Env, c.base), Dir: hc.Dir}); c.stops(d.Verdict) {
			return nil, c.refuse(d)
		}
	}
	d := r.decide(ctx, policy.Facts{Argv: args, Vars: scriptVars(hc.Env, c.base), Dir: hc.Dir})
	if c.stops(d.Verdict) {
		return nil, c.refuse(d)
	}
	if !slices.Equal(d.Run, args) {
		c.originals.Store(strings.Join(d.Run, "\x00"), args)
	}
	return d.Run, nil
}

// readDir lists a folder for the shell's globs, where the command may
// read it: rein expands globs itself, outside the sandbox, and a glob
// must not list what the kernel would not (~/*, /home/*/.ssh/*).
func (c *runChecks) readDir(ctx context.Context, path string) ([]fs.DirEntry, error) {
	hc := interp.HandlerCtx(ctx)
	if !c.runner.policy.MayLook(resolveIn(path, hc.Dir)) {
		return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrPermission}
	}
	return os.ReadDir(path)
}

// stat answers the shell's own tests ([[ -f ~/.ssh/id_rsa ]], -s, -nt)
// where the command may read the place, and says nothing is there
// elsewhere.
func (c *runChecks) stat(ctx context.Context, name string, follow bool) (fs.FileInfo, error) {
	hc := interp.HandlerCtx(ctx)
	if !c.runner.policy.MayLook(resolveIn(name, hc.Dir)) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	if follow {
		return os.Stat(name)
	}
	return os.Lstat(name)
}

// access answers the shell's [[ -r ]], [[ -w ]] and [[ -x ]] where the
// command may read the place, and refuses elsewhere.
func (c *runChecks) access(ctx context.Context, path string, mode interp.AccessMode) error {
	hc := interp.HandlerCtx(ctx)
	if !c.runner.policy.MayLook(resolveIn(path, hc.Dir)) {
		return &fs.PathError{Op: "access", Path: path, Err: fs.ErrPermission}
	}
	return interp.DefaultAccessHandler()(ctx, path, mode)
}

// workingTree is the top of the git working tree dir is in, found as git
// finds it (the nearest folder up from dir holding .git), or "".
func workingTree(dir string) string {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// exec starts a program once the policy has seen what it reads that its
// argv does not say: the file names on its input (xargs, sort
// --files0-from=-), the objects it names by id (git show ID), its response
// files (strings @FILE).
func (c *runChecks) exec(ctx context.Context, args []string) error {
	r, hc := c.runner, interp.HandlerCtx(ctx)
	original := args
	if v, ok := c.originals.LoadAndDelete(strings.Join(args, "\x00")); ok {
		original = v.([]string)
	}
	in, stdin, err := readInput(args, original, hc.Dir, hc.Stdin)
	if err != nil {
		fmt.Fprintf(hc.Stderr, "rein: %v\n", err)
		return interp.ExitStatus(126)
	}
	if d := r.decide(ctx, policy.Facts{Argv: args, Dir: hc.Dir, Starting: true, Input: in}); c.stops(d.Verdict) {
		return c.refuse(d)
	}
	if !c.started() {
		fmt.Fprintf(hc.Stderr, "rein: %s was not started: the command had ended\n", args[0])
		return interp.ExitStatus(126)
	}
	defer c.finished()
	return r.exec(ctx, args, stdin)
}

// open enforces the redirect rules on every file the shell opens, also as
// the file it reaches through symbolic links.
func (c *runChecks) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	r, hc := c.runner, interp.HandlerCtx(ctx)
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	res := r.policy.CheckOpen(path, write, hc.Dir)
	// Where the path leads is worked out once: what is checked is what
	// is opened, below.
	target := filepath.Clean(resolveIn(path, hc.Dir))
	real, linked := throughLinks(path, hc.Dir)
	if linked {
		target = real
	}
	if linked && res.Verdict != policy.Deny {
		if lr := r.policy.CheckOpen(real, write, hc.Dir); lr.Verdict == policy.Deny {
			res = lr
			res.Reason = fmt.Sprintf("%s leads to %s: %s", path, real, lr.Reason)
		}
	}
	if c.stops(res.Verdict) {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("refused by rein (rule %s: %s)", res.Rule, res.Reason)}
	}
	// rein opens the file itself, outside the sandbox: what it opens must
	// be what it checked, though a command may swap a link in meanwhile.
	if f, err, ok := openChecked(filepath.Clean(resolveIn(path, hc.Dir)), target, flag, perm); ok {
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return f, nil
	}
	return interp.DefaultOpenHandler()(ctx, path, flag, perm)
}
