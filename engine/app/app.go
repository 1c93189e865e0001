// Package app assembles what a rein command works with — the recipe the
// flags select, what the approvals say of it, the policy, the session and
// audit store, the runner and the tool set — in one place, so that rein
// ask, mcp, exec, run, check and the hook adapters build them alike. The
// command line only maps its flags to Options and prints; the engine
// packages each own one part.
package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/tools"
	"github.com/reinsh/rein/engine/trust"
	"github.com/reinsh/rein/engine/version"
)

// Options select the recipe and the database: the flags every command
// shares.
type Options struct {
	// Dir is where recipe discovery starts ("": the working folder).
	Dir string
	// Recipe is a file merged over the discovered recipes.
	Recipe string
	// Preset replaces the user and repository recipes with a built-in one.
	Preset string
	// DB is the session and audit database ("": DBPath's default).
	DB string
}

// LoadRecipe compiles the recipe the options select.
func (o Options) LoadRecipe() (*recipe.Recipe, error) {
	return recipe.Load(recipe.Options{Dir: o.Dir, Recipe: o.Recipe, Preset: o.Preset, Version: version.String(), Verify: policy.CheckRules})
}

// LoadPolicy compiles the selected recipe into a policy; tool is what
// decides with it (rules see it as tool).
func (o Options) LoadPolicy(tool string) (*policy.Policy, error) {
	r, err := o.LoadRecipe()
	if err != nil {
		return nil, err
	}
	return NewPolicy(r, policy.Options{Tool: tool})
}

// NewPolicy compiles a loaded recipe the way every command does: a
// verified recipe's rules are compiled when first needed, and the policy
// may ask git which scripts the repository tracks.
func NewPolicy(r *recipe.Recipe, opts policy.Options) (*policy.Policy, error) {
	opts.RulesChecked = r.Verified
	opts.Tracked = runner.Tracked(r.Workspace)
	if opts.CacheDir == "" {
		opts.CacheDir = recipe.CacheDir()
	}
	return policy.New(r, opts)
}

// Sandbox builds the sandbox a recipe asks for, on this kernel.
func Sandbox(r *recipe.Recipe) (*sandbox.Config, string, error) {
	return SandboxWith(r, sandbox.Probe())
}

// SandboxWith is Sandbox on a kernel of status st.
func SandboxWith(r *recipe.Recipe, st sandbox.Status) (*sandbox.Config, string, error) {
	o := sandbox.Options{
		Mode: r.Sandbox.Mode, NetworkDeny: r.Sandbox.Network == "deny" || r.Sandbox.Network == "granted", Unavailable: r.Sandbox.Unavailable,
		Workspace: r.Workspace,
		Limits:    sandbox.Limits{CPUSeconds: r.Limits.CPUSeconds, FileSize: r.Limits.FileSizeBytes, Processes: r.Limits.Processes, AddressSpace: r.Limits.AddressSpaceBytes},
		Deny:      r.Paths.Deny, Sockets: r.Sandbox.Sockets,
		ToolConfig: recipe.ToolConfig, OwnFolders: recipe.OwnFolders(),
		CacheDir: recipe.CacheDir(), Untracked: runner.Untracked(r.Workspace),
		HiddenWritable: func(rel string) bool { return recipe.HiddenWritableAt(rel, r.Sandbox.HiddenWrite) },
		GitWrites:      recipe.GitWrites,
	}
	if r.GrantedReads() {
		home, _ := os.UserHomeDir()
		o.Reads = r.ReadRoots(home, os.Getenv)
	}
	for _, w := range r.Sandbox.Write {
		if w, ok := recipe.ExpandWorkspaceCache(w, r.Workspace); ok {
			o.Write = append(o.Write, w)
		}
	}
	return sandbox.New(o, st)
}

// NewRunner makes the runner for a policy, in the recipe's sandbox; a
// warning (no sandbox here, and the recipe says warn) goes to warn.
func NewRunner(p *policy.Policy, warn io.Writer) (*runner.Runner, error) {
	cfg, warning, err := Sandbox(p.Recipe())
	if err != nil {
		return nil, err
	}
	if warning != "" && warn != nil {
		fmt.Fprintln(warn, warning)
	}
	return runner.New(p, runner.Options{Sandbox: cfg}), nil
}

// Run is what a command that runs things works with: the policy (and
// through it the recipe) and the runner that enforces it.
type Run struct {
	Policy *policy.Policy
	Runner *runner.Runner
}

// Assemble builds the policy and the runner for a loaded recipe.
func Assemble(r *recipe.Recipe, opts policy.Options, warn io.Writer) (*Run, error) {
	p, err := NewPolicy(r, opts)
	if err != nil {
		return nil, err
	}
	run, err := NewRunner(p, warn)
	if err != nil {
		return nil, err
	}
	return &Run{Policy: p, Runner: run}, nil
}

// Tools is the tool set a model is given over this run.
func (a *Run) Tools(opts tools.Options) *tools.Set { return tools.NewSet(a.Policy, a.Runner, opts) }

// DBPath is the database: DB, else $REIN_DB, else rein.db in rein's state
// folder (the one that also holds the approved recipes), else in the
// working folder.
func (o Options) DBPath() string {
	switch state := recipe.StateDir(); {
	case o.DB != "":
		return o.DB
	case os.Getenv("REIN_DB") != "":
		return os.Getenv("REIN_DB")
	case state != "":
		return filepath.Join(state, "rein.db")
	}
	return "rein.db"
}

// OpenStore opens the session and audit database.
func (o Options) OpenStore() (*store.Store, error) { return store.Open(o.DBPath()) }

// PendingStore is the database being opened in the background: opening it
// costs about as much as loading and vetting, so rein exec does both at once.
type PendingStore struct {
	done chan struct{}
	st   *store.Store
	err  error
}

// OpenStoreAsync starts opening the database.
func (o Options) OpenStoreAsync() *PendingStore {
	p := &PendingStore{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.st, p.err = o.OpenStore()
	}()
	return p
}

// Take waits for the open and hands over the store; the caller closes it.
func (p *PendingStore) Take() (*store.Store, error) {
	<-p.done
	st, err := p.st, p.err
	p.st, p.err = nil, errors.New("the database was already used")
	return st, err
}

// Discard closes the store if nobody took it.
func (p *PendingStore) Discard() {
	<-p.done
	if p.st != nil {
		p.st.Close()
		p.st = nil
	}
}

// Approval is the repository recipe as it is now, and what the approvals
// say of it.
type Approval struct {
	Path        string // the repository's rein.jsonnet
	Fingerprint string // of it, its imports and the scripts it names
	Files       []string
	Record      *trust.Record
	State       trust.State
}

// OpenApprovals opens the approvals (trust.Path), whatever the database.
func OpenApprovals() (*trust.Record, error) {
	path := trust.Path()
	if path == "" {
		return nil, errors.New("rein has no state folder to keep approved recipes in (no home folder and no XDG_STATE_HOME); set XDG_STATE_HOME")
	}
	return trust.Open(path)
}

// CheckApproval looks the repository recipe the loaded recipe was merged
// from up in the approvals; nil when there is none (no rein.jsonnet, or a
// preset in its place).
func CheckApproval(r *recipe.Recipe) (*Approval, error) {
	path, ok := r.Repository()
	if !ok {
		return nil, nil
	}
	a := &Approval{Path: path}
	var err error
	if a.Record, err = OpenApprovals(); err != nil {
		return nil, err
	}
	if a.Fingerprint, a.Files, err = trust.Fingerprint(path, r.Imports, r.Scripts); err != nil {
		return nil, err
	}
	a.State = a.Record.State(path, a.Fingerprint)
	return a, nil
}

// Why says why an unapproved recipe is not approved.
func (a *Approval) Why() string {
	switch a.State {
	case trust.New:
		return "rein has not seen it on this machine"
	case trust.Changed:
		return "it (or a file it imports) changed since it was approved"
	}
	return ""
}

// Approve records the recipe as it is now as approved.
func (a *Approval) Approve() error { return a.Record.Trust(a.Path, a.Fingerprint, a.Files) }

// CIApproves: with CI=true, the repository's recipe counts as approved (a
// CI job has no one to ask, and runs the repository's own code anyway).
func CIApproves() bool {
	v := strings.ToLower(os.Getenv("CI"))
	return v == "true" || v == "1"
}
