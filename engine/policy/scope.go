package policy

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

// Granted reads (paths.scope: 'granted', the default): a path a command
// names — an operand, an option's value, a redirect, the folder cd goes
// to — must lie in the workspace, the command's temp folder or the
// recipe's read roots (recipe.ReadRoots: the system folders, toolchains,
// programs, and paths.read). The sandbox grants the same, so what vetting
// cannot see (a script's own reads) is held there too.

// outsideScope reports whether abs is a place commands may not read under
// granted reads. Unless named is set (the word was plainly a path outside:
// ~/x, ../x), only a place that exists counts: a word that starts with /
// may be no path (gh api /user, a pattern), and what does not exist cannot
// be read; the sandbox refuses it if it comes to be.
func (p *Policy) outsideScope(abs string, named bool) bool {
	if Inside(abs, p.workspace) || Inside(abs, recipe.TempRoot()) {
		return false
	}
	if slices.ContainsFunc(p.readRoots(), func(dir string) bool { return Inside(abs, dir) }) {
		return false
	}
	if _, ok := p.read.match(abs); ok {
		return false
	}
	if named {
		return true
	}
	_, err := os.Lstat(abs)
	return err == nil
}

// MayLook reports whether a command may learn what abs is or holds (the
// shell's own tests and globs, which rein runs outside the sandbox): not
// a secret path, and, under granted reads, a place commands may read.
func (p *Policy) MayLook(abs string) bool {
	abs = filepath.ToSlash(filepath.Clean(abs))
	if _, ok := p.secret.match(abs); ok {
		return false
	}
	return !p.confined || !p.outsideScope(abs, true)
}

// scopeResult is the refusal of a read outside the grants (what names
// the path), with the grant that would allow it.
func (p *Policy) scopeResult(what, abs string) *Result {
	reason := fmt.Sprintf("%s, outside what commands may read (the workspace, the system folders, the toolchains and paths.read): ", what)
	tilde := func(s string) string {
		if p.home != "" && Inside(s, p.home) {
			return "~" + strings.TrimPrefix(s, strings.TrimSuffix(filepath.ToSlash(p.home), "/"))
		}
		return s
	}
	abs = filepath.ToSlash(abs)
	dir := path.Dir(abs)
	switch {
	case abs == "/" || p.home != "" && Inside(p.home, abs):
		reason += "commands may read everything but the secret paths only with paths.scope: 'anywhere'"
	case dir == "/" || dir == filepath.ToSlash(p.home):
		reason += fmt.Sprintf("grant it in the recipe with paths+: { read+: ['%s'] }", tilde(abs))
	default:
		reason += fmt.Sprintf("grant it in the recipe with paths+: { read+: ['%s/**'] }", tilde(dir))
	}
	return &Result{Deny, "paths.scope", reason}
}

// scopeArg decides a command's path words under granted reads: the first
// that leads outside them denies it.
func (p *Policy) scopeArg(c *shellparse.Command, parsed *programs.Parsed) *Result {
	if !p.confined {
		return nil
	}
	skip := scriptOperand(c, parsed)
	for i := 1; i < len(c.Words); i++ {
		w := &c.Words[i]
		if w.Dynamic || w.Value == "" || i == skip || notAPath(parsed, i-1, w.Value) {
			continue // a dynamic word is checked again when it runs
		}
		dir := c.Name == "cd" || c.Name == "pushd"
		for _, v := range pathCandidates(w.Value, dir) {
			// / itself, but as where a command goes: what lies below it
			// is granted or not, one by one.
			if v == "/" && !dir {
				continue
			}
			if abs := p.read.resolve(v, p.cwd); p.outsideScope(abs, plainlyOutside(v)) {
				return p.scopeResult(fmt.Sprintf("%s names %s (%s)", c.Name, v, abs), abs)
			}
		}
	}
	return nil
}

// plainlyOutside reports whether a path word leads out of where it is
// resolved whatever that is: the home folder, or up.
func plainlyOutside(v string) bool {
	return strings.HasPrefix(v, "~") || v == ".." || strings.HasPrefix(v, "../")
}

// notAPath reports whether the program table reads the word at index at
// of those parsed as no path: an option it knows, written whole with no
// value in it (findstr /I, whose options start like paths).
func notAPath(parsed *programs.Parsed, at int, word string) bool {
	if parsed == nil {
		return false
	}
	for _, g := range parsed.Options {
		if g.Option == nil {
			continue
		}
		if g.At == at && g.Written == word && (!g.HasValue || g.Next) {
			return true
		}
	}
	return false
}

// pathCandidates are the paths a word may name: itself, an option's value
// after =, an attached short option's value that starts like a path
// (-f/etc/x); a word that only may be a path (a pattern, a name) counts
// when it starts like one: /, ~ or .. (every operand, for cd).
func pathCandidates(v string, dir bool) []string {
	switch {
	case strings.HasPrefix(v, "--"):
		if _, val, ok := strings.Cut(v, "="); ok && startsLikePath(val) {
			return []string{val}
		}
		return nil
	case strings.HasPrefix(v, "-") && len(v) > 2:
		for j := 2; j < len(v); j++ {
			if startsLikePath(v[j:]) {
				return []string{v[j:]}
			}
		}
		return nil
	case strings.HasPrefix(v, "-"):
		return nil
	case dir || startsLikePath(v):
		return []string{v}
	}
	if _, val, ok := strings.Cut(v, "="); ok && startsLikePath(val) {
		return []string{val} // dd if=/etc/x, make -C=…, KEY=/path
	}
	return nil
}

func startsLikePath(v string) bool {
	return strings.HasPrefix(v, "/") || strings.HasPrefix(v, "~") || v == ".." || strings.HasPrefix(v, "../") || strings.Contains(v, "/../")
}

// scriptOperand is the index, among c.Words, of the operand that is a
// pattern or a program rather than a path (grep PATTERN, sed SCRIPT, awk
// PROGRAM), when no option gave it; -1 otherwise.
func scriptOperand(c *shellparse.Command, parsed *programs.Parsed) int {
	if parsed == nil || len(parsed.Operands) == 0 {
		return -1
	}
	switch c.Name {
	case "grep", "egrep", "fgrep", "rg", "sed", "gsed", "awk", "gawk", "mawk", "jq":
		if parsed.Has("-e", "--regexp", "--expression", "-f", "--file") {
			return -1
		}
		return parsed.Operands[0].At + 1
	}
	return -1
}

// reveal is one paths.grant entry.
type reveal struct {
	path     string // absolute; * may stand in its last part
	commands globSet
}

// Revealed are the secret files of the workspace (paths.grant) that the
// program started with argv may read: the sandbox covers every other one
// it finds in the workspace.
func (p *Policy) Revealed(argv []string) []string {
	if len(p.reveals) == 0 || len(argv) == 0 {
		return nil
	}
	line := strings.Join(argv, " ")
	var out []string
	for _, r := range p.reveals {
		if _, ok := r.commands.match(line); ok {
			out = append(out, r.path)
		}
	}
	return out
}

// hostGrant is one sandbox.hosts entry.
type hostGrant struct {
	hosts    []string
	commands globSet
}

// GrantedHosts are the hosts the program started with argv may reach
// (sandbox.hosts, under network 'granted'): the sandbox gives it a proxy
// to them, and no other way out; none, no network at all.
func (p *Policy) GrantedHosts(argv []string) []string {
	if len(p.hosts) == 0 || len(argv) == 0 {
		return nil
	}
	line := strings.Join(argv, " ")
	var out []string
	for _, g := range p.hosts {
		if _, ok := g.commands.match(line); ok {
			out = append(out, g.hosts...)
		}
	}
	return out
}
