package policy

import (
	"path"
	"strings"
)

// flagValues returns the values a command gives the named options, read the
// ways programs read them: --name=V and --name V (also abbreviated, --na=V,
// as GNU getopt_long and git take it); -name=V, -name V, --name=V and
// --name V for a Go-style -name (and for a letter: go build --o=x); -x V
// and -xV for a letter, also at the end of a cluster of letters (-vx V) or
// inside one (-vxV). Which options take a value is each program's
// business, so where a word can be read more than one way every reading is
// returned (-x=V gives =V, as getopt reads it, and V, as Go's flag package
// does): a rule that tests each value sees too many rather than too few.
// Words after -- are operands. Names that include a -name of several
// letters are a Go-style program's, whose single-dash words are never
// clusters: go test -count=1 does not give -o the value unt=1.
func flagValues(c *CmdEnv, names ...string) []string {
	if c == nil {
		return nil
	}
	words := false
	for _, n := range names {
		if len(n) > 2 && n[1] != '-' {
			words = true
		}
	}
	var out []string
	args := c.Args
	for i := 0; i < len(args); i++ {
		tok := args[i]
		if tok == "--" {
			break
		}
		if len(tok) < 2 || tok[0] != '-' {
			continue
		}
		next := i+1 < len(args)
		for _, n := range names {
			vals, takesNext := optionValues(tok, n, words)
			out = append(out, vals...)
			if takesNext && next {
				out = append(out, args[i+1])
			}
		}
	}
	return out
}

// optionValues reads one word as the option name: the values written in
// the word, and whether the option would take the next word as its value.
// words: single-dash words are whole names, not clusters of letters.
func optionValues(tok, name string, words bool) (vals []string, takesNext bool) {
	if len(name) < 2 || name[0] != '-' {
		return nil, false
	}
	written, val, valued := strings.Cut(tok, "=")
	if len(name) == 2 && !words && written != "-"+name {
		return letterValues(tok, name[1])
	}
	if written == name || written == "-"+name || spells(written, name) {
		if valued {
			return []string{val}, false
		}
		return nil, true
	}
	return nil, false
}

// letterValues reads a word as a cluster of single-letter options that may
// hold -x.
func letterValues(tok string, x byte) (vals []string, takesNext bool) {
	if strings.HasPrefix(tok, "--") {
		return nil, false
	}
	for i := 1; i < len(tok); i++ {
		c := tok[i]
		if c == x {
			rest := tok[i+1:]
			if rest == "" {
				return vals, true
			}
			vals = append(vals, rest)
			if r, ok := strings.CutPrefix(rest, "="); ok {
				vals = append(vals, r)
			}
			return vals, false
		}
		if !isLetter(c) {
			// -W=x: the rest of the word is a value, not more letters.
			return vals, false
		}
	}
	return vals, false
}

func isLetter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// absPath is the absolute path an argument names for the command: relative
// to the folder it runs in, with ~ for the home folder.
func absPath(c *CmdEnv, p string) string {
	if c == nil || c.pol == nil {
		return path.Clean(p)
	}
	return c.pol.secret.resolve(p, c.cwd)
}

// mayWrite reports whether the recipe lets the command write the path:
// paths.write allows it, and it is neither secret nor protected.
func mayWrite(c *CmdEnv, p string) bool {
	if c == nil || c.pol == nil {
		return false
	}
	return c.pol.CheckPath(absPath(c, p), true).Verdict == Allow
}
