package policy

import (
	"sync"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

// nameTable is what a policy knows about each command name, found with one
// lookup per simple command: the program's rules (compiled when a command
// first names it: a recipe lists dozens, a command uses one or two, and
// compiling them all was a quarter of starting a policy), the each-rules
// whose guard may let the name through, and the catalog entries it starts.
type nameTable struct {
	byName map[string]*nameEntry
	// other is the entry of every name the recipe does not mention.
	other nameEntry
}

type nameEntry struct {
	// program, when the recipe has one by this name.
	src  *recipe.Program
	once sync.Once
	prog *program
	// each lists the each-rules that may match the name, in recipe order.
	each []*compiledRule
	// catalog lists the catalog entries whose first token is the name.
	catalog []catalogEntry
	// walks: running the program, rein may refuse the walk it makes
	// (shellparse.WalkMayRefuse), which vetting then says.
	walks bool
}

func newNameTable(progs map[string]*recipe.Program, each []*compiledRule, catalog map[string][]catalogEntry) *nameTable {
	t := &nameTable{byName: make(map[string]*nameEntry, len(progs)+len(catalog))}
	// Entries come from one block: this runs in every rein process.
	var slab []nameEntry
	entry := func(name string) *nameEntry {
		e := t.byName[name]
		if e == nil {
			if len(slab) == cap(slab) {
				slab = make([]nameEntry, 0, max(16, len(progs)+len(catalog)))
			}
			slab = slab[:len(slab)+1]
			e = &slab[len(slab)-1]
			e.walks = shellparse.WalkMayRefuse(name)
			t.byName[name] = e
		}
		return e
	}
	for name, p := range progs {
		entry(name).src = p
	}
	for name, entries := range catalog {
		entry(name).catalog = entries
	}
	for _, r := range each {
		for name := range r.guards.names {
			entry(name)
		}
	}
	for _, r := range each {
		if r.guards.names == nil {
			t.other.each = append(t.other.each, r)
		}
		for name, e := range t.byName {
			if r.guards.names == nil || r.guards.names[name] {
				e.each = append(e.each, r)
			}
		}
	}
	return t
}

// get returns the entry for name (never nil).
func (t *nameTable) get(name string) *nameEntry {
	if e, ok := t.byName[name]; ok {
		return e
	}
	return &t.other
}

// compiled is the entry's program, compiled on first use, if it has one.
func (e *nameEntry) compiled(name string) (*program, bool) {
	if e.src == nil {
		return nil, false
	}
	e.once.Do(func() { e.prog = compileProgram(name, e.src) })
	return e.prog, true
}
