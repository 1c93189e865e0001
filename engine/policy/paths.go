package policy

import (
	"errors"
	"io/fs"
	"math/bits"
	"os/user"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// caseInsensitiveFiles is whether the platform's file systems usually
// ignore case (macOS, Windows): secret paths are matched that way there.
const caseInsensitiveFiles = runtime.GOOS == "darwin" || runtime.GOOS == "windows"

// pathSet matches file paths against recipe path globs. In a path glob, *
// and ? stay inside one path segment and ** spans segments. A glob that
// starts with / is absolute, ~/ is the home folder, anything else is
// relative to the workspace; a relative glob starting with **/ matches at
// any depth anywhere.
type pathSet struct {
	workspace string
	home      string
	globs     []pathGlob
	names     []pathGlob // the **/NAME globs, checked against bare names
	// The names globs a word may match, as bits (bit i: names[i]): those
	// whose literal or prefix starts with the word's first byte, those
	// whose suffix ends with its last byte, and those that may match
	// anything (a[bc]d, *). Most words get none, the others one or two:
	// only those are tried. manyNames: more than 64, all are tried.
	firstNames [256]uint64
	lastNames  [256]uint64
	anyNames   uint64
	manyNames  bool
	// byTop lists, for each top folder ("/home", "/etc") some glob names
	// literally, the globs a path below it may match, in order; a path
	// under any other top folder tries only otherTop. A path argument is
	// then checked against a handful of globs, not all forty.
	byTop    map[string][]int
	otherTop []int
	// multi lists the globs of several names that match anywhere
	// (**/.git/config), which matchRelative and startsBelow try.
	multi []int
	// fold matches whatever the letters' case (folded sets only); win
	// reads names as Windows opens them (windowsPath).
	fold, win bool
}

type pathGlob struct {
	raw    string
	segs   []string // absolute pattern, split at slashes
	prefix string   // literal prefix of the absolute pattern, for quick rejects
	// anywhere holds the segments after a leading **/; base is set when
	// that is a single segment, matched against the base name only.
	anywhere []string
	base     string
	name     nameMatcher
	// index is where the glob is in globs (for a **/NAME glob in names).
	index int
	// last is the last name of an anywhere glob of several names when it
	// is literal (config of **/.git/config): a path with another base
	// name cannot match.
	last string
}

func newPathSet(patterns []string, workspace, home string) pathSet {
	ps := pathSet{workspace: filepath.ToSlash(workspace), home: filepath.ToSlash(home)}
	var tops []string // each glob's literal top folder, for indexTops
	for _, p := range patterns {
		g := pathGlob{raw: p}
		var abs string
		switch {
		case strings.HasPrefix(p, "/"):
			abs = p
		case p == "~" || strings.HasPrefix(p, "~/"):
			if ps.home == "" {
				continue
			}
			abs = ps.home + strings.TrimPrefix(p, "~")
		default:
			abs = strings.TrimSuffix(ps.workspace, "/") + "/" + strings.TrimPrefix(p, "./")
			if rest, ok := strings.CutPrefix(p, "**/"); ok {
				g.anywhere = strings.Split(rest, "/")
				if len(g.anywhere) == 1 {
					g.base = rest
					g.name = newNameMatcher(rest)
				}
			}
		}
		g.segs = strings.Split(abs, "/")
		top := topOf(abs)
		if g.base != "" || g.anywhere != nil || strings.ContainsAny(top, "*?[\\") || top == abs {
			top = "" // not indexed: tried for every path
		}
		tops = append(tops, top)
		// The literal part before the first metacharacter, cut back to a
		// whole segment: ~/.ssh/** must match ~/.ssh itself.
		g.prefix = abs
		if i := strings.IndexAny(abs, "*?["); i >= 0 {
			g.prefix = abs[:i]
			if j := strings.LastIndexByte(g.prefix, '/'); j > 0 {
				g.prefix = g.prefix[:j]
			}
		}
		if g.anywhere != nil && g.base == "" {
			ps.multi = append(ps.multi, len(ps.globs))
			if last := g.anywhere[len(g.anywhere)-1]; !strings.ContainsAny(last, "*?[\\") {
				g.last = last
			}
		}
		ps.globs = append(ps.globs, g)
		if g.base != "" {
			g.index = len(ps.globs) - 1
			ps.noteName(len(ps.names), g.name)
			ps.names = append(ps.names, g)
		}
	}
	ps.indexTops(tops)
	return ps
}

// folded returns the set matching paths whatever their letters' case, as
// the file systems of macOS and Windows open them: there, cat .ENV reads
// .env and ~/.SSH/ID_RSA is ~/.ssh/id_rsa.
func (ps *pathSet) folded() pathSet {
	raws := make([]string, len(ps.globs))
	for i := range ps.globs {
		raws[i] = strings.ToLower(ps.globs[i].raw)
	}
	f := newPathSet(raws, strings.ToLower(ps.workspace), strings.ToLower(ps.home))
	f.fold = true
	return f
}

// norm is a path or name as the set compares it (small, to be inlined:
// most sets neither fold nor read Windows names).
func (ps *pathSet) norm(s string) string {
	if !ps.win && !ps.fold {
		return s
	}
	return ps.normSlow(s)
}

func (ps *pathSet) normSlow(s string) string {
	if ps.win {
		s = windowsPath(s)
	}
	if ps.fold {
		return strings.ToLower(s)
	}
	return s
}

// windowsPath is a slash-separated path as Windows opens it: a name's
// stream suffix (.env::$DATA, .env:x) and its trailing dots and spaces
// (".env. ") name the file itself.
func windowsPath(p string) string {
	if !strings.ContainsAny(p, ": ") && !strings.Contains(p, "./") && !strings.HasSuffix(p, ".") {
		return p
	}
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if i == 0 && len(seg) == 2 && seg[1] == ':' {
			continue // a drive
		}
		if j := strings.IndexByte(seg, ':'); j >= 0 {
			seg = seg[:j]
		}
		if strings.Trim(seg, ".") != "" { // not . or ..
			seg = strings.TrimRight(seg, ". ")
		}
		segs[i] = seg
	}
	return strings.Join(segs, "/")
}

// topOf is the text of a path up to its second slash: "/home" for
// /home/dev/x, "C:/Users" for C:/Users/dev.
func topOf(p string) string {
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return p
	}
	if j := strings.IndexByte(p[i+1:], '/'); j >= 0 {
		return p[:i+1+j]
	}
	return p
}

// indexTops builds byTop and otherTop from each glob's literal top folder
// ("" for a glob tried on every path).
func (ps *pathSet) indexTops(literalTop []string) {
	ps.byTop = map[string][]int{}
	for _, top := range literalTop {
		if top != "" {
			ps.byTop[top] = nil
		}
	}
	// The **/NAME globs are left out: match tries them by base name.
	for top := range ps.byTop {
		for i := range ps.globs {
			if ps.globs[i].base == "" && (literalTop[i] == "" || literalTop[i] == top) {
				ps.byTop[top] = append(ps.byTop[top], i)
			}
		}
	}
	for i := range ps.globs {
		if ps.globs[i].base == "" && literalTop[i] == "" {
			ps.otherTop = append(ps.otherTop, i)
		}
	}
}

func (ps *pathSet) noteName(i int, m nameMatcher) {
	if i >= 64 {
		ps.manyNames = true
		return
	}
	bit := uint64(1) << i
	switch {
	case m.literal == "" || m.kind == '?':
		ps.anyNames |= bit
	case m.kind == '$':
		ps.lastNames[m.literal[len(m.literal)-1]] |= bit
	default:
		ps.firstNames[m.literal[0]] |= bit
	}
}

// nameCandidates are the names globs (as bits) that could match name.
func (ps *pathSet) nameCandidates(name string) uint64 {
	if ps.manyNames {
		return ^uint64(0)
	}
	if name == "" {
		return ps.anyNames
	}
	return ps.firstNames[name[0]] | ps.lastNames[name[len(name)-1]] | ps.anyNames
}

// resolve makes an argument into an absolute, cleaned, slash-separated path.
func (ps *pathSet) resolve(arg, cwd string) string {
	p := filepath.ToSlash(arg)
	if abs, ok := otherHome(p); ok {
		p = abs // ~root/.aws: the shell expands another user's home folder too
	}
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		p = ps.home + strings.TrimPrefix(p, "~")
	case filepath.IsAbs(arg) || strings.HasPrefix(p, "/"):
	default:
		base := filepath.ToSlash(cwd)
		if base == "" {
			base = ps.workspace
		}
		p = base + "/" + p
	}
	if strings.HasPrefix(strings.TrimLeft(p, "/"), "proc/") && procLink.MatchString(p) {
		// /proc/PID/cwd/.. leaves through a link to another folder:
		// cleaning it by its text would land somewhere else than the kernel.
		// Doubled slashes still go: //proc//self is /proc/self.
		return singleSlashes(p)
	}
	if hasDotDot(p) && runtime.GOOS != "windows" {
		return physicalDots(p)
	}
	return path.Clean(p)
}

// hasDotDot reports whether a slash path has a .. component (./... has
// none).
func hasDotDot(p string) bool {
	for i := 0; i+2 <= len(p); i++ {
		if p[i] == '.' && p[i+1] == '.' && (i == 0 || p[i-1] == '/') && (i+2 == len(p) || p[i+2] == '/') {
			return true
		}
	}
	return false
}

// physicalDots cleans an absolute path as the kernel walks it: a .. goes
// up from where the links before it lead, not from their names
// (/var/run/.. is / where /var/run is a link to /run; cleaning the text
// gives /var). What follows the last .. is cleaned by its text: links
// there are followed where the path is checked again as it runs.
func physicalDots(p string) string {
	cur := "/"
	for _, part := range strings.Split(p, "/") {
		switch part {
		case "", ".":
		case "..":
			if real, err := filepath.EvalSymlinks(cur); err == nil {
				cur = filepath.ToSlash(real)
			}
			cur = path.Dir(cur)
		default:
			cur = path.Join(cur, part)
		}
	}
	return cur
}

// homes caches the home folders of users named in ~NAME ("" for none):
// facts of the machine, looked up once per process.
var homes sync.Map

// otherHome reads ~NAME/REST, another user's home folder, as the shell
// expands it. ok is false for ~ and ~/REST, and for no such user, whose
// ~NAME the shell leaves as written.
func otherHome(p string) (abs string, ok bool) {
	if len(p) < 2 || p[0] != '~' || p[1] == '/' {
		return "", false
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	if strings.ContainsAny(name, "*?[$`'\"\\") {
		return "", false
	}
	h, found := homes.Load(name)
	if !found {
		home := ""
		if u, err := user.Lookup(name); err == nil {
			home = filepath.ToSlash(u.HomeDir)
		}
		h, _ = homes.LoadOrStore(name, home)
	}
	if h.(string) == "" {
		return "", false
	}
	return h.(string) + "/" + rest, true
}

// singleSlashes replaces each run of slashes with one.
func singleSlashes(p string) string {
	if !strings.Contains(p, "//") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '/' && i > 0 && p[i-1] == '/' {
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// procLink matches paths through /proc's links to a process's folders and
// open files (cwd, root, fd, map_files).
var procLink = regexp.MustCompile(`^/+proc/+[^/]+/+(task/+[^/]+/+)?(cwd|root|fd|map_files)(/|$)`)

// matchName checks a bare file name (no slash, no ~) without resolving it:
// only globs of the form **/NAME can match a name in the working folder
// (callers resolve every name when the folder itself is a secret one).
func (ps *pathSet) matchName(name string) (string, bool) {
	if n := ps.firstName(ps.norm(name)); n >= 0 {
		return ps.names[n].raw, true
	}
	return "", false
}

// firstName returns the first of names matching a (normalised) base name,
// or -1.
func (ps *pathSet) firstName(name string) int {
	if ps.manyNames {
		for i := range ps.names {
			if ps.names[i].name.match(name) {
				return i
			}
		}
		return -1
	}
	// The candidates in order, so that the first glob that matches is named.
	for m := ps.nameCandidates(name); m != 0; m &= m - 1 {
		if i := bits.TrailingZeros64(m); ps.names[i].name.match(name) {
			return i
		}
	}
	return -1
}

// nameMatcher is a base-name glob compiled to its cheapest test.
type nameMatcher struct {
	kind    byte // '=' literal, '^' prefix*, '$' *suffix, '*' prefix*suffix, '?' anything else
	literal string
	pattern string
	suffix  string // of '*'
}

func newNameMatcher(pattern string) nameMatcher {
	star := strings.IndexByte(pattern, '*')
	if !strings.ContainsAny(pattern, "?[\\") && strings.Count(pattern, "*") <= 1 {
		switch {
		case star < 0:
			return nameMatcher{'=', pattern, pattern, ""}
		case star == len(pattern)-1:
			return nameMatcher{'^', pattern[:star], pattern, ""}
		case star == 0:
			return nameMatcher{'$', pattern[1:], pattern, ""}
		default: // client_secret*.json
			return nameMatcher{'*', pattern[:star], pattern, pattern[star+1:]}
		}
	}
	return nameMatcher{'?', "", pattern, ""}
}

func (m nameMatcher) match(name string) bool {
	switch m.kind {
	case '=':
		return name == m.literal
	case '^':
		return strings.HasPrefix(name, m.literal)
	case '$':
		return strings.HasSuffix(name, m.literal)
	case '*':
		return len(name) >= len(m.literal)+len(m.suffix) && strings.HasPrefix(name, m.literal) && strings.HasSuffix(name, m.suffix)
	}
	ok, _ := path.Match(m.pattern, name)
	return ok
}

// match returns the first glob matching the absolute path.
func (ps *pathSet) match(abs string) (string, bool) {
	abs = ps.norm(abs)
	var split []string
	base := path.Base(abs)
	// The first **/NAME glob the base name matches, then the first other
	// glob before it, if one matches: the first glob in the set is named.
	named := -1
	if n := ps.firstName(base); n >= 0 {
		named = ps.names[n].index
	}
	candidates, ok := ps.byTop[topOf(abs)]
	if !ok {
		candidates = ps.otherTop
	}
	for _, i := range candidates {
		if named >= 0 && i > named {
			break
		}
		g := &ps.globs[i]
		if g.anywhere == nil && !strings.HasPrefix(abs, g.prefix) || g.last != "" && g.last != base {
			continue
		}
		if split == nil {
			split = strings.Split(abs, "/")
		}
		if g.anywhere != nil {
			for i := range split {
				if matchSegments(g.anywhere, split[i:]) {
					return g.raw, true
				}
			}
			continue
		}
		if matchSegments(g.segs, split) {
			return g.raw, true
		}
	}
	if named >= 0 {
		return ps.globs[named].raw, true
	}
	return "", false
}

// holds returns an anchored glob whose place is the folder abs or below it
// (~ holds ~/.ssh/**), or a glob of several names matching anywhere whose
// start abs ends with (.git holds .git/config). Otherwise globs that match
// at any depth (**/.env) are left out: every folder might hold one, and
// only naming it can be refused (walks are kept off them at run time).
func (ps *pathSet) holds(abs string) (string, bool) {
	abs = ps.norm(abs)
	if pat, ok := ps.startsBelow(abs); ok {
		return pat, true
	}
	for i := range ps.globs {
		g := &ps.globs[i]
		if g.anywhere != nil {
			continue
		}
		if abs == "/" || g.prefix == abs || strings.HasPrefix(g.prefix, abs+"/") {
			return g.raw, true
		}
	}
	return "", false
}

// MatchPath matches a slash-separated path against a glob with ** support.
func MatchPath(pattern, p string) bool {
	return matchSegments(strings.Split(pattern, "/"), strings.Split(p, "/"))
}

func matchSegments(pp, sp []string) bool {
	for len(pp) > 0 {
		if pp[0] == "**" {
			rest := pp[1:]
			if len(rest) == 0 {
				return true
			}
			for i := 0; i <= len(sp); i++ {
				if matchSegments(rest, sp[i:]) {
					return true
				}
			}
			return false
		}
		if len(sp) == 0 {
			return false
		}
		if ok, _ := path.Match(pp[0], sp[0]); !ok {
			return false
		}
		pp, sp = pp[1:], sp[1:]
	}
	return len(sp) == 0
}

// ResolveExisting resolves symbolic links in the longest existing prefix of
// p and appends the rest, so that a path about to be created is where it
// would land. Only a missing part is passed over: any other error (a loop,
// a folder that may not be read) is returned.
func ResolveExisting(p string) (string, error) {
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// Inside reports whether p (absolute) is dir or below it.
func Inside(p, dir string) bool {
	p, dir = path.Clean(filepath.ToSlash(p)), path.Clean(filepath.ToSlash(dir))
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// IsPath reports whether an argument looks like a file path rather than a
// word: it has a slash, starts with . or ~, or has a file extension.
func IsPath(s string) bool {
	if s == "" || strings.HasPrefix(s, "-") || strings.ContainsAny(s, " \t\n") {
		return false
	}
	if strings.ContainsAny(s, `/\`) || s[0] == '.' || s[0] == '~' {
		return true
	}
	dot := strings.LastIndexByte(s, '.')
	return dot > 0 && dot < len(s)-1
}

// clearBelow reports whether no anchored glob (one not of the form **/NAME)
// can match dir or a path below it. /home/*/.ssh/** leaves /home/dev/proj
// clear: its third segment would have to be .ssh. A glob of several names
// matching anywhere (**/.git/config) leaves dir clear when no start of it
// can be dir's last names (dir is no .git folder): a plain relative path
// then matches it only by its own names (matchRelative).
func (ps *pathSet) clearBelow(dir string) bool {
	dir = ps.norm(path.Clean(filepath.ToSlash(dir)))
	dirSegs := strings.Split(dir, "/")
	if dir == "/" {
		dirSegs = []string{""}
	}
	for _, g := range ps.globs {
		if g.base != "" {
			continue
		}
		if g.anywhere != nil {
			if mayStartAtEnd(g.anywhere, dirSegs) {
				return false
			}
			continue
		}
		if mayMatchBelow(g.segs, dirSegs) {
			return false
		}
	}
	return true
}

// mayStartAtEnd reports whether the first names of a glob (all but its
// last) could be the last names of dir. Unsure (a ** in it) is yes.
func mayStartAtEnd(glob, dir []string) bool {
	if slices.Contains(glob, "**") {
		return true
	}
	for j := 1; j < len(glob) && j <= len(dir); j++ {
		if matchSegments(glob[:j], dir[len(dir)-j:]) {
			return true
		}
	}
	return false
}

// matchRelative matches a plain relative path, below a folder clearBelow
// found clear, against the globs of several names that match anywhere
// (**/.git/config): there, only the path's own names can.
func (ps *pathSet) matchRelative(rel string) (string, bool) {
	if len(ps.multi) == 0 || !strings.Contains(rel, "/") && (!ps.win || !strings.Contains(rel, `\`)) {
		return "", false // one name: only a **/NAME glob matches it
	}
	var segs []string
	for _, i := range ps.multi {
		g := &ps.globs[i]
		if !mayHold(rel, g.anywhere[len(g.anywhere)-1], ps.fold) {
			continue
		}
		if segs == nil {
			segs = strings.Split(ps.norm(path.Clean(filepath.ToSlash(rel))), "/")
		}
		for k := range segs {
			if matchSegments(g.anywhere, segs[k:]) {
				return g.raw, true
			}
		}
	}
	return "", false
}

// startsBelow returns a glob of several names matching anywhere that a
// path below dir (absolute, or plain relative) matches when dir ends with
// the glob's first names: .git holds .git/config.
func (ps *pathSet) startsBelow(dir string) (string, bool) {
	var segs []string
	for _, i := range ps.multi {
		g := &ps.globs[i]
		if !mayHold(dir, g.anywhere[0], ps.fold) {
			continue
		}
		if segs == nil {
			segs = strings.Split(ps.norm(path.Clean(filepath.ToSlash(dir))), "/")
		}
		if mayStartAtEnd(g.anywhere, segs) {
			return g.raw, true
		}
	}
	return "", false
}

// mayHold reports whether a path can have a name matching seg: false
// when seg is literal and not in it (the quick test before splitting).
func mayHold(p, seg string, fold bool) bool {
	if strings.ContainsAny(seg, "*?[\\") || fold {
		return true
	}
	return strings.Contains(p, seg)
}

// mayMatchBelow reports whether a glob's segments could match the folder
// dir (its segments) or a path below it. Unsure is yes.
func mayMatchBelow(glob, dir []string) bool {
	for ; len(dir) > 0; glob, dir = glob[1:], dir[1:] {
		if len(glob) == 0 {
			return false // the glob ends above dir
		}
		if glob[0] == "**" {
			return true
		}
		if ok, err := path.Match(glob[0], dir[0]); !ok && err == nil {
			return false
		}
	}
	return true
}
