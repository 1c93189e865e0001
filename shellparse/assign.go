package shellparse

import (
	"fmt"
	"maps"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bash sets variables in more ways than NAME=value: declare with a quoted or
// brace-expanded word (declare "PATH=."), a name reference (declare -n r=PATH;
// r=.), ${NAME:=value}, arithmetic ((NAME=1)), let, read NAME, mapfile,
// getopts and printf -v. Every one is an Assignment, so that a rule on
// assignments (no PATH, IFS, LD_*) sees it; one whose name is computed at run
// time is a finding, as its name cannot be checked.

// assign records an assignment. passed is the value a program started after
// it would find in its environment, as far as the analysis can tell: a
// variable that makes programs run or load code (isCodeEnv) is passed to the
// commands that follow, as the runner passes the shell's exported variables
// to each command it checks (export GIT_EXTERNAL_DIFF=x; git diff is vetted
// as GIT_EXTERNAL_DIFF=x git diff).
func (a *analyzer) assign(as Assignment, passed string) {
	a.script.Assignments = append(a.script.Assignments, as)
	if isCodeEnv(as.Name) || a.exported[as.Name] {
		a.pass(as.Name, passed)
	}
}

// pass gives a variable to the commands that follow.
func (a *analyzer) pass(name, value string) {
	if a.passed == nil {
		a.passed = map[string]string{}
	}
	a.passed[name] = value
}

// export records that the script exports a variable (export NAME=value,
// declare -x): the commands after it receive it, as the runner checks them
// at run time, and so does a later assignment to it.
func (a *analyzer) export(name, value string) {
	if a.exported == nil {
		a.exported = map[string]bool{}
	}
	a.exported[name] = true
	a.pass(name, value)
}

// unknownValue is what a program finds in NAME when its value is known only
// at run time: a dynamic value, which the code checks read as such.
func unknownValue(name string) string { return "$" + name }

// inherit gives a command the code variables set earlier in the script; its
// own prefix assignments win.
func (a *analyzer) inherit(cmd *Command) {
	env := maps.Clone(a.passed)
	maps.Copy(env, cmd.Env)
	cmd.Env = env
}

// dynamicVariable reports an assignment to a variable named at run time.
func (a *analyzer) dynamicVariable(what string, pos Position, via []string) {
	a.finding(FindingDynamicVariable, fmt.Sprintf("%s sets a variable whose name is known only at run time, so rein cannot tell whether it is PATH, IFS or LD_PRELOAD; write the name out", what), pos, via)
}

// assignedWord reads a word of a declaration builtin that bash takes as an
// assignment once quotes are removed: NAME, NAME=value, NAME+=value,
// NAME[index]=value. ok is false for anything else (bash rejects it).
func assignedWord(s string) (name, value string, bare, ok bool) {
	end := 0
	for end < len(s) && (s[end] == '_' || s[end] >= 'a' && s[end] <= 'z' || s[end] >= 'A' && s[end] <= 'Z' || end > 0 && s[end] >= '0' && s[end] <= '9') {
		end++
	}
	if end == 0 {
		return "", "", false, false
	}
	name, rest := s[:end], s[end:]
	if rest == "" {
		return name, "", true, true
	}
	if rest[0] == '[' {
		i := strings.IndexByte(rest, ']')
		if i < 0 {
			return "", "", false, false
		}
		rest = rest[i+1:]
	}
	rest = strings.TrimPrefix(rest, "+")
	if rest == "" || rest[0] != '=' {
		return "", "", false, false
	}
	return name, rest[1:], false, true
}

// reparses reports whether bash parses a quoted declaration word again,
// expanding what it holds: an array element (declare "a[$(cmd)]=1") or a
// compound value (declare -a "x=($(cmd))") run cmd; a plain value
// (declare "x=$(cmd)") is kept as written.
func reparses(word, value string) bool {
	if !strings.ContainsAny(word, "$`") {
		return false
	}
	eq := len(word) - len(value) - 1
	return strings.IndexByte(word[:eq], '[') >= 0 || strings.HasPrefix(value, "(")
}

// subscripted splits NAME[INDEX], an array element a builtin reads into.
func subscripted(s string) (name, index string, ok bool) {
	name, rest, found := strings.Cut(s, "[")
	if !found || !strings.HasSuffix(rest, "]") || !syntax.ValidName(name) {
		return "", "", false
	}
	return name, rest[:len(rest)-1], true
}

// declOptions is what a declaration builtin's options make of its names.
type declOptions struct {
	refs   bool // declare -n: NAME=TARGET makes NAME stand for TARGET
	print  bool // -p, -f, -F (and export -n): names are shown or unexported, not set
	export bool // export, declare -x: the names are exported
}

// read adds an option word (-n, -gx, +x) of builtin variant to o.
func (o *declOptions) read(variant, word string) {
	if word[0] != '-' {
		return // +x removes an attribute
	}
	for _, c := range word[1:] {
		switch {
		case c == 'n' && variant == "export":
			o.print = true
		case c == 'n':
			o.refs = true
		case c == 'p' || c == 'f' || c == 'F':
			o.print = true
		case c == 'x':
			o.export = true
		}
	}
}

// declaredVar is one variable a declaration builtin names: NAME=value, or
// a bare NAME (export NAME exports the value it has).
type declaredVar struct {
	name, value   string
	dynamic, bare bool
	pos           Position
}

// declared records what one argument of a declaration builtin assigns:
// value is TARGET for a name reference, whose later assignments set TARGET.
func (a *analyzer) declared(o declOptions, v declaredVar, via []string) {
	if o.print {
		return
	}
	if o.refs && !v.bare {
		target, _, _, ok := assignedWord(v.value)
		switch {
		case v.dynamic:
			a.dynamicVariable("declare -n "+v.name+"="+v.value, v.pos, via)
		case ok:
			a.assign(Assignment{Name: target, Dynamic: true, Pos: v.pos}, unknownValue(target))
		}
	}
	passed := v.value
	if v.bare {
		passed = unknownValue(v.name)
	}
	a.assign(Assignment{Name: v.name, Value: v.value, Dynamic: v.dynamic, Pos: v.pos}, passed)
	if o.export {
		a.export(v.name, passed)
	}
}

// arithmAssign records the variable an arithmetic assignment (x=1, x+=2,
// x++) sets; x is the expression assigned to.
func (a *analyzer) arithmAssign(x syntax.ArithmExpr, n syntax.Node) {
	pos := a.scanCtx.pos(n.Pos())
	w, _ := x.(*syntax.Word)
	name := ""
	if w != nil && len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			name = p.Value
		case *syntax.ParamExp:
			// a[i]=1 is a ParamExp without a dollar; $x=1 assigns to
			// the variable x names.
			if !p.Dollar.IsValid() && p.Param != nil {
				name = p.Param.Value
			}
		}
	}
	if !syntax.ValidName(name) {
		a.dynamicVariable(sourceOf(a.scanCtx.src, n), pos, a.scanCtx.via)
		return
	}
	a.assign(Assignment{Name: name, Dynamic: true, Pos: pos}, unknownValue(name))
}

// quotedArithm analyses the quoted words of an arithmetic expression
// (let "x=1", (( "a[\$(cmd)]" ))), which bash evaluates as arithmetic once
// the quotes are removed (arithmString).
func (a *analyzer) quotedArithm(x syntax.ArithmExpr, ctx context) {
	switch x := x.(type) {
	case *syntax.Word:
		if isQuoted(x) {
			a.arithmString(x, ctx)
		}
	case *syntax.BinaryArithm:
		a.quotedArithm(x.X, ctx)
		a.quotedArithm(x.Y, ctx)
	case *syntax.UnaryArithm:
		a.quotedArithm(x.X, ctx)
	case *syntax.ParenArithm:
		a.quotedArithm(x.X, ctx)
	}
}

// arithmTests analyses the operands of [[ x -eq y ]] and its kin, which
// bash evaluates as arithmetic, like quotedArithm's.
func (a *analyzer) arithmTests(x syntax.TestExpr, ctx context) {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLss, syntax.TsLeq, syntax.TsGtr, syntax.TsGeq:
			for _, operand := range []syntax.TestExpr{x.X, x.Y} {
				if w, ok := operand.(*syntax.Word); ok && isQuoted(w) {
					a.arithmString(w, ctx)
				}
			}
		default:
			a.arithmTests(x.X, ctx)
			a.arithmTests(x.Y, ctx)
		}
	case *syntax.UnaryTest:
		if w, ok := x.X.(*syntax.Word); ok && x.Op == syntax.TsVarSet {
			if v, dynamic := wordValue(ctx.src, w); !dynamic {
				a.elementIndex(v, ctx, "[[ -v ]]", ctx.pos(w.Pos()))
			}
		}
		a.arithmTests(x.X, ctx)
	case *syntax.ParenTest:
		a.arithmTests(x.X, ctx)
	}
}

// arithmString analyses a quoted word bash evaluates as arithmetic once
// the quotes are removed: what it assigns, and the commands of
// substitutions in its array indexes (let "a[$(cmd)]").
func (a *analyzer) arithmString(w *syntax.Word, ctx context) {
	value, dynamic := wordValue(ctx.src, w)
	if dynamic {
		return
	}
	p, release := a.useParser()
	defer release()
	p.r.Reset(value)
	x, err := p.p.Arithmetic(&p.r)
	if err != nil || x == nil {
		return // bash stops with an error
	}
	inner := ctx
	inner.src, inner.at, inner.nested = value, ctx.pos(w.Pos()), true
	a.scan(x, inner)
}

func isQuoted(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

func isArithmAssign(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
		syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn:
		return true
	}
	return false
}

// paramAssign records ${NAME=value} and ${NAME:=value}, which set NAME when
// it is unset (or empty).
func (a *analyzer) paramAssign(p *syntax.ParamExp) {
	pos := a.scanCtx.pos(p.Pos())
	if p.Excl || p.Param == nil {
		a.dynamicVariable(sourceOf(a.scanCtx.src, p), pos, a.scanCtx.via)
		return
	}
	value, dynamic := "", false
	if p.Exp.Word != nil {
		value, dynamic = wordValue(a.scanCtx.src, p.Exp.Word)
	}
	a.assign(Assignment{Name: p.Param.Value, Value: value, Dynamic: dynamic, Pos: pos}, value)
}

// readsInto describes a builtin that reads into variables: its options
// that take a value, and which of its operands are variable names.
type readsInto struct {
	valued string // options taking a value
	// names are the operands that name variables: count of them from
	// first (-1: all to the end).
	first, count int
}

func readsIntoOf(name string) (readsInto, bool) {
	switch name {
	case "read":
		return readsInto{valued: "adinNptu", count: -1}, true
	case "mapfile", "readarray":
		return readsInto{valued: "dnOsuCc", count: 1}, true
	case "getopts":
		return readsInto{first: 1, count: 1}, true
	case "printf": // only -v names one
		return readsInto{valued: "v"}, true
	}
	return readsInto{}, false
}

// elementIndex analyses the index of an array element a builtin names
// (unset "a[$(cmd)]", test -v "a[$(cmd)]"): bash expands it, running cmd.
func (a *analyzer) elementIndex(word string, ctx context, via string, at Position) {
	if _, index, ok := subscripted(word); ok && strings.ContainsAny(index, "$`") {
		if inner, ok := a.enter(ctx, via, at); ok {
			a.script_(word+"=", inner, at)
		}
	}
}

// builtinVariables records the variables a builtin that reads into
// variables sets (read, mapfile, readarray, getopts, printf -v), from its
// words, and analyses the array indexes builtins that name variables expand.
func (a *analyzer) builtinVariables(cmd *Command, ctx context) {
	switch cmd.Name {
	case "unset", "test", "[":
		for _, w := range cmd.Words[1:] {
			if !w.Dynamic {
				a.elementIndex(w.Value, ctx, cmd.Name, cmd.Pos)
			}
		}
		return
	}
	spec, ok := readsIntoOf(cmd.Name)
	if !ok {
		return
	}
	set := func(w Word) {
		switch name, _, element := subscripted(w.Value); {
		case w.Dynamic:
			a.dynamicVariable(cmd.Name+" "+w.Raw, cmd.Pos, cmd.Via)
		case syntax.ValidName(w.Value):
			a.assign(Assignment{Name: w.Value, Dynamic: true, Pos: cmd.Pos}, unknownValue(w.Value))
		case element:
			a.assign(Assignment{Name: name, Dynamic: true, Pos: cmd.Pos}, unknownValue(name))
			a.elementIndex(w.Value, ctx, cmd.Name, cmd.Pos) // read "a[$(cmd)]" runs cmd
		}
	}
	words := cmd.Words[1:]
	i := 0
	for ; i < len(words) && !words[i].Dynamic; i++ {
		v := words[i].Value
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			break
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(spec.valued, v[j]) < 0 {
				continue
			}
			value := Word{Value: v[j+1:]}
			if value.Value == "" && i+1 < len(words) {
				i++
				value = words[i]
			}
			switch v[j] {
			case 'a', 'v': // read -a NAME, printf -v NAME
				set(value)
			case 'C': // mapfile -C CALLBACK runs CALLBACK every few lines
				a.nestedWords(cmd, []Word{value}, ctx, cmd.Name+" -C")
			}
			break
		}
	}
	for n, w := range words[i:] {
		if n >= spec.first && (spec.count < 0 || n < spec.first+spec.count) {
			set(w)
		}
	}
}
