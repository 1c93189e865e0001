package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

// secretArg denies a command whose arguments name a secret path.
func (p *Policy) secretArg(c *shellparse.Command) *Result {
	for i := 1; i < len(c.Words); i++ {
		w := &c.Words[i]
		if w.Dynamic {
			// ~/.ssh/* lists a secret folder whatever it expands to; other
			// dynamic words are checked again at run time, expanded.
			if dir, ok := w.GlobDir(); ok {
				if pat, ok := p.secret.match(p.secret.resolve(dir, p.cwd)); ok {
					return &Result{Deny, "paths.deny", fmt.Sprintf("%s names %s, files in the secret path %s", c.Name, w.Value, pat)}
				}
			}
			continue
		}
		if w.Value == "" {
			continue
		}
		v, bare := w.Value, false
		if v[0] == '@' && len(v) > 1 && shellparse.ReadsResponseFiles(c.Name) {
			v = v[1:] // strings @FILE reads FILE
		}
		if len(v) > 2 && v[0] == '-' && v[1] != '-' {
			// A short option's value may be written attached (-fFILE,
			// git log -L1,5:.env), after other options (grep -rf.env), and
			// which letters take one is each program's business: every
			// tail of the word is a candidate.
			for j := 2; j < len(v); j++ {
				if pat, ok := p.SecretWord(v[j:]); ok {
					return &Result{Deny, "paths.deny", fmt.Sprintf("%s names %s in %s, which matches the secret path %s", c.Name, v[j:], v, pat)}
				}
			}
			continue
		}
		if v[0] == '-' {
			_, val, ok := strings.Cut(v, "=")
			if !ok || val == "" {
				continue
			}
			v, bare = val, shellparse.IsBareName(val)
		} else {
			bare = w.BareName() // known from analysis, mostly
		}
		if p.cwdClear && bare {
			// The common word: a name in the working folder, which only
			// the base-name globs can match (what SecretWord comes to).
			if pat, ok := p.secret.matchName(v); ok {
				return &Result{Deny, "paths.deny", fmt.Sprintf("%s names %s, which matches the secret path %s", c.Name, v, pat)}
			}
			continue
		}
		// REV:PATH (git show HEAD:.env) and HOST:PATH (scp) too.
		if pat, ok := p.SecretWord(v); ok {
			return &Result{Deny, "paths.deny", fmt.Sprintf("%s names %s, which matches the secret path %s", c.Name, v, pat)}
		}
	}
	if c.Name == "sed" || c.Name == "gsed" {
		// The files of its script's r, R, w and W commands (sed 1R.env).
		s := shellparse.SedOf(c)
		for _, f := range append(s.Reads, s.Writes...) {
			if pat, ok := p.SecretWord(f); ok {
				return &Result{Deny, "paths.deny", fmt.Sprintf("%s's script names %s, which matches the secret path %s", c.Name, f, pat)}
			}
		}
	}
	return nil
}

// SecretWord reports whether a word, taken as a path from the policy's
// working folder, names a secret (or does after a colon, as in HEAD:.env),
// and which secret glob it matches. Runners use it on words that reach a
// program other than through its argv (xargs input).
func (p *Policy) SecretWord(v string) (string, bool) {
	if v == "" {
		return "", false
	}
	if pat, ok := p.secretPath(v); ok {
		return pat, true
	}
	if i := strings.LastIndexByte(v, ':'); i >= 0 && i+1 < len(v) {
		return p.secretPath(v[i+1:])
	}
	return "", false
}

// secretPath matches one path argument against the secret globs.
func (p *Policy) secretPath(v string) (string, bool) {
	if p.cwdClear && plainRelative(v) {
		// A plain relative path stays below cwd, where no anchored
		// secret glob reaches: only its base name can match, or its own
		// names a glob such as **/.git/config.
		if pat, ok := p.secret.matchName(path.Base(filepath.ToSlash(v))); ok {
			return pat, true
		}
		return p.secret.matchRelative(v)
	}
	return p.secret.match(p.secret.resolve(v, p.cwd))
}

// plainRelative reports whether a path argument stays below the working
// folder: not absolute, not from ~, no "..".
func plainRelative(v string) bool {
	return !strings.HasPrefix(v, "/") && !strings.HasPrefix(v, "~") && !strings.HasPrefix(v, `\`) && !strings.Contains(v, "..")
}
