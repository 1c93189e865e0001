// Package programs is what rein knows about the programs it models, as
// data: how each one reads its arguments (its grammar), which options it
// has, which of them take a value, and what each option does that a policy
// cares about (reads a file, writes one, runs a program, takes code, starts
// a helper). The table is table.txt; Parse reads an argv the way the program
// itself would.
//
// The package gathers facts and decides nothing: the policy turns "sort -o
// writes a file" into a verdict. A program or option the table does not
// know is reported as unknown, never guessed at.
package programs

import (
	"fmt"
	"slices"
	"strings"
)

// Grammar is the way a program reads its options.
type Grammar uint8

const (
	// GNU is getopt_long with permutation: options may follow operands,
	// letters cluster (-rn), a letter's required value is the rest of the
	// word or else the next word whatever it is (-k -- is -k with the value
	// --), an optional value is only attached (-i.bak, --in-place=.bak),
	// long options take any unambiguous abbreviation, -- ends the options.
	GNU Grammar = iota
	// POSIX is getopt without permutation: the first operand ends the
	// options (env, timeout, nice, xargs: the rest is the command).
	POSIX
	// Git is git's parse-options: as GNU, plus --no-NAME for a long
	// option's negation (and its abbreviations).
	Git
	// GitRevisions is git's revision walkers (log, show, diff, rev-list):
	// the first -- anywhere ends the options before any option reads it
	// as a value, and the options are otherwise read as Git's.
	GitRevisions
	// Go is Go's flag package: -name and --name alike, -name=V or -name V
	// (V may be --), booleans take only -name=V; the first operand or --
	// ends the options; no clusters.
	Go
	// Find is find's: -H -L -P -D -O first, then the starting points,
	// then an expression of primaries, each a single-dash word with a
	// fixed number of arguments (-exec's run to ; or +).
	Find
)

var grammarNames = map[string]Grammar{"gnu": GNU, "posix": POSIX, "git": Git, "gitrev": GitRevisions, "go": Go, "find": Find}

func (g Grammar) String() string {
	for name, v := range grammarNames {
		if v == g {
			return name
		}
	}
	return fmt.Sprintf("grammar(%d)", g)
}

// Effect is a set of things an option makes its program do.
type Effect uint16

const (
	// Reads: the option's value names a file the program reads.
	Reads Effect = 1 << iota
	// Writes: the program writes a file (the option's value, or files
	// the option itself does not name, as sed -i and find -delete).
	Writes
	// Runs: the program runs another program that rein never sees (sort
	// --compress-program, rg --pre, find -fprint's kin do not).
	Runs
	// Code: the option is program text, or a file of it, that rein does
	// not read (awk -f, gawk -e).
	Code
	// Helper: the program starts a helper chosen by configuration rather
	// than by the command (git --paginate's pager, --textconv, --ext-diff).
	Helper
	// Wraps: the program runs a command given in its arguments (find
	// -exec, xargs): rein vets that command as one of its own.
	Wraps
	// Input: the program reads names, code or answers from standard input or
	// the terminal, which rein does not see (gawk -D, git log --stdin).
	Input
)

var effectNames = []struct {
	name string
	e    Effect
}{{"reads", Reads}, {"writes", Writes}, {"runs", Runs}, {"code", Code}, {"helper", Helper}, {"wraps", Wraps}, {"input", Input}}

func (e Effect) String() string {
	var out []string
	for _, n := range effectNames {
		if e&n.e != 0 {
			out = append(out, n.name)
		}
	}
	return strings.Join(out, ",")
}

// Arity is how an option takes its value.
type Arity uint8

const (
	// NoValue: a flag.
	NoValue Arity = iota
	// Required: the rest of the word, or else the next word.
	Required
	// Optional: only a value attached to the word (-i.bak, --color=auto).
	Optional
)

// Option is one option of a program, under all its names.
type Option struct {
	Names  []string // "-o", "--output"
	Arity  Arity
	Args   int // words a find primary takes (Required: 1 or more)
	Effect Effect
	// Why says what the effect is, for messages: "writes the sorted lines
	// to FILE".
	Why string
	// Last: the options end with this one; the words after it (and its
	// value) are operands (python -m MOD ARGS, -c CMD ARGS).
	Last bool
}

// Name is the option's first long name, else its first name: what
// messages call it.
func (o *Option) Name() string {
	for _, n := range o.Names {
		if strings.HasPrefix(n, "--") {
			return n
		}
	}
	return o.Names[0]
}

// Spec is one program (or one subcommand of one).
type Spec struct {
	Name    string // "sort", "git log"
	Grammar Grammar
	Options []*Option
	// subs are the subcommands of a program that has them (git), read
	// when first asked for (Subcommand); the options above are then the
	// ones before the subcommand. subBlocks are where the table has the
	// ones not read yet.
	subs      map[string]*Spec
	subBlocks map[string]block
	header    int // where the program's own line is in the table
	// Common are the subcommands a refusal offers first, most used first.
	Common []string
	// Numbers: -NUM is an option (head -20, grep -3, git log -5).
	Numbers bool

	short map[byte]*Option
	long  map[string]*Option // "--output", and a Go/find program's "-name"
	longs []string           // the long names, for abbreviations
}

// Given is one option as a command gives it.
type Given struct {
	Option  *Option // nil: an option the table does not know
	Written string  // as written: "-o", "--out", "-ko" names -o's word
	Value   string
	// HasValue: Value was given (an optional value may not be).
	HasValue bool
	// Negated: git's --no-NAME, which turns the option off: none of its
	// effects apply.
	Negated bool
	// Next: the value is the word after the option's (Value's index is
	// At+1), not written in it.
	Next bool
	At   int // the index, in the words parsed, of the option's word
}

// Effect is what the option given makes the program do.
func (g *Given) Effect() Effect {
	if g.Option == nil || g.Negated {
		return 0
	}
	return g.Option.Effect
}

// Parsed is an argv read by a program's grammar.
type Parsed struct {
	Spec    *Spec // the subcommand's spec when there is one
	Sub     string
	SubAt   int // the index of Sub among the words parsed
	Options []Given
	// Operands are the words that are neither options nor their values,
	// with their indexes in the words parsed.
	Operands []Operand
	// Unknown are the options, as written, that the table does not know.
	Unknown []string
	// Ambiguous are long options short for several of the program's.
	Ambiguous []string
}

// Operand is one operand and where it stands.
type Operand struct {
	Value string
	At    int
}

// Has reports whether the command gives an option with one of names.
func (p *Parsed) Has(names ...string) bool {
	for _, g := range p.Options {
		if g.Option != nil && slices.ContainsFunc(g.Option.Names, func(n string) bool { return slices.Contains(names, n) }) {
			return true
		}
	}
	return false
}

// Effects is every effect of the options given.
func (p *Parsed) Effects() Effect {
	var e Effect
	for i := range p.Options {
		e |= p.Options[i].Effect()
	}
	return e
}

// Lookup returns the table's spec for a program by its base name, or nil.
func Lookup(name string) *Spec {
	if s := spec(name); s != nil {
		return s
	}
	// python3.12 is python.
	if base := strings.TrimRight(name, "0123456789."); base != name && base != "" {
		return spec(base)
	}
	return nil
}

// Names lists the programs of the table, sorted.
func Names() []string {
	t := table()
	return slices.Sorted(func(yield func(string) bool) {
		for n := range t.specs {
			if !yield(n) {
				return
			}
		}
	})
}

// Parse reads args (the words after the program name) as the program
// does. A program with subcommands reads its options up to the subcommand,
// then the subcommand's; a subcommand the table does not have leaves its
// words unread (Parsed.Spec is the program's, Sub is set, Operands hold
// the rest).
func (s *Spec) Parse(args []string) *Parsed {
	p := &Parsed{}
	s.ParseInto(args, p)
	return p
}

// ParseInto is Parse into p, whose lists it reuses: a caller parsing
// command after command keeps one Parsed.
func (s *Spec) ParseInto(args []string, p *Parsed) {
	*p = Parsed{Spec: s, Options: p.Options[:0], Operands: p.Operands[:0], Unknown: p.Unknown[:0], Ambiguous: p.Ambiguous[:0]}
	if !s.HasSubcommands() {
		s.parse(args, 0, p)
		return
	}
	// Options before the subcommand end at the first operand.
	n := s.parseUntilOperand(args, p)
	p.Operands = p.Operands[:0]
	if n >= len(args) {
		return
	}
	p.Sub, p.SubAt = args[n], n
	sub := s.Subcommand(p.Sub)
	if sub == nil {
		for i := n + 1; i < len(args); i++ {
			p.Operands = append(p.Operands, Operand{args[i], i})
		}
		return
	}
	p.Spec = sub
	sub.parse(args[n+1:], n+1, p)
}

// parseUntilOperand reads options until the first operand, which it does
// not take, and returns its index (len(args) when there is none).
func (s *Spec) parseUntilOperand(args []string, p *Parsed) int {
	return s.parseWords(args, 0, p, POSIX)
}

// parse reads words as s's grammar does into p (indexes offset by base).
// For POSIX and Go it stops at the first operand and returns its index.
func (s *Spec) parse(args []string, base int, p *Parsed) int {
	if s.Grammar == Find {
		s.parseFind(args, base, p)
		return len(args)
	}
	if s.Grammar == GitRevisions {
		i := slices.Index(args, "--")
		if i < 0 {
			return s.parseWords(args, base, p, Git)
		}
		// The revision walker cuts the words at the first -- before any
		// option sees them; but git log reads some options of its own
		// first (-L, --decorate-refs), which take a -- after them as
		// their value, and the walker then reads the words after it as
		// options. Where the word before the -- may take it so, both
		// readings count: the options of one, the operands of both.
		cut := &Parsed{}
		s.parseWords(args[:i], base, cut, Git)
		p.Options, p.Unknown, p.Ambiguous = append(p.Options, cut.Options...), append(p.Unknown, cut.Unknown...), append(p.Ambiguous, cut.Ambiguous...)
		p.Operands = append(p.Operands, cut.Operands...)
		for j := i + 1; j < len(args); j++ {
			p.Operands = append(p.Operands, Operand{args[j], base + j})
		}
		if n := len(cut.Options); n > 0 && cut.Options[n-1].At == base+i-1 && cut.Options[n-1].Option != nil &&
			cut.Options[n-1].Option.Arity == Required && !cut.Options[n-1].HasValue {
			whole := &Parsed{}
			s.parseWords(args, base, whole, Git)
			for _, g := range whole.Options {
				if g.At > base+i {
					p.Options = append(p.Options, g)
				}
			}
			for _, u := range whole.Unknown {
				if !slices.Contains(p.Unknown, u) {
					p.Unknown = append(p.Unknown, u)
				}
			}
		}
		return len(args)
	}
	return s.parseWords(args, base, p, s.Grammar)
}

func (s *Spec) parseWords(args []string, base int, p *Parsed, g Grammar) int {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			for j := i + 1; j < len(args); j++ {
				p.Operands = append(p.Operands, Operand{args[j], base + j})
			}
			return len(args)
		case len(w) < 2 || w[0] != '-':
			if g == POSIX || g == Go {
				for j := i; j < len(args); j++ {
					p.Operands = append(p.Operands, Operand{args[j], base + j})
				}
				return i
			}
			p.Operands = append(p.Operands, Operand{w, base + i})
		case g == Go:
			i = s.goOption(args, i, base, p)
		case strings.HasPrefix(w, "--"):
			i = s.longOption(args, i, base, p, g)
		default:
			i = s.shortOptions(args, i, base, p)
		}
		if n := len(p.Options); n > 0 && p.Options[n-1].Option != nil && p.Options[n-1].Option.Last && p.Options[n-1].At == base+i-boolInt(p.Options[n-1].Next) {
			for j := i + 1; j < len(args); j++ {
				p.Operands = append(p.Operands, Operand{args[j], base + j})
			}
			return len(args)
		}
	}
	return len(args)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// next returns the word after i as a value, if there is one.
func next(args []string, i int) (string, bool) {
	if i+1 < len(args) {
		return args[i+1], true
	}
	return "", false
}

func (s *Spec) longOption(args []string, i, base int, p *Parsed, g Grammar) int {
	w := args[i]
	written, value, hasValue := strings.Cut(w, "=")
	o, negated, ok := s.resolveLong(written, g)
	if o == nil {
		if ok { // several options start so
			p.Ambiguous = append(p.Ambiguous, w)
		}
		p.Unknown = append(p.Unknown, w)
		p.Options = append(p.Options, Given{Written: written, Value: value, HasValue: hasValue, At: base + i})
		return i
	}
	given := Given{Option: o, Written: written, Value: value, HasValue: hasValue, Negated: negated, At: base + i}
	if o.Arity == Required && !hasValue && !negated {
		given.Value, given.HasValue = next(args, i)
		if given.HasValue {
			given.Next = true
			i++
		}
	}
	// jq --arg NAME VALUE: the words after the first are values too; the
	// last (a file, for --rawfile) is what a policy checks.
	for k := 1; k < o.Args && i+1 < len(args); k++ {
		i++
		given.Value = args[i]
	}
	p.Options = append(p.Options, given)
	return i
}

// resolveLong finds the option a written --name stands for: the option of
// that name, the one option it abbreviates, or (git) a --no-NAME negation.
// ambiguous reports a name short for several options.
func (s *Spec) resolveLong(written string, g Grammar) (o *Option, negated, ambiguous bool) {
	if o, ok := s.long[written]; ok {
		return o, false, false
	}
	o, ambiguous = s.abbreviated(written)
	if o != nil || ambiguous || g != Git {
		return o, false, ambiguous
	}
	// parse-options: --no-NAME (or an abbreviation of it) turns NAME off.
	if rest, ok := strings.CutPrefix(written, "--no-"); ok {
		o, ambiguous = s.abbreviated("--" + rest)
		if o, ok := s.long["--"+rest]; ok {
			return o, true, false
		}
		return o, o != nil, ambiguous
	}
	return nil, false, false
}

// abbreviated finds the one option whose long name starts with written.
func (s *Spec) abbreviated(written string) (o *Option, ambiguous bool) {
	for _, n := range s.longs {
		if strings.HasPrefix(n, written) {
			if o != nil && o != s.long[n] {
				return nil, true
			}
			o = s.long[n]
		}
	}
	return o, false
}

func (s *Spec) shortOptions(args []string, i, base int, p *Parsed) int {
	w := args[i]
	if s.Numbers && isNumber(w[1:]) {
		p.Options = append(p.Options, Given{Option: numberOption, Written: w, Value: w[1:], HasValue: true, At: base + i})
		return i
	}
	for j := 1; j < len(w); j++ {
		c := w[j]
		o := s.short[c]
		if o == nil {
			if s.Numbers && c >= '0' && c <= '9' {
				// A count inside a cluster: grep -n3, git log -p5.
				k := j
				for k < len(w) && w[k] >= '0' && w[k] <= '9' {
					k++
				}
				p.Options = append(p.Options, Given{Option: numberOption, Written: w, Value: w[j:k], HasValue: true, At: base + i})
				j = k - 1
				continue
			}
			p.Unknown = append(p.Unknown, shortWord(c))
			p.Options = append(p.Options, Given{Written: shortWord(c), At: base + i})
			continue
		}
		given := Given{Option: o, Written: shortWord(c), At: base + i}
		switch o.Arity {
		case Required:
			if j+1 < len(w) {
				given.Value, given.HasValue = w[j+1:], true
			} else if v, ok := next(args, i); ok {
				given.Value, given.HasValue, given.Next = v, true, true
				i++
			}
			p.Options = append(p.Options, given)
			return i
		case Optional:
			if j+1 < len(w) {
				given.Value, given.HasValue = w[j+1:], true
			}
			p.Options = append(p.Options, given)
			return i
		}
		p.Options = append(p.Options, given)
	}
	return i
}

func (s *Spec) goOption(args []string, i, base int, p *Parsed) int {
	w := args[i]
	name := strings.TrimPrefix(w[1:], "-")
	name, value, hasValue := strings.Cut(name, "=")
	o := s.long["-"+name]
	if o == nil {
		p.Unknown = append(p.Unknown, w)
		p.Options = append(p.Options, Given{Written: w, Value: value, HasValue: hasValue, At: base + i})
		return i
	}
	given := Given{Option: o, Written: "-" + name, Value: value, HasValue: hasValue, At: base + i}
	if o.Arity == Required && !hasValue {
		given.Value, given.HasValue = next(args, i)
		if given.HasValue {
			given.Next = true
			i++
		}
	}
	p.Options = append(p.Options, given)
	return i
}

// parseFind reads find's words: its options, starting points, expression.
func (s *Spec) parseFind(args []string, base int, p *Parsed) {
	i := 0
	// Options before the starting points: -H -L -P, -D LIST, -O LEVEL.
	for ; i < len(args); i++ {
		w := args[i]
		if w == "--" {
			i++
			break
		}
		if len(w) < 2 || w[0] != '-' || !strings.ContainsRune("HLPDO", rune(w[1])) {
			break
		}
		o := s.short[w[1]]
		if o == nil {
			break
		}
		given := Given{Option: o, Written: w[:2], At: base + i}
		if o.Arity == Required {
			if len(w) > 2 {
				given.Value, given.HasValue = w[2:], true
			} else if v, ok := next(args, i); ok {
				given.Value, given.HasValue = v, true
				i++
			}
		} else if len(w) > 2 {
			break // find takes -H, -L, -P only alone: -HL begins the expression, and fails there
		}
		p.Options = append(p.Options, given)
	}
	// Starting points: until a word that begins an expression.
	for ; i < len(args); i++ {
		w := args[i]
		if w == "(" || w == "!" || len(w) > 1 && w[0] == '-' {
			break
		}
		p.Operands = append(p.Operands, Operand{w, base + i})
	}
	// The expression.
	for ; i < len(args); i++ {
		w := args[i]
		switch w {
		case "(", ")", "!", ",", "-a", "-o", "-and", "-or", "-not":
			continue
		}
		o := s.long[w]
		if o == nil {
			// find reads any other word here as a primary and fails on
			// it: an unknown one, or a path where a primary should be.
			p.Unknown = append(p.Unknown, w)
			p.Options = append(p.Options, Given{Written: w, At: base + i})
			continue
		}
		given := Given{Option: o, Written: w, At: base + i}
		if o.Effect&Wraps != 0 {
			// -exec CMD ... ; and -exec CMD ... {} +: the command is the
			// analysis's to vet; its words are not find's.
			j := i + 1
			for ; j < len(args); j++ {
				if args[j] == ";" || args[j] == "+" && j > i+1 && args[j-1] == "{}" {
					break
				}
			}
			given.Value, given.HasValue = strings.Join(args[i+1:min(j, len(args))], " "), true
			p.Options = append(p.Options, given)
			i = j
			continue
		}
		n := o.Args
		if o.Arity == Required && n == 0 {
			n = 1
		}
		var vals []string
		for k := 0; k < n && i+1 < len(args); k++ {
			i++
			vals = append(vals, args[i])
		}
		if len(vals) > 0 {
			given.Value, given.HasValue = vals[len(vals)-1], true
			if len(vals) > 1 {
				// -fprintf FILE FORMAT: the file is what a policy checks.
				given.Value = vals[0]
			}
		}
		p.Options = append(p.Options, given)
	}
}

// numberOption stands for -NUM (head -20, grep -3, git log -5).
var numberOption = &Option{Names: []string{"-NUM"}, Arity: Required}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// shortWords are -a, -b, ...: the names of letters, made once.
var shortWords = func() (w [256]string) {
	for c := range w {
		w[c] = "-" + string(rune(c))
	}
	return w
}()

func shortWord(c byte) string { return shortWords[c] }
