package runner

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
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
		if d := r.policy.In(hc.Dir).CheckFunctionCall(args); c.stops(d.Verdict) {
			return nil, c.refuse(d)
		}
		return args, nil
	}
	vars := scriptVars(hc.Env, c.base)
	if d := r.checkArgv(args, vars, hc.Dir); c.stops(d.Verdict) {
		if len(vars) > 0 && !c.stops(r.checkArgv(args, nil, hc.Dir).Verdict) {
			d.Reason += fmt.Sprintf(" (%s receives %s, which the script set)", args[0], strings.Join(slices.Sorted(maps.Keys(vars)), ", "))
		}
		return nil, c.refuse(d)
	}
	guarded, refused := r.guardWalk(args, hc.Dir)
	if refused != nil {
		return nil, c.refuse(refused)
	}
	if !slices.Equal(guarded, args) {
		c.originals.Store(strings.Join(guarded, "\x00"), args)
	}
	return guarded, nil
}

// guardWalk returns argv with the exclusions that keep a walking program
// off files named like secrets (policy.GuardSearch), or a denial when the
// walk cannot be guarded.
func (r *Runner) guardWalk(argv []string, dir string) ([]string, *policy.Decision) {
	guarded, err := r.policy.GuardSearch(argv, statIn(dir))
	if err != nil {
		return nil, pathsDenial(argv, "%s", err)
	}
	return r.excludeInRepository(guarded, dir), nil
}

// excludeInRepository adds to a guarded git command the secret places
// inside its repository's working tree (policy.SecretsUnder): a home folder
// kept in git has committed .aws/credentials, not only .env files.
func (r *Runner) excludeInRepository(argv []string, dir string) []string {
	folder, ok := shellparse.GuardedGitFolder(argv)
	if !ok {
		return argv
	}
	top := workingTree(resolveIn(folder, dir))
	if top == "" {
		return argv
	}
	return shellparse.WithRepositoryExclusions(argv, r.policy.SecretsUnder(top))
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

// exec starts a program, after checking what it reads that its argv does
// not say (guardStart).
func (c *runChecks) exec(ctx context.Context, args []string) error {
	r, hc := c.runner, interp.HandlerCtx(ctx)
	original := args
	if v, ok := c.originals.LoadAndDelete(strings.Join(args, "\x00")); ok {
		original = v.([]string)
	}
	stdin, refused, err := r.guardStart(ctx, args, original, hc.Dir, hc.Stdin)
	switch {
	case refused != nil:
		return c.refuse(refused)
	case err != nil:
		fmt.Fprintf(hc.Stderr, "rein: %v\n", err)
		return interp.ExitStatus(126)
	}
	return r.exec(ctx, args, stdin)
}

// guardStart checks what a program about to start reads that its argv does
// not say (original is argv as the script wrote it, before rein added
// exclusions): file names on its input (xargs, sort --files0-from=-), objects
// it names by id (git show ID) and response files (strings @FILE). It
// returns the reader the program gets instead of stdin (nil: stdin), a
// denial, or why the input could not be checked.
func (r *Runner) guardStart(ctx context.Context, argv, original []string, dir string, stdin io.Reader) (io.Reader, *policy.Decision, error) {
	guarded, refused, err := r.guardNameInput(ctx, argv, original, dir, stdin)
	if refused != nil || err != nil {
		return nil, refused, err
	}
	if d := r.guardGitObjects(ctx, argv, dir, nil); d != nil {
		return nil, d, nil
	}
	if d := r.guardResponseFiles(argv, dir); d != nil {
		return nil, d, nil
	}
	return guarded, nil, nil
}

// open enforces the redirect rules on every file the shell opens, also as
// the file it reaches through symbolic links.
func (c *runChecks) open(ctx context.Context, path string, flag int, perm os.FileMode) (io.ReadWriteCloser, error) {
	r, hc := c.runner, interp.HandlerCtx(ctx)
	write := flag&(os.O_WRONLY|os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_TRUNC) != 0
	res := r.policy.CheckOpen(path, write, hc.Dir)
	if real, linked := throughLinks(path, hc.Dir); linked && res.Verdict != policy.Deny {
		if lr := r.policy.CheckOpen(real, write, hc.Dir); lr.Verdict == policy.Deny {
			res = lr
			res.Reason = fmt.Sprintf("%s leads to %s: %s", path, real, lr.Reason)
		}
	}
	if c.stops(res.Verdict) {
		return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("refused by rein (rule %s: %s)", res.Rule, res.Reason)}
	}
	return interp.DefaultOpenHandler()(ctx, path, flag, perm)
}
