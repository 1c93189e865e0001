package shellparse

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Limits bound the work the analysis does on hostile input.
type Limits struct {
	// MaxBytes is the longest text analysed; longer text gives a finding.
	MaxBytes int
	// MaxDepth bounds nesting: substitutions, subshells, blocks, functions
	// and nested scripts (sh -c, eval) each count one level.
	MaxDepth int
	// MaxCommands bounds the number of simple commands reported.
	MaxCommands int
}

// DefaultLimits are generous for real commands and small for attacks.
var DefaultLimits = Limits{MaxBytes: 64 << 10, MaxDepth: 32, MaxCommands: 4096}

// Analyze parses text as bash and analyses it with DefaultLimits.
func Analyze(text string) *Script {
	return AnalyzeLimits(text, DefaultLimits)
}

// parser is a reusable parser with its reader.
type parser struct {
	p *syntax.Parser
	r strings.Reader
}

var parsers = sync.Pool{New: func() any { return &parser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))} }}

// AnalyzeLimits parses and analyses text. It never panics; a parse error or a
// limit is reported in Script.ParseError or Script.Findings.
func AnalyzeLimits(text string, lim Limits) *Script {
	// One allocation for the three; the Script keeps the others alive.
	b := &struct {
		a analyzer
		s Script
		m arena
	}{}
	b.a.script, b.a.mem = &b.s, &b.m
	b.a.analyze(text, lim)
	return &b.s
}

// An Analyzer analyses one text after another, reusing the memory of the
// previous analysis: the Script it returns is valid only until its next
// call. It suits a caller that turns each Script into something else at
// once (a policy decision); keep a Script with Analyze. The zero Analyzer
// uses DefaultLimits. An Analyzer must not be used concurrently.
type Analyzer struct {
	// Limits, when set, replace DefaultLimits.
	Limits *Limits
	a      analyzer
	script Script
	mem    arena
	parser *parser
}

// Analyze parses and analyses text like AnalyzeLimits. The Script is
// overwritten by the next call.
func (z *Analyzer) Analyze(text string) *Script {
	lim := DefaultLimits
	if z.Limits != nil {
		lim = *z.Limits
	}
	z.mem.reset()
	z.script.reset()
	if z.parser == nil {
		z.parser = &parser{p: syntax.NewParser(syntax.Variant(syntax.LangBash))}
	}
	z.a = analyzer{script: &z.script, mem: &z.mem, parser: z.parser, visit: z.a.visit}
	z.a.analyze(text, lim)
	return &z.script
}

// reset empties the script, keeping the capacity of its lists.
// Its old items are not cleared: lists are only ever appended to, which
// overwrites them.
func (s *Script) reset() {
	s.Text, s.Depth, s.ParseError = "", 0, nil
	s.Commands = s.Commands[:0]
	s.Operators = s.Operators[:0]
	s.Constructs = s.Constructs[:0]
	s.Redirects = s.Redirects[:0]
	s.Substitutions = s.Substitutions[:0]
	s.Assignments = s.Assignments[:0]
	s.Functions = s.Functions[:0]
	s.Findings = s.Findings[:0]
}

func (a *analyzer) analyze(text string, lim Limits) {
	s := a.script
	s.Text = text
	a.lim = lim
	if lim.MaxBytes > 0 && len(text) > lim.MaxBytes {
		a.fail(FindingTooLong, fmt.Sprintf("command is %d bytes; the limit is %d", len(text), lim.MaxBytes), Position{Line: 1, Col: 1})
		return
	}
	if lim.MaxDepth > 0 && len(text) > 2*lim.MaxDepth && openers(text) > 2*lim.MaxDepth && bracketDepth(text) > 2*lim.MaxDepth {
		a.fail(FindingTooDeep, fmt.Sprintf("command nests %d brackets deep; the limit is %d", bracketDepth(text), 2*lim.MaxDepth), Position{Line: 1, Col: 1})
		return
	}
	a.script_(text, context{}, Position{})
	// Mark calls to functions declared anywhere in the script: bash resolves
	// a name against functions first, at run time.
	if len(a.functions) > 0 {
		for _, c := range s.Commands {
			if c.Name != "" && !c.execd && a.functions[c.Name] && !strings.Contains(c.Path, "/") {
				c.Function = true
			}
		}
	}
}

// openers counts the characters that may open a level; it bounds
// bracketDepth and is cheaper (strings.Count is vectorised).
func openers(text string) int {
	return strings.Count(text, "(") + strings.Count(text, "{") + strings.Count(text, "`")
}

// bracketDepth is a cheap upper bound on nesting, checked before parsing so
// that pathological input never reaches the recursive parser.
func bracketDepth(text string) int {
	depth, max := 0, 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '(', '{', '`':
			depth++
			if depth > max {
				max = depth
			}
		case ')', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return max
}

type analyzer struct {
	script    *Script
	mem       *arena
	parser    *parser // an Analyzer's own; nil takes one from the pool
	lim       Limits
	functions map[string]bool
	visit     func(syntax.Node) bool
	scanCtx   context
	// passed holds the variables set so far that the commands after them
	// receive: those exported, and those that make programs run code
	// whatever (inherit); exported names the exported ones.
	passed   map[string]string
	exported map[string]bool
	// alwaysParse sends plain texts to the parser too (tests compare).
	alwaysParse bool
}

// context is where a node sits: the text it came from, the wrappers and
// substitutions around it, and how deep it is.
type context struct {
	src   string
	via   []string
	depth int
	// at, when set, is the position reported for everything inside a nested
	// script (whose own positions are relative to a string argument).
	at     Position
	nested bool // at is set
	// execd is set below a wrapper that executes a program (sudo, xargs,
	// find -exec, sh -c): shell functions of this script are not visible there.
	execd bool
	// dir is the working folder an earlier cd or a wrapper moved to
	// (Command.Dir).
	dir string
}

func (c context) with(via string) context {
	n := c
	if sole, ok := soleVia[via]; ok && len(c.via) == 0 {
		n.via = sole
	} else {
		n.via = append(append(make([]string, 0, len(c.via)+1), c.via...), via)
	}
	n.depth++
	return n
}

// soleVia holds a shared one-element list for each common label, so that
// entering a wrapper or substitution at the top allocates nothing. The
// lists are capped: appending to one copies it. Nobody writes into a Via.
var soleVia = func() map[string][]string {
	labels := []string{"$(…)", "`…`", "<(…)", ">(…)", "find -exec", "find -execdir", "find -ok", "find -okdir",
		"eval", "trap", "watch", "watch -x", "flock", "flock -c", "parallel", "env -S", "@test", "( … )"}
	for name := range wrappers {
		labels = append(labels, name)
	}
	for name := range shells {
		labels = append(labels, shellDashC[name])
	}
	m := make(map[string][]string, len(labels))
	lists := make([]string, len(labels)) // one block for all the lists
	for i, l := range labels {
		lists[i] = l
		m[l] = lists[i : i+1 : i+1]
	}
	return m
}()

func (c context) pos(p syntax.Pos) Position {
	if c.nested {
		return c.at
	}
	return position(p)
}

func (a *analyzer) fail(kind, msg string, pos Position) {
	f := Finding{Kind: kind, Message: msg, Pos: pos}
	a.script.Findings = append(a.script.Findings, f)
	if a.script.ParseError == nil {
		a.script.ParseError = &f
	}
}

func (a *analyzer) finding(kind, msg string, pos Position, via []string) {
	a.script.Findings = append(a.script.Findings, Finding{Kind: kind, Message: msg, Pos: pos, Via: via})
}

// useParser returns the parser to parse with (the Analyzer's own, or one
// from the pool) and what gives it back; script_, the hot path, does the
// same without the closure. A nested parse may use it while an outer tree
// is walked: a tree is the caller's once parsed.
func (a *analyzer) useParser() (*parser, func()) {
	if a.parser != nil {
		return a.parser, func() {}
	}
	p := parsers.Get().(*parser)
	return p, func() { parsers.Put(p) }
}

// script_ parses text (the whole input or a nested script) and analyses it.
func (a *analyzer) script_(text string, ctx context, at Position) {
	if ctx.depth > a.lim.MaxDepth {
		a.fail(FindingTooDeep, fmt.Sprintf("nesting deeper than %d levels", a.lim.MaxDepth), at)
		return
	}
	if !a.alwaysParse && isPlain(text) {
		a.plain(text, ctx)
		return
	}
	p := a.parser
	if p == nil {
		p = parsers.Get().(*parser)
		defer parsers.Put(p)
	}
	p.r.Reset(text)
	f, err := p.p.Parse(&p.r, "")
	if err != nil {
		a.parseError(text, err, ctx, at)
		return
	}
	ctx.src = text
	a.stmts(f.Stmts, ctx)
}

func (a *analyzer) parseError(text string, err error, ctx context, at Position) {
	var pe syntax.ParseError
	var le syntax.LangError
	pos := at
	msg := err.Error()
	switch {
	case errors.As(err, &pe):
		if !ctx.nested && len(ctx.via) == 0 {
			pos = position(pe.Pos)
		}
		msg = fmt.Sprintf("%s: %s", position(pe.Pos), pe.Text)
		if !ctx.nested && len(ctx.via) == 0 {
			msg += near(text, int(pe.Pos.Offset()))
		}
	case errors.As(err, &le):
		if !ctx.nested && len(ctx.via) == 0 {
			pos = position(le.Pos)
		}
		msg = fmt.Sprintf("%s: %s", position(le.Pos), strings.TrimPrefix(le.Error(), le.Pos.String()+": "))
	}
	if len(ctx.via) > 0 {
		msg = fmt.Sprintf("in script given to %s: %s", strings.Join(ctx.via, " → "), msg)
	}
	a.fail(FindingParseError, msg, pos)
}

// near quotes the text around an offset so that a person sees what broke.
func near(text string, off int) string {
	if off < 0 || off > len(text) {
		return ""
	}
	start, end := max(0, off-20), min(len(text), off+20)
	return fmt.Sprintf(" (near %q)", text[start:end])
}

// stmts analyses a list of statements, following the working folder from
// one to the next (cd src; cat .env), and returns where it ends.
func (a *analyzer) stmts(list []*syntax.Stmt, ctx context) string {
	for _, st := range list {
		ctx.dir = a.stmt(st, ctx)
	}
	return ctx.dir
}

// stmt analyses a statement and returns the working folder after it.
func (a *analyzer) stmt(st *syntax.Stmt, ctx context) string {
	if st == nil {
		return ctx.dir
	}
	if st.Background || st.Coprocess || st.Disown {
		a.script.addConstruct(ConstructBackground)
	}
	if st.Negated {
		a.script.addConstruct(ConstructNegation)
	}
	for _, r := range st.Redirs {
		a.redirect(r, ctx)
	}
	if st.Cmd == nil {
		return ctx.dir
	}
	after := a.command(st.Cmd, ctx)
	if st.Background || st.Coprocess {
		return ctx.dir // run in a subshell of its own
	}
	return after
}

func (a *analyzer) nest(ctx context) bool {
	if ctx.depth > a.script.Depth {
		a.script.Depth = ctx.depth
	}
	return ctx.depth <= a.lim.MaxDepth
}

// command analyses a command and returns the working folder after it: a
// cd moves it, in sequence (cd x && cat f) and in a { block }; in a
// pipeline, a subshell, a loop or a condition it is left where it was.
func (a *analyzer) command(cmd syntax.Command, ctx context) string {
	switch c := cmd.(type) {
	case *syntax.CallExpr:
		return a.call(c, ctx)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.Pipe, syntax.PipeAll:
			a.script.addConstruct(ConstructPipeline)
			a.script.addOperator(c.Op.String())
			a.stmt(c.X, ctx)
			a.stmt(c.Y, ctx)
			return ctx.dir
		}
		a.script.addConstruct(ConstructAndOr)
		a.script.addOperator(c.Op.String())
		moved := a.stmt(c.X, ctx)
		if c.Op == syntax.OrStmt {
			// Y runs where X failed; after it (cd x || exit), where X went.
			a.stmt(c.Y, ctx)
			return moved
		}
		then := ctx
		then.dir = moved
		return a.stmt(c.Y, then)
	case *syntax.Subshell:
		a.script.addConstruct(ConstructSubshell)
		a.block(c.Stmts, ctx, "( … )")
	case *syntax.Block:
		a.script.addConstruct(ConstructBlock)
		return a.stmts(c.Stmts, ctx)
	case *syntax.IfClause:
		a.script.addConstruct(ConstructIf)
		for ic := c; ic != nil; ic = ic.Else {
			a.stmts(ic.Cond, ctx)
			a.stmts(ic.Then, ctx)
		}
	case *syntax.WhileClause:
		a.script.addConstruct(ConstructLoop)
		a.stmts(c.Cond, ctx)
		a.stmts(c.Do, ctx)
	case *syntax.ForClause:
		a.script.addConstruct(ConstructLoop)
		a.scan(c.Loop, ctx)
		if wi, ok := c.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			a.assign(Assignment{Name: wi.Name.Value, Dynamic: true, Pos: ctx.pos(wi.Name.Pos())}, unknownValue(wi.Name.Value))
		}
		a.stmts(c.Do, ctx)
	case *syntax.CaseClause:
		a.script.addConstruct(ConstructCase)
		a.scan(c.Word, ctx)
		for _, item := range c.Items {
			for _, p := range item.Patterns {
				a.scan(p, ctx)
			}
			a.stmts(item.Stmts, ctx)
		}
	case *syntax.FuncDecl:
		a.script.addConstruct(ConstructFunction)
		names := c.Names
		if c.Name != nil {
			names = append(names, c.Name)
		}
		label := "function"
		if a.functions == nil {
			a.functions = map[string]bool{}
		}
		for _, n := range names {
			a.functions[n.Value] = true
			a.script.Functions = append(a.script.Functions, n.Value)
			label = "function " + n.Value
		}
		if inner := ctx.with(label); a.nest(inner) {
			a.stmt(c.Body, inner)
		} else {
			a.fail(FindingTooDeep, fmt.Sprintf("nesting deeper than %d levels", a.lim.MaxDepth), ctx.pos(c.Pos()))
		}
	case *syntax.ArithmCmd:
		a.script.addConstruct(ConstructArithmetic)
		a.scan(c, ctx)
		a.quotedArithm(c.X, ctx)
	case *syntax.LetClause:
		a.script.addConstruct(ConstructArithmetic)
		a.scan(c, ctx)
		for _, x := range c.Exprs {
			a.quotedArithm(x, ctx)
		}
	case *syntax.TestClause:
		a.script.addConstruct(ConstructTest)
		a.scan(c, ctx)
		a.arithmTests(c.X, ctx)
	case *syntax.DeclClause:
		a.decl(c, ctx)
	case *syntax.TimeClause:
		a.script.addConstruct(ConstructTime)
		a.stmt(c.Stmt, ctx)
	case *syntax.CoprocClause:
		a.script.addConstruct(ConstructCoproc)
		a.script.addConstruct(ConstructBackground)
		a.stmt(c.Stmt, ctx)
	case *syntax.TestDecl:
		a.script.addConstruct(ConstructFunction)
		a.stmt(c.Body, ctx.with("@test"))
	default:
		a.scan(cmd, ctx)
	}
	return ctx.dir
}

func (a *analyzer) block(list []*syntax.Stmt, ctx context, via string) {
	inner := ctx
	inner.depth++
	if !a.nest(inner) {
		a.fail(FindingTooDeep, fmt.Sprintf("nesting deeper than %d levels", a.lim.MaxDepth), ctx.pos(list[0].Pos()))
		return
	}
	a.stmts(list, inner)
}

// scan finds substitutions anywhere below a node (parameter defaults,
// arithmetic, array indexes, test expressions, here-documents) and analyses
// the commands inside them.
func (a *analyzer) scan(n syntax.Node, ctx context) {
	if n == nil {
		return
	}
	// One visitor per analysis (not a closure per word); the context is
	// saved and restored because substitutions nest.
	if a.visit == nil {
		a.visit = a.visitNode
	}
	saved := a.scanCtx
	a.scanCtx = ctx
	syntax.Walk(n, a.visit)
	a.scanCtx = saved
}

func (a *analyzer) visitNode(node syntax.Node) bool {
	switch s := node.(type) {
	case *syntax.CmdSubst:
		kind := "$()"
		if s.Backquotes {
			kind = "``"
		}
		a.substitution(kind, ConstructSubstitution, s, s.Stmts, a.scanCtx)
		return false
	case *syntax.ProcSubst:
		kind := "<()"
		if s.Op == syntax.CmdOut {
			kind = ">()"
		}
		a.substitution(kind, ConstructProcSubst, s, s.Stmts, a.scanCtx)
		return false
	case *syntax.ArithmExp:
		a.quotedArithm(s.X, a.scanCtx)
	case *syntax.ParamExp:
		if s.Exp != nil && (s.Exp.Op == syntax.AssignUnset || s.Exp.Op == syntax.AssignUnsetOrNull) {
			a.paramAssign(s)
		}
	case *syntax.BinaryArithm:
		if isArithmAssign(s.Op) {
			a.arithmAssign(s.X, s)
		}
	case *syntax.UnaryArithm:
		if s.Op == syntax.Inc || s.Op == syntax.Dec {
			a.arithmAssign(s.X, s)
		}
	}
	return true
}

func (a *analyzer) substitution(kind, construct string, n syntax.Node, list []*syntax.Stmt, ctx context) {
	a.script.addConstruct(construct)
	a.script.Substitutions = append(a.script.Substitutions, Substitution{Kind: kind, Text: sourceOf(ctx.src, n), Pos: ctx.pos(n.Pos())})
	label := strings.Replace(strings.Replace(kind, "()", "(…)", 1), "``", "`…`", 1)
	inner := ctx.with(label)
	if !a.nest(inner) {
		a.fail(FindingTooDeep, fmt.Sprintf("nesting deeper than %d levels", a.lim.MaxDepth), ctx.pos(n.Pos()))
		return
	}
	a.stmts(list, inner)
}

// needsScan reports whether a word may contain a substitution.
func needsScan(w *syntax.Word) bool {
	return partsNeedScan(w.Parts)
}

func partsNeedScan(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch p := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if partsNeedScan(p.Parts) {
				return true
			}
		case *syntax.ParamExp:
			// $x, ${x}, ${#x}, ${!x} hold no command; an index, slice,
			// replacement or default value may.
			if p.NestedParam != nil || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil {
				return true
			}
		default:
			return true
		}
	}
	return false
}

func (a *analyzer) redirect(r *syntax.Redirect, ctx context) {
	a.script.addConstruct(ConstructRedirect)
	rd := Redirect{Op: r.Op.String(), Pos: ctx.pos(r.Pos()), Via: ctx.via, Dir: ctx.dir}
	if r.N != nil {
		rd.Fd = r.N.Value
	}
	if r.Word != nil {
		if needsScan(r.Word) {
			a.scan(r.Word, ctx)
		}
		var buf [1]Word
		ws := appendResolved(buf[:0], ctx.src, r.Word)
		if len(ws) == 1 {
			rd.Target, rd.Dynamic = ws[0].Text(), ws[0].Dynamic
		} else {
			// A redirect target that expands to several words is an error
			// in bash ("ambiguous redirect"); keep it dynamic.
			rd.Target, rd.Dynamic = sourceOf(ctx.src, r.Word), true
		}
	}
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		rd.Write = true
	case syntax.RdrIn:
		rd.Read = true
	case syntax.RdrInOut:
		rd.Read, rd.Write = true, true
	case syntax.DplIn, syntax.DplOut:
		if isFdTarget(rd.Target) && !rd.Dynamic {
			rd.Dup = true
		} else if r.Op == syntax.DplOut {
			// ">&file" sends stdout and stderr to a file.
			rd.Write = true
		} else {
			rd.Read = true
		}
	case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		rd.Heredoc = true
		a.script.addConstruct(ConstructHeredoc)
		if r.Hdoc != nil {
			a.scan(r.Hdoc, ctx)
		}
		if r.Op != syntax.WordHdoc {
			rd.Target = "<<" + rd.Target
		}
	}
	a.script.Redirects = append(a.script.Redirects, rd)
}

func isFdTarget(s string) bool {
	if s == "-" || s == "" {
		return true
	}
	s = strings.TrimSuffix(s, "-") // 2>&1- moves the descriptor
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return len(s) > 0
}
