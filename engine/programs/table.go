package programs

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// table.txt is the table, one program (or subcommand, or group of shared
// options) after another:
//
//	program sort gnu              a program and its grammar
//	sub git log gitrev numbers    a subcommand of a program
//	group diff                    options several specs include
//	alias egrep grep              a program read as another
//	common git status log diff    subcommands a refusal offers first
//	  -k --key =KEYDEF            an option: its names, then =X for a
//	                              required value, [=X] for an optional one,
//	                              =X =Y for a find primary's two words
//	  -o --output =FILE | writes writes the sorted lines to FILE
//	                              after |, its effects and why
//	  -m =MOD | last              the options end after this one (python -m)
//	  include diff                the options of a group
//
// "numbers" after the grammar: -NUM is an option (head -20).
//
//go:embed table.txt
var tableText string

type programTable struct {
	specs map[string]*Spec
}

// The table is read one program at a time, when a command first names it:
// reading all of it took about a millisecond and 800 KB of allocations, a
// sixth of a rein check, which names one or two programs. An index of
// where each program's lines are (its block, its subcommands', its common
// line, and the groups they include) is made once, without reading options.
// TestTable reads the whole table as one, with every check of its form.

// block is a span of tableText: a keyword line and the option lines below.
type block struct{ start, end int }

type tableIndex struct {
	programs map[string][]block // in table order
	groups   map[string]block
	aliases  map[string]string
}

var index = sync.OnceValue(func() *tableIndex {
	idx := &tableIndex{programs: map[string][]block{}, groups: map[string]block{}, aliases: map[string]string{}}
	curProgram, curGroup := "", ""
	end := func(at int) {
		if bs := idx.programs[curProgram]; curProgram != "" {
			bs[len(bs)-1].end = at // the slice shares the map value's array
		}
		if curGroup != "" {
			idx.groups[curGroup] = block{idx.groups[curGroup].start, at}
		}
		curProgram, curGroup = "", ""
	}
	for at := 0; at < len(tableText); {
		n := strings.IndexByte(tableText[at:], '\n')
		if n < 0 {
			n = len(tableText) - at
		}
		if line := tableText[at : at+n]; line != "" && line[0] != ' ' && line[0] != '#' {
			end(at)
			switch f := strings.Fields(line); {
			case (f[0] == "program" || f[0] == "sub" || f[0] == "common") && len(f) >= 2:
				curProgram = f[1]
				idx.programs[curProgram] = append(idx.programs[curProgram], block{start: at})
			case f[0] == "group" && len(f) == 2:
				curGroup = f[1]
				idx.groups[curGroup] = block{start: at}
			case f[0] == "alias" && len(f) == 3:
				idx.aliases[f[1]] = f[2]
			}
		}
		at += n + 1
	}
	end(len(tableText))
	return idx
})

// specs are the programs read so far, by name.
var specs struct {
	sync.Mutex
	m map[string]*Spec
}

// spec reads one program of the table (nil: the table has none by that
// name): its blocks, after the groups they include, parsed as a table of
// their own.
func spec(name string) *Spec {
	specs.Lock()
	defer specs.Unlock()
	if s, ok := specs.m[name]; ok {
		return s
	}
	if specs.m == nil {
		specs.m = map[string]*Spec{}
	}
	idx := index()
	target := name
	if to, ok := idx.aliases[name]; ok {
		target = to
	}
	var s *Spec
	if blocks := idx.programs[target]; len(blocks) > 0 {
		// The program's own lines now; each subcommand's when asked for.
		var own []block
		subBlocks, header := map[string]block{}, 0
		for _, b := range blocks {
			switch f := strings.Fields(tableText[b.start:min(b.end, b.start+200)]); f[0] {
			case "sub":
				subBlocks[f[2]] = b
				continue
			case "program":
				header = b.start
			}
			own = append(own, b)
		}
		s = parseBlocks(idx, own).specs[target]
		if len(subBlocks) > 0 {
			s.subBlocks, s.header = subBlocks, header
		}
		if prev, ok := specs.m[target]; ok {
			s = prev // an alias shares its program's spec, as in the table
		}
		specs.m[target] = s
	}
	specs.m[name] = s
	return s
}

// parseBlocks parses blocks of the table, after the groups they include,
// as a table of their own.
func parseBlocks(idx *tableIndex, blocks []block) *programTable {
	var text strings.Builder
	included := map[string]bool{}
	var include func(b block)
	include = func(b block) {
		for _, line := range strings.Split(tableText[b.start:b.end], "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "include" && !included[f[1]] {
				included[f[1]] = true
				g := idx.groups[f[1]]
				include(g) // a group may include another, defined above it
				text.WriteString(tableText[g.start:g.end])
			}
		}
	}
	for _, b := range blocks {
		include(b)
	}
	for _, b := range blocks {
		text.WriteString(tableText[b.start:b.end])
	}
	t, err := parseTable(text.String())
	if err != nil {
		panic("programs: table.txt: " + err.Error()) // TestTable reports it first
	}
	return t
}

// Subcommand is the spec of one of the program's subcommands (nil: the
// table has no such subcommand), read on first use.
func (s *Spec) Subcommand(name string) *Spec {
	if s.subBlocks == nil {
		return s.subs[name] // read with the whole table, or none
	}
	specs.Lock()
	defer specs.Unlock()
	if sub, ok := s.subs[name]; ok {
		return sub
	}
	b, ok := s.subBlocks[name]
	if !ok {
		return nil
	}
	// A sub line needs its program above it: the program's header line.
	header := block{s.header, s.header + strings.IndexByte(tableText[s.header:], '\n') + 1}
	sub := parseBlocks(index(), []block{header, b}).specs[s.Name].subs[name]
	if s.subs == nil {
		s.subs = map[string]*Spec{}
	}
	s.subs[name] = sub
	return sub
}

// HasSubcommands reports whether the program has subcommands.
func (s *Spec) HasSubcommands() bool { return len(s.subs) > 0 || len(s.subBlocks) > 0 }

// SubcommandNames lists the program's subcommands, sorted.
func (s *Spec) SubcommandNames() []string {
	names := map[string]bool{}
	for n := range s.subs {
		names[n] = true
	}
	for n := range s.subBlocks {
		names[n] = true
	}
	return slices.Sorted(maps.Keys(names))
}

// table reads the whole table (Names, and tests).
var table = sync.OnceValue(func() *programTable {
	t, err := parseTable(tableText)
	if err != nil {
		panic("programs: table.txt: " + err.Error()) // TestTable reports it first
	}
	return t
})

// parseTable reads the table's text.
func parseTable(text string) (*programTable, error) {
	t := &programTable{specs: map[string]*Spec{}}
	groups := map[string][]*Option{}
	var cur *Spec
	var curGroup string
	inGroup := false
	for n, line := range strings.Split(text, "\n") {
		fail := func(format string, args ...any) error {
			return fmt.Errorf("line %d: %s: %s", n+1, fmt.Sprintf(format, args...), strings.TrimSpace(line))
		}
		if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] == ' ') {
			line = line[:i]
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Fields(line)
		if line[0] != ' ' {
			inGroup, cur = false, nil
			switch f[0] {
			case "program", "sub":
				var name string
				rest := f[1:]
				var parent *Spec
				if f[0] == "sub" {
					if len(rest) < 3 {
						return nil, fail("sub needs a program, a name and a grammar")
					}
					parent = t.specs[rest[0]]
					if parent == nil {
						return nil, fail("sub of a program not defined above")
					}
					name, rest = rest[0]+" "+rest[1], rest[1:]
				} else {
					if len(rest) < 2 {
						return nil, fail("program needs a name and a grammar")
					}
					name = rest[0]
				}
				g, ok := grammarNames[rest[1]]
				if !ok {
					return nil, fail("unknown grammar %q", rest[1])
				}
				cur = &Spec{Name: name, Grammar: g}
				for _, a := range rest[2:] {
					if a != "numbers" {
						return nil, fail("unknown attribute %q", a)
					}
					cur.Numbers = true
				}
				if parent != nil {
					if parent.subs == nil {
						parent.subs = map[string]*Spec{}
					}
					if parent.subs[rest[0]] != nil {
						return nil, fail("subcommand defined twice")
					}
					parent.subs[rest[0]] = cur
				} else {
					if t.specs[name] != nil {
						return nil, fail("program defined twice")
					}
					t.specs[name] = cur
				}
			case "group":
				if len(f) != 2 {
					return nil, fail("group needs a name")
				}
				curGroup, inGroup = f[1], true
				groups[curGroup] = nil
			case "common":
				// common PROGRAM SUB...: the subcommands offered first
				// when a command is refused, most used first.
				if len(f) < 3 || t.specs[f[1]] == nil {
					return nil, fail("common needs a program defined above and its subcommands")
				}
				t.specs[f[1]].Common = f[2:]
			case "alias":
				if len(f) != 3 || t.specs[f[2]] == nil {
					return nil, fail("alias needs a name and a program defined above")
				}
				t.specs[f[1]] = t.specs[f[2]]
			default:
				return nil, fail("unknown keyword %q", f[0])
			}
			continue
		}
		if cur == nil && !inGroup {
			return nil, fail("an option outside a program or group")
		}
		var opts []*Option
		if f[0] == "include" {
			g, ok := groups[f[1]]
			if len(f) != 2 || !ok {
				return nil, fail("include of a group not defined above")
			}
			opts = g
		} else {
			o, err := parseOption(line)
			if err != nil {
				return nil, fail("%v", err)
			}
			opts = []*Option{o}
		}
		if inGroup {
			groups[curGroup] = append(groups[curGroup], opts...)
			continue
		}
		for _, o := range opts {
			if f[0] == "include" {
				// A program's own options, written before the include,
				// win: git shortlog -c is --committer, not the
				// walker's -c.
				o = cur.without(o)
				if o == nil {
					continue
				}
			}
			if err := cur.add(o); err != nil {
				return nil, fail("%v", err)
			}
		}
	}
	return t, nil
}

// parseOption reads one option line.
func parseOption(line string) (*Option, error) {
	spec, why, _ := strings.Cut(line, "|")
	o := &Option{}
	for _, f := range strings.Fields(spec) {
		switch {
		case strings.HasPrefix(f, "[="):
			o.Arity = Optional
		case strings.HasPrefix(f, "="):
			o.Arity = Required
			o.Args++
		case strings.HasPrefix(f, "-") && len(f) > 1:
			o.Names = append(o.Names, f)
		default:
			return nil, fmt.Errorf("%q is neither an option name nor a value", f)
		}
	}
	if len(o.Names) == 0 {
		return nil, fmt.Errorf("an option without a name")
	}
	if why = strings.TrimSpace(why); why != "" {
		effect, rest, _ := strings.Cut(why, " ")
		for _, e := range strings.Split(effect, ",") {
			if e == "last" {
				o.Last = true
				continue
			}
			found := false
			for _, n := range effectNames {
				if n.name == e {
					o.Effect |= n.e
					found = true
				}
			}
			if !found {
				return nil, fmt.Errorf("unknown effect %q", e)
			}
		}
		o.Why = strings.TrimSpace(rest)
		if o.Why == "" && o.Effect&^Wraps != 0 {
			return nil, fmt.Errorf("an effect without a reason")
		}
	}
	return o, nil
}

// without returns o less the names s has already (nil: none are left).
func (s *Spec) without(o *Option) *Option {
	var names []string
	for _, n := range o.Names {
		_, short := s.short[n[len(n)-1]]
		if len(n) == 2 && s.Grammar != Go && short || s.long[n] != nil {
			continue
		}
		names = append(names, n)
	}
	if len(names) == len(o.Names) {
		return o
	}
	if len(names) == 0 {
		return nil
	}
	c := *o
	c.Names = names
	return &c
}

// add indexes an option under its names.
func (s *Spec) add(o *Option) error {
	if s.short == nil {
		s.short, s.long = map[byte]*Option{}, map[string]*Option{}
	}
	s.Options = append(s.Options, o)
	for _, n := range o.Names {
		singleLetter := len(n) == 2 && n[0] == '-' && n[1] != '-'
		if singleLetter && s.Grammar != Go {
			if s.short[n[1]] != nil {
				return fmt.Errorf("%s is defined twice in %s", n, s.Name)
			}
			s.short[n[1]] = o
			continue
		}
		if s.long[n] != nil {
			return fmt.Errorf("%s is defined twice in %s", n, s.Name)
		}
		s.long[n] = o
		if strings.HasPrefix(n, "--") {
			s.longs = append(s.longs, n)
		}
	}
	return nil
}
