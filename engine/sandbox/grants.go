package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// readGrants grants reading roots (everywhere, when there are none) except
// the hidden paths. Landlock only grants, so every sibling along the way
// down from a root to a hidden path is granted instead of its parent.
func readGrants(roots, hide []string) *ReadGrants {
	if len(roots) == 0 {
		roots = []string{"/"}
	}
	g := &ReadGrants{}
	for _, root := range roots {
		g.add(root, hide)
	}
	return g
}

// own is the ReadGrants of the paths that lead somewhere else in each
// process (/dev/stderr), as the process calling it sees them.
func (g *ReadGrants) own() (dirs, files []string) {
	for _, p := range g.Own {
		st, err := os.Stat(p)
		switch {
		case err != nil:
		case st.IsDir():
			dirs = append(dirs, p)
		case st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0:
			// /dev/stderr leads to the helper's own pipe, which Landlock
			// cannot take a rule for.
		default:
			files = append(files, p)
		}
	}
	return dirs, files
}

// add adds what granting root takes: the root itself, or, where hidden
// paths lie in it, the siblings along the way down to each, and the
// folders on the way (listable only).
func (g *ReadGrants) add(root string, hide []string) {
	st, err := os.Stat(root)
	if err != nil {
		return
	}
	if !st.IsDir() {
		g.Files = append(g.Files, root)
		return
	}
	hidden := map[string]bool{}
	anc := map[string]bool{}
	for _, h := range hide {
		if h == root || !insideDir(h, root) {
			continue
		}
		hidden[h] = true
		for d := filepath.Dir(h); ; d = filepath.Dir(d) {
			anc[d] = true
			if d == root || d == "/" {
				break
			}
		}
	}
	if len(hidden) == 0 {
		g.Dirs = append(g.Dirs, root)
		return
	}
	for dir := range anc {
		g.List = append(g.List, dir)
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if hidden[p] || anc[p] {
				continue
			}
			if e.Type()&os.ModeSymlink != 0 {
				if to, err := os.Readlink(p); err == nil && strings.HasPrefix(to, "/proc/self") {
					// /dev/stdin, /dev/fd: where they lead differs in
					// each process, so the helper looks for itself.
					g.Own = append(g.Own, p)
					continue
				}
				// A rule opens what the link leads to: ~/keys -> ~/.ssh
				// would grant the hidden folder itself, and a link to a
				// folder that holds one, all of it. Such a link is left
				// ungranted.
				if real, err := filepath.EvalSymlinks(p); err == nil && slices.ContainsFunc(hide, func(h string) bool {
					return within(real, h) || insideDir(h, real)
				}) {
					continue
				}
			}
			st, err := os.Stat(p) // follows links: /bin -> usr/bin
			switch {
			case err != nil:
			case st.IsDir():
				g.Dirs = append(g.Dirs, p)
			case st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0:
				// A pipe or socket Landlock cannot take a rule for.
			default:
				g.Files = append(g.Files, p)
			}
		}
	}
}

// coverable are the hidden paths a mount should cover where the helper has
// its own mount namespace: those not in a folder where most entries are
// hidden (/dev's terminals are better left out of Landlock's grants), and
// not links (a mount would cover where the link leads instead).
func coverable(hide []string) []string {
	byFolder := map[string][]string{}
	for _, h := range hide {
		if st, err := os.Lstat(h); err == nil && st.Mode()&os.ModeSymlink == 0 {
			byFolder[filepath.Dir(h)] = append(byFolder[filepath.Dir(h)], h)
		}
	}
	var out []string
	for dir, paths := range byFolder {
		names, err := os.ReadDir(dir)
		if err == nil && 2*len(paths) <= len(names) {
			out = append(out, paths...)
		}
	}
	slices.Sort(out)
	return out
}

// insideDir reports whether p lies in dir ("/" holds everything).
func insideDir(p, dir string) bool {
	return dir == "/" || strings.HasPrefix(p, strings.TrimSuffix(dir, "/")+"/")
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	return p == dir || insideDir(p, dir)
}
