package policy

import (
	"maps"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/recipe"
)

// flagSet is a list of flag patterns compiled for fast lookups: exact
// tokens in a map, single letters (-x) in a bitmap, globs with prefixes.
type flagSet struct {
	exact map[string]string
	short byteSet // c is set when -c is in the set
	globs globSet
	list  []string // as written, for messages
	// longs are the --names in the set (--file of --file=* too), which an
	// abbreviation stands for: GNU getopt_long and git's parse-options
	// take --in-pl for --in-place, so sed --in-pl edits in place.
	longs []string
	// words: the set names a -name of several letters (go's -exec, find's
	// -delete), so the program's flags are single-dash words, not clusters
	// of letters: go test -count=1 is not -c -o -u -n -t.
	words bool
	// allowed ends a message about a flag not in the set.
	allowed string
}

// byteSet is a set of bytes: 32 bytes, where a table of the patterns
// themselves took 4 KiB per set and missed the cache on every lookup.
type byteSet [4]uint64

func (b *byteSet) add(c byte)      { b[c/64] |= 1 << (c % 64) }
func (b *byteSet) has(c byte) bool { return b[c/64]&(1<<(c%64)) != 0 }

func newFlagSet(patterns []string) *flagSet {
	if patterns == nil {
		return nil
	}
	f := &flagSet{exact: map[string]string{}, list: patterns, allowed: listOf("; allowed: ", patterns)}
	var globs []string
	for _, p := range patterns {
		if long := longName(p); long != "" && !slices.Contains(f.longs, long) {
			f.longs = append(f.longs, long)
		}
		if name, _, _ := strings.Cut(p, "="); len(name) > 2 && name[0] == '-' && name[1] != '-' && !strings.ContainsAny(name, "*?[") {
			f.words = true
		}
		switch {
		case strings.ContainsAny(p, "*?["):
			globs = append(globs, p)
		default:
			f.exact[p] = p
			if len(p) == 2 && p[0] == '-' {
				f.short.add(p[1])
			}
		}
	}
	f.globs = newGlobSet(globs)
	return f
}

func (f *flagSet) match(tok string) (string, bool) {
	if len(tok) == 2 && tok[0] == '-' {
		// -x is exactly in the set when its letter is: no map lookup for
		// the commonest flag.
		if f.short.has(tok[1]) {
			return tok, true // the pattern is the token
		}
		return f.globs.match(tok)
	}
	if p, ok := f.exact[tok]; ok {
		return p, true
	}
	return f.globs.match(tok)
}

// longName is the --name a flag pattern denies ("--file" of "--file=*"),
// or "".
func longName(pattern string) string {
	if !strings.HasPrefix(pattern, "--") {
		return ""
	}
	name := pattern
	if i := strings.IndexAny(name, "=*?["); i >= 0 {
		name = name[:i]
	}
	if len(name) <= 2 {
		return ""
	}
	return name
}

// denies reports whether a flag token is denied: as written, by its --name
// or an abbreviation of one (--in-pl for --in-place), by its single-dash
// spelling (Go's flag package reads --exec as -exec), by its -name before
// =VALUE (-exec=sh), or by any letter of a short cluster (-rf is denied by
// -f). Spellings a program does not take are denied too: it would refuse
// them anyway, and rein cannot know each program's own list.
func (f *flagSet) denies(tok string) (string, bool) {
	if f == nil {
		return "", false
	}
	if p, ok := f.match(tok); ok {
		return p, true
	}
	name, _, valued := strings.Cut(tok, "=")
	if valued {
		if p, ok := f.match(name); ok {
			return p, true
		}
	}
	if strings.HasPrefix(tok, "--") {
		for _, long := range f.longs {
			if spells(tok, long) {
				return long, true
			}
		}
		if p, ok := f.match(tok[1:]); ok {
			return p, true
		}
		if valued {
			return f.match(name[1:])
		}
		return "", false
	}
	if f.words {
		return "", false
	}
	for i := 1; i < len(tok); i++ {
		if f.short.has(tok[i]) {
			return "-" + tok[i:i+1], true
		}
	}
	return "", false
}

// allows reports whether a flag token is allowed: as written, by its
// --name, or every letter of a short cluster. A nil set allows any flag.
func (f *flagSet) allows(tok string) bool {
	if f == nil {
		return true
	}
	if _, ok := f.match(tok); ok {
		return true
	}
	if strings.HasPrefix(tok, "--") {
		name, _, _ := strings.Cut(tok, "=")
		_, ok := f.match(name)
		return ok
	}
	for i := 1; i < len(tok); i++ {
		if f.short.has(tok[i]) {
			continue
		}
		if len(f.globs) == 0 {
			return false
		}
		if _, ok := f.globs.match("-" + tok[i:i+1]); !ok {
			return false
		}
	}
	return true
}

// program is a recipe program with its flag patterns compiled.
type program struct {
	*recipe.Program
	rule  string
	deny  *flagSet
	flags *flagSet
	subs  map[string]*subcommand
	// allowedGlobals and allowedSubs end the messages of commands that
	// miss them ("; allowed: log, show, …"): written once, not per denial.
	allowedGlobals string
	allowedSubs    string
}

// takesSubcommands reports whether the program's rules name subcommands:
// then its first word after the global flags is one.
func (prog *program) takesSubcommands() bool {
	return len(prog.Subcommands) > 0 || len(prog.DenySubcommands) > 0 || len(prog.AskSubcommands) > 0
}

type subcommand struct {
	*recipe.Subcommand
	deny  *flagSet
	flags *flagSet
}

func compileProgram(name string, p *recipe.Program) *program {
	cp := &program{Program: p, rule: "programs." + name, deny: newFlagSet(nonNil(p.DenyFlags)), flags: newFlagSet(p.Flags), subs: map[string]*subcommand{},
		allowedGlobals: listOf("; allowed: ", slices.Sorted(maps.Keys(p.GlobalFlags))),
		allowedSubs:    listOf("; allowed: ", slices.Sorted(maps.Keys(p.Subcommands)))}
	for sname, s := range p.Subcommands {
		if s == nil {
			s = &recipe.Subcommand{}
		}
		cp.subs[sname] = &subcommand{Subcommand: s, deny: newFlagSet(nonNil(s.DenyFlags)), flags: newFlagSet(s.Flags)}
	}
	return cp
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}
