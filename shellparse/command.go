package shellparse

import (
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func (a *analyzer) assigns(list []*syntax.Assign, ctx context) (env map[string]string, dynamic bool) {
	for _, as := range list {
		if as.Value != nil && needsScan(as.Value) || as.Array != nil || as.Index != nil {
			a.scan(as, ctx)
		}
		if as.Name == nil {
			continue
		}
		value, dyn := assignValue(ctx.src, as)
		if env == nil {
			env = make(map[string]string, len(list))
		}
		env[as.Name.Value] = value
		dynamic = dynamic || dyn
	}
	return env, dynamic
}

func assignValue(src string, as *syntax.Assign) (string, bool) {
	switch {
	case as.Value != nil:
		return wordValue(src, as.Value)
	case as.Array != nil:
		return sourceOf(src, as.Array), true
	}
	return "", false
}

// wordValue is a word resolved as an assigned value (no field splitting):
// its text, and whether it is known only at run time.
func wordValue(src string, w *syntax.Word) (string, bool) {
	var buf [1]Word
	ws := appendResolved(buf[:0], src, w)
	if len(ws) == 1 {
		return ws[0].Text(), ws[0].Dynamic || ws[0].Glob
	}
	return sourceOf(src, w), true
}

// call analyses a simple command and returns the working folder after it
// (moved by a cd).
func (a *analyzer) call(c *syntax.CallExpr, ctx context) string {
	if len(c.Args) == 0 {
		a.script.addConstruct(ConstructAssignment)
		for _, as := range c.Assigns {
			if as.Value != nil && needsScan(as.Value) || as.Array != nil || as.Index != nil {
				a.scan(as, ctx)
			}
			if as.Name == nil {
				continue
			}
			v, dyn := assignValue(ctx.src, as)
			a.assign(Assignment{Name: as.Name.Value, Value: v, Dynamic: dyn, Pos: ctx.pos(as.Pos())}, v)
		}
		return ctx.dir
	}
	env, envDynamic := a.assigns(c.Assigns, ctx)
	words := a.mem.wordList(len(c.Args))
	for _, w := range c.Args {
		if needsScan(w) {
			a.scan(w, ctx)
		}
		words = appendWord(words, ctx.src, w)
	}
	if len(words) == 0 {
		return ctx.dir
	}
	text := sourceOf(ctx.src, c)
	if ctx.nested {
		text = ""
	}
	cmd := a.simple(words, env, ctx, ctx.pos(c.Pos()), text)
	if cmd != nil && envDynamic {
		cmd.Dynamic = true
	}
	if cmd != nil && cmd.Name == "cd" && !cmd.DynamicName {
		return cdTarget(cmd, ctx.dir)
	}
	return ctx.dir
}

// cdTarget is the folder cd moves to from dir, as written; dir itself when
// that is known only at run time (cd "$x", cd -).
func cdTarget(cd *Command, dir string) string {
	args := cd.Words[1:]
	for len(args) > 0 && len(args[0].Value) > 1 && args[0].Value[0] == '-' && !args[0].Dynamic {
		if args[0].Value == "--" {
			args = args[1:]
			break
		}
		args = args[1:] // -L, -P, -e, -@
	}
	switch {
	case len(args) == 0:
		return "~"
	case len(args) > 1 || args[0].Dynamic || args[0].Value == "-" || args[0].Value == "":
		return dir
	}
	return joinDir(dir, args[0].Value)
}

// joinDir is the folder next names when reached from dir (cd next, git -C
// next, env -C next), both as written; "" for dir is where the command
// starts, and next from / or ~ stands alone.
func joinDir(dir, next string) string {
	if dir == "" || filepath.IsAbs(next) || strings.HasPrefix(next, "/") || strings.HasPrefix(next, "~") {
		return next
	}
	return filepath.Join(dir, next)
}

// decl records a declaration builtin (export, declare, local, readonly,
// typeset, nameref) both as assignments and as a simple command. A word
// bash takes as an assignment once expanded (declare "PATH=.", export
// {PATH,x}=.) is one here too; the assignments take effect after the
// command, so the command itself is not given the variables it sets.
func (a *analyzer) decl(d *syntax.DeclClause, ctx context) {
	words := []Word{{Value: d.Variant.Value}}
	opts := declOptions{refs: d.Variant.Value == "nameref", export: d.Variant.Value == "export"}
	var assigned []declaredVar
	var reparsed []string // words bash parses again as an assignment
	for _, as := range d.Args {
		if as.Value != nil && needsScan(as.Value) || as.Array != nil || as.Index != nil {
			a.scan(as, ctx)
		}
		pos := ctx.pos(as.Pos())
		switch {
		case as.Naked && as.Name == nil && as.Value != nil:
			n := len(words)
			words = appendResolved(words, ctx.src, as.Value)
			for _, w := range words[n:] {
				switch name, value, bare, ok := assignedWord(w.Value); {
				case w.Dynamic:
					a.dynamicVariable(d.Variant.Value+" "+w.Raw, pos, ctx.via)
				case len(w.Value) > 1 && (w.Value[0] == '-' || w.Value[0] == '+'):
					opts.read(d.Variant.Value, w.Value)
				case ok:
					assigned = append(assigned, declaredVar{name, value, false, bare, pos})
					if reparses(w.Value, value) {
						reparsed = append(reparsed, w.Value)
					}
				}
			}
		case as.Name != nil:
			v, dyn := assignValue(ctx.src, as)
			a.script.addConstruct(ConstructAssignment)
			assigned = append(assigned, declaredVar{as.Name.Value, v, dyn, as.Naked, pos})
			w := Word{Value: as.Name.Value}
			if !as.Naked {
				w.Value += "=" + v
				w.Dynamic = dyn
				if dyn {
					w.Raw = sourceOf(ctx.src, as)
				}
			}
			words = append(words, w)
		}
	}
	text := sourceOf(ctx.src, d)
	if ctx.nested {
		text = ""
	}
	cmd := a.simple(words, nil, ctx, ctx.pos(d.Pos()), text)
	if cmd != nil {
		cmd.Decl = true
	}
	for _, v := range assigned {
		a.declared(opts, v, ctx.via)
	}
	for _, text := range reparsed {
		if cmd != nil {
			a.nested(cmd, text, ctx, d.Variant.Value)
		}
	}
}

// simple records a simple command built from resolved words and unwraps it.
func (a *analyzer) simple(words []Word, env map[string]string, ctx context, pos Position, text string) *Command {
	if a.lim.MaxCommands > 0 && len(a.script.Commands) >= a.lim.MaxCommands {
		if len(a.script.Commands) == a.lim.MaxCommands {
			a.fail(FindingTooLong, fmt.Sprintf("more than %d simple commands", a.lim.MaxCommands), pos)
		}
		return nil
	}
	cmd := a.mem.command()
	cmd.mem = a.mem
	fillCommand(cmd, a.mem.strings(len(words)), words, env, pos, ctx.via, text)
	cmd.execd, cmd.Dir = ctx.execd, ctx.dir
	a.script.Commands = append(a.script.Commands, cmd)
	if cmd.DynamicName {
		a.script.addConstruct(ConstructDynamicName)
	}
	own := cmd.Env
	if a.passed != nil {
		a.inherit(cmd)
	}
	a.envCode(cmd, ctx, own)
	a.unwrap(cmd, ctx)
	if !ctx.execd {
		a.builtinVariables(cmd, ctx)
	}
	return cmd
}

// programName is the base name of a program as written (rm for /bin/rm or
// C:\tools\rm); "" for "".
func programName(v string) string {
	if strings.IndexByte(v, '/') < 0 && strings.IndexByte(v, '\\') < 0 {
		return v // the common case: a bare name
	}
	if i := strings.LastIndexAny(v, `/\`); i < len(v)-1 {
		return v[i+1:]
	}
	return path.Base(strings.ReplaceAll(v, `\`, "/")) // ends with a slash
}

// shortFlags holds "-a" … for ASCII letters and digits, so that splitting
// -rf costs no allocation.
var shortFlags = func() (t [128]string) {
	for c := 0; c < 128; c++ {
		t[c] = "-" + string(rune(c))
	}
	return
}()

func shortFlag(r rune) string {
	if r < 128 {
		return shortFlags[r]
	}
	return "-" + string(r)
}

// fillCommand derives name, flags and positionals from resolved words, into
// a zero cmd and argv (len(words) long). text is the command's source, or ""
// to render it from argv.
func fillCommand(cmd *Command, argv []string, words []Word, env map[string]string, pos Position, via []string, text string) {
	// Field by field into the zero Command: a whole-struct assignment
	// copies every field behind a write barrier while the GC runs.
	cmd.Words, cmd.Argv, cmd.Pos, cmd.Text = words, argv, pos, text
	if env != nil {
		cmd.Env = env
	}
	if via != nil {
		cmd.Via = via
	}
	// Words are walked by pointer: copying the 40-byte Word each turn
	// stalled on store forwarding, a tenth of the command's cost.
	for i := range words {
		w := &words[i]
		cmd.Argv[i] = w.Text()
		if w.Dynamic {
			cmd.Dynamic = true
		}
	}
	first := &words[0]
	cmd.Path = first.Text()
	if first.Dynamic {
		cmd.DynamicName = true
	} else {
		cmd.Name = programName(first.Value)
	}
	cmd.Args = cmd.Argv[1:]
	// The subcommand is the first positional; flags and positionals are
	// split only when asked for (Split), as most checks never need them.
	endOfFlags := false
	for i := 1; i < len(words); i++ {
		w := &words[i]
		v := w.Value
		if v == "--" && !endOfFlags {
			endOfFlags = true
			continue
		}
		if endOfFlags || len(v) < 2 || v[0] != '-' {
			cmd.Sub = w.Text()
			break
		}
	}
	if cmd.Text != "" {
		return
	}
	cmd.Text = JoinArgv(cmd.Argv)
	if len(env) > 0 {
		var b strings.Builder
		for _, k := range slices.Sorted(maps.Keys(env)) {
			b.WriteString(k + "=" + Quote(env[k]) + " ")
		}
		cmd.Text = b.String() + cmd.Text
	}
}

// Split fills Flags and Positionals (once): short clusters are split (-rf
// gives -r and -f), --name=value gives Name --name and Value, and
// everything after -- is positional.
func (c *Command) Split() {
	if c.split || len(c.Words) == 0 {
		return
	}
	c.split = true
	words := c.Words
	nflags := 0
	for _, w := range words[1:] {
		if len(w.Value) > 1 && w.Value[0] == '-' {
			nflags += len(w.Value) - 1
		}
	}
	switch {
	case c.mem != nil:
		if nflags > 0 {
			c.Flags = c.mem.flagList(nflags)
		}
		if len(words) > 1 {
			c.Positionals = c.mem.strings(len(words) - 1)[:0]
		}
	default: // a Command not made by an analysis
		if nflags > 0 {
			c.Flags = make([]Flag, 0, nflags)
		}
		if len(words) > 1 {
			c.Positionals = make([]string, 0, len(words)-1)
		}
	}
	endOfFlags := false
	for i, w := range words[1:] {
		v := w.Value
		switch {
		case endOfFlags || len(v) < 2 || v[0] != '-':
			c.Positionals = append(c.Positionals, c.Args[i])
		case v == "--":
			endOfFlags = true
		case strings.HasPrefix(v, "--"):
			name, value, has := strings.Cut(v, "=")
			c.Flags = append(c.Flags, Flag{Name: name, Value: value, HasValue: has, Raw: c.Args[i], Arg: i, Dynamic: w.Dynamic})
		default:
			for _, r := range v[1:] {
				c.Flags = append(c.Flags, Flag{Name: shortFlag(r), Raw: c.Args[i], Arg: i, Dynamic: w.Dynamic})
			}
		}
	}
}

// AnalyzeArgv analyses one argv as the interpreter is about to run it: its
// words are final (already expanded), and the commands it runs on its behalf
// (xargs, find -exec, sh -c, sudo, ...) are unwrapped as in Analyze. Runners
// use it to re-check every command at run time.
func AnalyzeArgv(argv []string, env map[string]string) *Script {
	s := &Script{Text: JoinArgv(argv)}
	if len(argv) == 0 {
		return s
	}
	a := &analyzer{script: s, lim: DefaultLimits, mem: &arena{}}
	words := make([]Word, len(argv))
	for i, arg := range argv {
		words[i] = Word{Value: arg}
	}
	a.simple(words, env, context{}, Position{Line: 1, Col: 1}, "")
	return s
}
