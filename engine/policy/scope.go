package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

// Reads confined to the workspace (paths.scope: 'workspace'): a path a
// command names — an operand, an option's value, a redirect, the folder cd
// goes to — must lie in the workspace or in the system folders programs
// need (recipe.SystemFolders). The sandbox's read side grants the same, so
// what vetting cannot see (a script's own reads) is held there too.

// outsideScope reports whether abs is a place commands may not read under
// a confined recipe.
func (p *Policy) outsideScope(abs string) bool {
	if Inside(abs, p.workspace) {
		return false
	}
	return !slices.ContainsFunc(recipe.SystemFolders, func(dir string) bool { return Inside(abs, dir) })
}

// scopeArg decides a command's path words under a confined recipe: the
// first that leads outside the workspace and the system folders denies it.
func (p *Policy) scopeArg(c *shellparse.Command, parsed *programs.Parsed) *Result {
	if !p.confined {
		return nil
	}
	skip := scriptOperand(c, parsed)
	for i := 1; i < len(c.Words); i++ {
		w := &c.Words[i]
		if w.Dynamic || w.Value == "" || i == skip {
			continue // a dynamic word is checked again when it runs
		}
		for _, v := range pathCandidates(w.Value, c.Name == "cd" || c.Name == "pushd") {
			if abs := p.read.resolve(v, p.cwd); p.outsideScope(abs) {
				return &Result{Deny, "paths.scope", fmt.Sprintf("%s names %s (%s), outside the workspace %s: this recipe's commands read only the workspace and the system folders (paths.scope: 'workspace')", c.Name, v, abs, p.workspace)}
			}
		}
	}
	return nil
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
