package shellparse

import (
	"fmt"
	"github.com/reinsh/rein/engine/programs"
	"io/fs"
	"slices"
	"strings"
)

// guardGit adds pathspecs excluding names to the git commands that print
// tracked files' contents (a committed .env among them): grep, and the
// patches of diff, show, and of log, whatchanged and diff-tree when asked
// for one. The exclusions only work after --, so the command's paths move
// there: git diff HEAD~1 src becomes git diff HEAD~1 -- src
// ':(exclude,glob)**/.env'.
//
// Which operands are paths is git's own rule: before --, an operand is a
// revision unless it is a file (stat finds it, relative to the folder git
// runs in) or looks like a pathspec (a wildcard, :(magic));
// from the first path on, everything is a path (with a -- of the
// command's own, all before it are revisions). Read the other way round,
// an operand makes git fail (a path taken for a revision) or matches
// nothing (a revision taken for a path); the exclusions hold either way.
// git diff --no-index of two folders takes no pathspecs: the exclusions
// make it fail; of two files, it is left alone. When more words follow
// (follow: xargs git diff --), they are paths only after a -- of the
// command's own: then they get no "." beside them; without one, the
// rewrite needs the end of argv (atEnd) and the caller refuses it.
// A nil stat knows of no files.
func guardGit(argv, names []string, stat func(string) (fs.FileInfo, error), follow bool) (out []string, atEnd bool, err error) {
	i, dirs := gitSubcommand(argv)
	if i >= len(argv) {
		return argv, false, nil
	}
	dir := ""
	for _, d := range dirs {
		dir = joinDir(dir, d)
	}
	sub, valued := argv[i], gitRevValued
	switch sub {
	case "grep":
		valued = gitGrepValued
		argv = append(argv[:i+1:i+1], fullOptions("git grep", argv[i+1:])...) // --max-d 2 is --max-depth 2
	case "diff", "show":
	case "log", "whatchanged", "diff-tree", "reflog": // reflog is log -g
		if !slices.ContainsFunc(argv[i+1:], printsPatch) {
			return argv, false, nil
		}
		if slices.Contains(argv[i+1:], "--full-diff") && slices.ContainsFunc(argv[i+1:], func(a string) bool { return a != "--full-diff" && printsPatch(a) }) {
			// Paths then only choose the commits: the patches show every
			// file, exclusions or not.
			return nil, false, fmt.Errorf("git %s --full-diff prints every file the chosen commits change, those named like secrets (%s) too: rein's exclusions only choose commits then; drop --full-diff", sub, someNames(names))
		}
	case "stash":
		out, err := guardStash(argv, i, names)
		return out, false, err
	case "add":
		out, err := guardAdd(argv, i, names, follow)
		return out, false, err
	default:
		return argv, false, nil
	}
	isFile := func(a string) bool {
		if stat == nil {
			return false
		}
		_, err := stat(joinDir(dir, a))
		return err == nil
	}

	out = append(make([]string, 0, len(argv)+len(names)+2), argv[:i+1]...)
	var paths []string
	// git grep's first operand is its pattern, unless -e or -f gave one,
	// and its options end there; the others take options among revisions.
	pattern := sub == "grep" && !grepPatternGiven(argv[i+1:])
	options := true
	// With a -- of its own, every operand before it is a revision.
	dashdash := slices.Contains(argv[i+1:], "--")
	for k := i + 1; k < len(argv); k++ {
		a := argv[k]
		switch {
		case a == "--":
			paths = append(paths, argv[k+1:]...)
			k = len(argv)
		case paths != nil:
			paths = append(paths, a)
		case options && len(a) > 1 && a[0] == '-':
			out = append(out, a)
			if (valued[a] || sub == "grep" && grepClusterValued(a)) && k+1 < len(argv) {
				k++
				out = append(out, argv[k])
			}
		case pattern:
			out = append(out, a)
			pattern, options = false, false
		case !dashdash && (looksLikePathspec(a) || isFile(a)):
			paths = append(paths, a)
		default: // a revision
			out = append(out, a)
			options = options && sub != "grep"
		}
	}
	if sub == "diff" && slices.Contains(out, "--no-index") && !slices.ContainsFunc(paths, func(a string) bool { return isFolder(stat, joinDir(dir, a)) }) {
		return argv, false, nil // two files compared, both named: nothing else is read
	}
	out = append(out, "--")
	switch {
	case follow && !dashdash:
		// The words to come would be read as revisions or paths, after
		// rein's --: they cannot follow it.
		atEnd = true
	case len(paths) == 0 && !follow:
		paths = append(paths, ".")
	}
	out = append(out, paths...)
	for _, n := range names {
		if !strings.Contains(n, "/") { // git tracks no .git/config
			out = append(out, gitExclusion+n)
		}
	}
	return out, atEnd, nil
}

// gitSubcommand returns where git's subcommand is in argv, after git's
// own options (-C DIR, -c NAME=VALUE, --no-pager), and the folders -C
// names, in order; len(argv) when there is no subcommand.
func gitSubcommand(argv []string) (int, []string) {
	var dirs []string
	i := 1
	for i < len(argv) && strings.HasPrefix(argv[i], "-") {
		if gitGlobalValued[argv[i]] && i+1 < len(argv) {
			if argv[i] == "-C" {
				dirs = append(dirs, argv[i+1])
			}
			i++
		}
		i++
	}
	return i, dirs
}

// gitExclusion starts each exclusion pathspec the git guards add.
const gitExclusion = ":(exclude,glob)**/"

// WithRepositoryExclusions adds to a git command the guards changed (run
// directly or through wrappers) exclusions of paths relative to the top of
// its repository's working tree: ":(exclude,top,glob)REL" for each of rel,
// beside the guard's own. Any other argv is returned as it is.
func WithRepositoryExclusions(argv, rel []string) []string {
	k := firstGitExclusion(argv)
	if k < 0 || len(rel) == 0 {
		return argv
	}
	out := append(make([]string, 0, len(argv)+len(rel)), argv[:k]...)
	for _, r := range rel {
		out = append(out, ":(exclude,top,glob)"+r)
	}
	return append(out, argv[k:]...)
}

func firstGitExclusion(argv []string) int {
	return slices.IndexFunc(argv, func(a string) bool { return strings.HasPrefix(a, gitExclusion) })
}

// GuardedGitFolder returns the folder a git command the guards gave
// exclusions to (run directly or through wrappers) works in, relative to
// where argv runs: its -C folders and a wrapper's (env -C) joined, "" for
// there. ok is false for any other argv.
func GuardedGitFolder(argv []string) (folder string, ok bool) {
	if firstGitExclusion(argv) < 0 {
		return "", false
	}
	for _, c := range AnalyzeArgv(argv, nil).Commands {
		if c.Name != "git" {
			continue
		}
		folder = c.Dir
		_, dirs := gitSubcommand(c.Argv)
		for _, d := range dirs {
			folder = joinDir(folder, d)
		}
		return folder, true
	}
	return "", false
}

// GitSubcommand returns git's subcommand in argv (config of git -C sub
// config --list), or "".
func GitSubcommand(argv []string) string {
	if i, _ := gitSubcommand(argv); i < len(argv) {
		return argv[i]
	}
	return ""
}

// Options whose value is the next word: git's own (before the
// subcommand), git grep's, and those of the revision walkers (log, diff,
// show).
var (
	gitGlobalValued = map[string]bool{"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true, "--config-env": true}
	gitGrepValued   = map[string]bool{
		"-e": true, "-f": true, "-A": true, "-B": true, "-C": true, "-m": true,
		"--regexp": true, "--file": true, "--max-depth": true, "--context": true, "--after-context": true,
		"--before-context": true, "--max-count": true, "--threads": true,
	}
	gitRevValued = map[string]bool{
		"-n": true, "-S": true, "-G": true, "-L": true, "--max-count": true, "--skip": true,
		"--author": true, "--committer": true, "--grep": true, "--grep-reflog": true, "--since": true,
		"--until": true, "--after": true, "--before": true, "--exclude": true, "--since-as-filter": true,
	}
)

// grepClusterValued reports whether a cluster of git grep's short flags
// ends in one that takes the next word (-ie KEY, -nA 2).
func grepClusterValued(a string) bool {
	return len(a) > 2 && a[1] != '-' && strings.IndexByte("efABCm", a[len(a)-1]) >= 0
}

// grepPatternGiven reports whether git grep's options give the pattern
// (-e, -f, --regexp, --file), so that no operand is one.
func grepPatternGiven(args []string) bool {
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a == "--" || len(a) < 2 || a[0] != '-':
			return false // the pattern itself: options end there
		case strings.HasPrefix(a, "--regexp") || strings.HasPrefix(a, "--file"):
			return true
		case a[1] != '-' && strings.ContainsAny(a, "ef") && !strings.ContainsAny(a[:strings.IndexAny(a, "ef")], "ABCm"):
			return true // -e, -ie; not -A3e... where e is a value
		case gitGrepValued[a] || grepClusterValued(a):
			k++ // its value
		}
	}
	return false
}

// printsPatch reports whether a log, whatchanged or diff-tree option makes
// it print patches (file contents).
func printsPatch(a string) bool {
	if len(a) > 2 && a[0] == '-' && a[1] != '-' && !strings.Contains(a, "=") {
		// A cluster of letters (-Dp is -D -p), read as git log reads it.
		if log := programs.Lookup("git").Subcommand("log"); log != nil {
			for _, g := range log.Parse([]string{a}).Options {
				if g.Option != nil && slices.ContainsFunc(g.Option.Names, func(n string) bool { return n != a && printsPatch(n) }) {
					return true
				}
			}
		}
	}
	switch a {
	case "-p", "-u", "--patch", "--patch-with-stat", "--patch-with-raw", "-c", "--cc", "--dd", "-m",
		"--remerge-diff", "-W", "--function-context", "--binary", "--full-diff":
		return true
	}
	for _, prefix := range []string{"-U", "--unified", "--word-diff", "--color-words", "--diff-merges"} {
		if strings.HasPrefix(a, prefix) {
			return true
		}
	}
	return false
}

// looksLikePathspec reports whether git takes an operand as a pathspec
// whether or not a file of that name exists: a wildcard or :(magic).
func looksLikePathspec(a string) bool {
	return strings.ContainsAny(a, "*?[") || strings.HasPrefix(a, ":(") || strings.HasPrefix(a, ":!") || strings.HasPrefix(a, ":^")
}

// guardStash keeps git stash show to its summary: the stash's patch would
// hold stashed changes to files named like secrets, and stash show takes no
// pathspecs to leave them out. i is where stash is in argv.
func guardStash(argv []string, i int, names []string) ([]string, error) {
	if i+1 < len(argv) && argv[i+1] == "list" && slices.ContainsFunc(argv[i+2:], printsPatch) {
		return nil, fmt.Errorf("git stash list -p prints the stashed changes of every file, those named like secrets (%s) too; use git stash list, then git diff STASH^ STASH, where rein leaves them out", someNames(names))
	}
	if i+1 >= len(argv) || argv[i+1] != "show" {
		return argv, nil
	}
	if slices.ContainsFunc(argv[i+2:], printsPatch) {
		return nil, fmt.Errorf("git stash show -p prints the stashed changes of every file, those named like secrets (%s) too, and takes no pathspecs to leave them out; use git diff STASH^ STASH (for stash@{0}: git diff 'stash@{0}^' 'stash@{0}'), where rein leaves them out", someNames(names))
	}
	// A configured stash.showPatch would print the patch all the same.
	out := append(slices.Clone(argv[:i]), "-c", "stash.showPatch=false")
	return append(out, argv[i:]...), nil
}

// guardAdd keeps git add from staging files named like secrets: git add .
// and git add -A would put an untracked .env in the index, and a commit
// after it into history (which rein's readers leave out, but a push or a
// clone would not). The paths go after a --, followed by the exclusions;
// with no paths, -A or -u stage the whole tree, which exclusions alone also
// mean to git. A git add that stages nothing of itself is left alone, as
// is one that more words follow (xargs git add: every word is a path).
func guardAdd(argv []string, i int, names []string, follow bool) ([]string, error) {
	if follow {
		return argv, nil
	}
	out := append(make([]string, 0, len(argv)+len(names)+1), argv[:i+1]...)
	var paths []string
	whole := false
	for k := i + 1; k < len(argv); k++ {
		a := fullOption("git add", argv[k])
		switch {
		case a == "--":
			paths = append(paths, argv[k+1:]...)
			k = len(argv)
		case strings.HasPrefix(a, "--pathspec-from-file"):
			return nil, fmt.Errorf("git add --pathspec-from-file takes no pathspecs beside it, so rein cannot keep files named like secrets (%s) out of the index; name the paths", someNames(names))
		case a == "--chmod":
			out = append(out, a)
			if k+1 < len(argv) {
				k++
				out = append(out, argv[k])
			}
		case a == "--all" || a == "--update" || a == "--renormalize" || a == "--no-ignore-removal":
			whole = true
			out = append(out, a)
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			whole = whole || strings.ContainsAny(a[1:], "Au")
			out = append(out, a)
		case len(a) > 1 && a[0] == '-':
			out = append(out, a)
		default:
			paths = append(paths, a)
		}
	}
	if len(paths) == 0 && !whole {
		return argv, nil
	}
	out = append(append(out, "--"), paths...)
	for _, n := range names {
		if !strings.Contains(n, "/") {
			out = append(out, gitExclusion+n)
		}
	}
	return out, nil
}
