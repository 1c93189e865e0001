package policy

import "strings"

// Glob matches the whole of s against pattern, where * matches any run of
// characters (including spaces and slashes), ? one character, and [...] a
// character class ([!...] negated). A backslash escapes the next character.
func Glob(pattern, s string) bool {
	px, sx := 0, 0
	nextPx, nextSx := 0, -1
	for px < len(pattern) || sx < len(s) {
		if px < len(pattern) {
			switch c := pattern[px]; c {
			case '*':
				nextPx, nextSx = px, sx+1
				px++
				continue
			case '?':
				if sx < len(s) {
					px++
					sx++
					continue
				}
			case '[':
				if sx < len(s) {
					if ok, width := matchClass(pattern[px:], s[sx]); width > 0 {
						if ok {
							px += width
							sx++
							continue
						}
						break
					}
				}
				if sx < len(s) && s[sx] == '[' {
					px++
					sx++
					continue
				}
			case '\\':
				if px+1 < len(pattern) && sx < len(s) && pattern[px+1] == s[sx] {
					px += 2
					sx++
					continue
				}
			default:
				if sx < len(s) && s[sx] == c {
					px++
					sx++
					continue
				}
			}
		}
		if nextSx > 0 && nextSx <= len(s) {
			px, sx = nextPx, nextSx
			continue
		}
		return false
	}
	return true
}

// matchClass matches c against a [...] class at the start of p. width is 0
// when p does not start a well-formed class.
func matchClass(p string, c byte) (ok bool, width int) {
	end := strings.IndexByte(p[1:], ']')
	if end < 0 {
		return false, 0
	}
	if end == 0 { // "[]...]": ']' first is literal
		next := strings.IndexByte(p[2:], ']')
		if next < 0 {
			return false, 0
		}
		end = next + 1
	}
	class := p[1 : end+1]
	negate := false
	if len(class) > 0 && (class[0] == '!' || class[0] == '^') {
		negate, class = true, class[1:]
	}
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			if class[i] <= c && c <= class[i+2] {
				ok = true
			}
			i += 2
			continue
		}
		if class[i] == c {
			ok = true
		}
	}
	return ok != negate, end + 2
}

// globSet is a list of patterns with their literal prefixes precomputed so
// that most non-matching inputs are rejected without running the matcher.
type globSet []globEntry

type globEntry struct {
	pattern string
	prefix  string
}

func newGlobSet(patterns []string) globSet {
	set := make(globSet, 0, len(patterns))
	for _, p := range patterns {
		prefix := p
		if i := strings.IndexAny(p, `*?[\`); i >= 0 {
			prefix = p[:i]
		}
		set = append(set, globEntry{pattern: p, prefix: prefix})
	}
	return set
}

// match returns the first pattern that matches s.
// patterns lists the set's globs, for messages.
func (g globSet) patterns() string {
	out := make([]string, len(g))
	for i, e := range g {
		out[i] = e.pattern
	}
	return strings.Join(out, ", ")
}

func (g globSet) match(s string) (string, bool) {
	for _, e := range g {
		if strings.HasPrefix(s, e.prefix) && Glob(e.pattern, s) {
			return e.pattern, true
		}
	}
	return "", false
}
