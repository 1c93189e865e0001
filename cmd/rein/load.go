package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/version"
)

// loadRecipe compiles the recipe the global flags select.
func loadRecipe(g *Globals) (*recipe.Recipe, error) {
	return recipe.Load(recipe.Options{Dir: g.Dir, Recipe: g.Recipe, Preset: g.Preset, Version: version.String(), Verify: policy.CheckRules})
}

// loadPolicy compiles the selected recipe into a policy.
func loadPolicy(g *Globals, tool string) (*policy.Policy, error) {
	r, err := loadRecipe(g)
	if err != nil {
		return nil, err
	}
	return newPolicy(r, policy.Options{Tool: tool})
}

// newPolicy compiles a loaded recipe the way every command does: a
// verified recipe's rules are compiled when first needed, and the policy
// may ask git which scripts the repository tracks.
func newPolicy(r *recipe.Recipe, opts policy.Options) (*policy.Policy, error) {
	opts.RulesChecked = r.Verified
	opts.Tracked = runner.Tracked(r.Workspace)
	return policy.New(r, opts)
}

// openStore opens the session and audit database the flags select.
func openStore(g *Globals) (*store.Store, error) {
	return store.Open(dbPath(g))
}

// dbPath is --db, else $REIN_DB, else rein.db in rein's state folder (the
// one that also holds the approved recipes), else in the working folder.
func dbPath(g *Globals) string {
	switch state := recipe.StateDir(); {
	case g.DB != "":
		return g.DB
	case os.Getenv("REIN_DB") != "":
		return os.Getenv("REIN_DB")
	case state != "":
		return filepath.Join(state, "rein.db")
	}
	return "rein.db"
}

// pendingStore is the database being opened in the background: opening it
// costs about as much as loading and vetting, so `rein exec` does both at once.
type pendingStore struct {
	done chan struct{}
	st   *store.Store
	err  error
}

func openStoreAsync(g *Globals) *pendingStore {
	p := &pendingStore{done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.st, p.err = openStore(g)
	}()
	return p
}

// take waits for the open and hands over the store; the caller closes it.
func (p *pendingStore) take() (*store.Store, error) {
	<-p.done
	st, err := p.st, p.err
	p.st, p.err = nil, errors.New("the database was already used")
	return st, err
}

// discard closes the store if nobody took it.
func (p *pendingStore) discard() {
	<-p.done
	if p.st != nil {
		p.st.Close()
		p.st = nil
	}
}

// newRunner makes the runner for a policy with the recipe's sandbox; a
// warning (sandbox unavailable, recipe says warn) goes to stderr.
func newRunner(p *policy.Policy, e *env) (*runner.Runner, error) {
	cfg, warning, err := sandbox.FromRecipe(p.Recipe())
	if err != nil {
		return nil, err
	}
	if warning != "" {
		fmt.Fprintln(e.stderr, warning)
	}
	return runner.New(p, runner.Options{Sandbox: cfg}), nil
}
