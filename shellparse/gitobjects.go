package shellparse

import "strings"

// GitObjects are the objects a git command prints whole while naming them
// other than as REV:PATH. git show HEAD:.env names a path, which the
// policy checks; git show 7c1c8c3 may name the same file's contents by
// object id (git ls-tree lists them), which no look at the words can tell:
// only the repository knows what an object is.
type GitObjects struct {
	Dirs  []string // git -C folders, in order
	Names []string // objects named in argv
	Input bool     // more objects are named on standard input (cat-file --batch)
	All   bool     // every object in the repository (cat-file --batch --batch-all-objects)
}

// GitObjectsOf tells whether c is git show or git cat-file printing
// objects, and which.
func GitObjectsOf(c *Command) (GitObjects, bool) {
	if c.Name != "git" {
		return GitObjects{}, false
	}
	var g GitObjects
	i, dirs := gitSubcommand(c.Argv)
	g.Dirs = dirs
	if i >= len(c.Argv) {
		return GitObjects{}, false
	}
	sub, args := c.Argv[i], c.Argv[i+1:]
	switch sub {
	case "show":
	case "grep":
		// git grep KEY BLOB searches the blob: what an id names is asked
		// as git show's are. (git diff of blobs is kept to its paths by
		// the walk guard's exclusions, which leave blobs out.)
	case "cat-file":
		batch, all := false, false
		for _, a := range fullOptions("git cat-file", args) { // --batch-all is --batch-all-objects
			switch {
			case a == "-t" || a == "-s" || a == "-e" || strings.HasPrefix(a, "--batch-check"):
				return GitObjects{}, false // what an object is, not what it holds
			case a == "--batch" || strings.HasPrefix(a, "--batch=") || strings.HasPrefix(a, "--batch-command"):
				batch = true
			case a == "--batch-all-objects":
				all = true
			}
		}
		if batch {
			g.Input, g.All = !all, all
			return g, true
		}
	default:
		return GitObjects{}, false
	}
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "" || a[0] == '-' || strings.Contains(a, ":") {
			continue // options, and REV:PATH (a path the policy checks)
		}
		if sub == "cat-file" && gitObjectTypes[a] {
			continue // git cat-file blob OBJECT
		}
		g.Names = append(g.Names, a)
	}
	return g, len(g.Names) > 0
}

var gitObjectTypes = map[string]bool{"blob": true, "tree": true, "commit": true, "tag": true}
