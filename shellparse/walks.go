package shellparse

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

// Programs that walk folders themselves: grep -r TOKEN ~ reads every file
// below ~ without naming one, so no look at argv (analysis or run time)
// sees which files are read. FolderReads says which folders such a command
// walks; WalkWithout changes argv so that the walk skips given names and
// follows no links.

// Flags whose value is the next word, per family. A flag missing here
// makes its value look like an operand: at worst one folder too many is
// reported. A flag listed that takes no value would hide a folder, so only
// flags that take a value in every program of the family are listed.
var (
	grepValueFlags = map[string]bool{
		"-e": true, "-f": true, "-m": true, "-A": true, "-B": true, "-C": true, "-d": true, "-D": true,
		"--regexp": true, "--file": true, "--max-count": true, "--after-context": true, "--before-context": true,
		"--context": true, "--directories": true, "--devices": true, "--include": true, "--exclude": true,
		"--exclude-from": true, "--exclude-dir": true, "--label": true, "--binary-files": true,
	}
	ripgrepValueFlags = map[string]bool{
		"-e": true, "-f": true, "-g": true, "-t": true, "-T": true, "-A": true, "-B": true, "-C": true,
		"-m": true, "-j": true, "-M": true, "-E": true, "-d": true, "-r": true,
		"--regexp": true, "--file": true, "--glob": true, "--iglob": true, "--type": true, "--type-not": true,
		"--type-add": true, "--after-context": true, "--before-context": true, "--context": true,
		"--max-count": true, "--threads": true, "--max-columns": true, "--encoding": true, "--max-depth": true,
		"--ignore-file": true, "--sort": true, "--sortr": true, "--max-filesize": true, "--replace": true,
		"--path-separator": true, "--pre-glob": true,
	}
	// The short flags of grep and rg that take a value, in clusters too
	// (-e PATTERN, -ie PATTERN).
	grepValued, ripgrepValued = "defmABCD", "efgtTABCmjMEdr"
	// The other searchers differ in the rest (ack -r recurses, rg -r
	// replaces), so only their context and count flags are taken as valued.
	contextValueFlags = map[string]bool{"-A": true, "-B": true, "-C": true, "-m": true}
)

// nonReaders are programs that, handed file names, do not read the files'
// contents: find / -exec ls -l {} + and find ~ | xargs dirname show names
// and metadata only. (Whether they may run at all is decided elsewhere.)
var nonReaders = map[string]bool{
	"ls": true, "stat": true, "du": true, "dirname": true, "basename": true, "echo": true, "printf": true,
	"test": true, "[": true, "realpath": true, "readlink": true, "file": true, "wc": true, "true": true,
	"false": true, "rm": true, "rmdir": true, "mv": true, "ln": true, "touch": true, "mkdir": true,
	"chmod": true, "chown": true, "chgrp": true,
}

// findExecReads reports whether find runs a program that reads the files
// it is handed (-exec cat {} +, -exec sh -c ...).
func findExecReads(c *Command) bool {
	for i := 0; i+1 < len(c.Words); i++ { // by index: a Word is 40 bytes to copy
		switch c.Words[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
			next := &c.Words[i+1]
			if next.Dynamic || !nonReaders[path.Base(next.Value)] {
				return true
			}
		}
	}
	return false
}

// FolderReads returns the words of c that name folders whose files c reads
// recursively (grep -r, rg, tar, cp -r, diff -r): the program does the
// walking, so no check of its argv sees the files. A lister (find, fd)
// counts when it hands what it finds to a reading program, by -exec or,
// through the script s, to xargs. Empty when c reads no folder that way.
//
// A searcher given no folder walks the one it runs in (grep -r PATTERN,
// rg PATTERN, find -exec …, fd -x …): that is "." here.
func FolderReads(c *Command, s *Script) []Word {
	switch c.Name {
	case "grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "ugrep":
		if !grepRecursive(c) {
			return nil
		}
		return orHere(searchPaths(c, grepValueFlags))
	case "rg":
		return orHere(searchPaths(c, ripgrepValueFlags))
	case "ag", "ack", "ack-grep", "pt", "sift":
		return orHere(searchPaths(c, contextValueFlags))
	case "tar", "bsdtar", "zip", "7z", "7za":
		return operands(c, 0)
	case "diff", "colordiff":
		if !hasAnyFlag(c, "-r", "--recursive") {
			return nil
		}
		return operands(c, 0)
	case "cp", "rsync", "scp":
		if !hasAnyFlag(c, "-r", "-R", "-a", "--recursive", "--archive") {
			return nil
		}
		ops := operands(c, 0)
		if len(ops) > 0 {
			ops = ops[:len(ops)-1] // the destination is written, not read
		}
		return ops
	case "find":
		if !findExecReads(c) && !xargsReads(s) {
			return nil
		}
		return orHere(findStarts(c))
	case "fd", "fdfind":
		if !hasAnyFlag(c, "-x", "-X", "--exec", "--exec-batch") && !xargsReads(s) {
			return nil
		}
		return orHere(searchPaths(c, ripgrepValueFlags))
	}
	return nil
}

// here is the folder a searcher given none walks.
var here = []Word{{Value: "."}}

func orHere(folders []Word) []Word {
	if len(folders) == 0 {
		return here
	}
	return folders
}

// grepRecursive reads grep's flags without splitting them all: grep is
// among the commands vetted most, and most of its uses are not recursive.
func grepRecursive(c *Command) bool {
	for i := 1; i < len(c.Words); i++ {
		v := c.Words[i].Value
		if len(v) > 2 && v[1] == '-' {
			v = fullOption("grep", v) // --recur
		}
		switch {
		case v == "--":
			return false
		case v == "--recursive" || v == "--dereference-recursive" || v == "--directories=recurse":
			return true
		case v == "--directories":
			if i+1 < len(c.Words) && c.Words[i+1].Value == "recurse" {
				return true
			}
			i++ // its value
		case len(v) > 1 && v[0] == '-' && v[1] != '-':
		cluster:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'r', 'R':
					return true
				case 'd', 'e', 'f', 'm', 'A', 'B', 'C', 'D':
					// The flag's value is the rest of the word, or the next.
					value := v[j+1:]
					if value == "" && i+1 < len(c.Words) {
						i++
						value = c.Words[i].Value
					}
					if v[j] == 'd' && value == "recurse" {
						return true
					}
					break cluster
				}
			}
		}
	}
	return false
}

// hasAnyFlag reports whether one of names is among c's flags (short
// clusters split; --name=value matched by its name or whole; an
// abbreviation by the option it is short for).
func hasAnyFlag(c *Command, names ...string) bool {
	c.Split()
	for _, f := range c.Flags {
		name := fullOption(c.Name, f.Name)
		if slices.Contains(names, name) || f.HasValue && slices.Contains(names, name+"="+f.Value) {
			return true
		}
	}
	return false
}

// operands are c's words that are not flags (nor the value of a flag in
// valueFlags), skipping the first skip of them.
func operands(c *Command, skip int, valueFlags ...map[string]bool) []Word {
	var out []Word
	endOfFlags := false
	for i := 1; i < len(c.Words); i++ {
		w := c.Words[i]
		v := w.Value
		switch {
		case !endOfFlags && v == "--":
			endOfFlags = true
		case !endOfFlags && len(v) > 1 && v[0] == '-':
			if len(valueFlags) > 0 && valueFlags[0][v] {
				i++ // its value
			}
		case skip > 0:
			skip--
		default:
			out = append(out, w)
		}
	}
	return out
}

// searchPaths are a search command's folders: its operands after the
// pattern (none when the pattern comes from -e or -f, or with --files).
func searchPaths(c *Command, valueFlags map[string]bool) []Word {
	skip := 1
	if hasAnyFlag(c, "-e", "-f", "--regexp", "--file", "--files") {
		skip = 0
	}
	return operands(c, skip, valueFlags)
}

// findStarts are the folders find walks: the words before its expression.
func findStarts(c *Command) []Word {
	var out []Word
	for _, w := range c.Words[1:] {
		v := w.Value
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" || v == "," {
			if v == "-H" || v == "-L" || v == "-P" {
				continue // options before the start points
			}
			break
		}
		out = append(out, w)
	}
	return out
}

// guardProgram returns argv changed so that the program walking folders
// it starts (not through a wrapper: see WalkWithout) skips names, or argv
// itself.
func guardProgram(argv []string, names []string, stat func(name string) (fs.FileInfo, error)) ([]string, error) {
	// option excludes a base name; folder excludes a folder, which is how a
	// path name (.git/config) is kept out: its whole first folder is.
	var option, folder string
	var includes func(string) (include, valueNext bool)
	program := walkerName(argv[0])
	argv = fullOptions(program, argv) // grep --incl='*env' is --include
	switch program {
	case "grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "ugrep":
		words := make([]Word, len(argv))
		for i, a := range argv {
			words[i] = Word{Value: a}
		}
		if !grepRecursive(&Command{Words: words}) {
			return argv, nil
		}
		argv, option = unfollow(argv, 'R', 'r', grepValued, map[string]string{"--dereference-recursive": "--recursive"}), "--exclude="
		folder = "--exclude-dir="
		includes = grepInclude
	case "rg":
		argv, option = unfollow(argv, 'L', 0, ripgrepValued, map[string]string{"--follow": ""}), "--glob=!"
		folder = "--glob=!"
		includes = ripgrepInclude
	case "fd", "fdfind":
		argv, option = unfollow(argv, 'L', 0, "etdEcxXjSo", map[string]string{"--follow": ""}), "--exclude="
		folder = "--exclude="
	case "find":
		return guardFind(argv, names), nil
	case "tar", "gtar", "bsdtar":
		// tar walks the folders it archives, and prints the members it
		// extracts with -O; its exclusions must come before the operands.
		var err error
		if argv, err = modernTar(argv, names); err != nil {
			return nil, err
		}
		option, folder = "--exclude=", "--exclude="
	case "diff", "colordiff":
		// Two folders are compared file by file (recursively with -r), a
		// .env in both printed; diff of two files needs no exclusion
		// (and busybox diff has none).
		if !slices.ContainsFunc(argv[1:], func(a string) bool { return isFolder(stat, diffOperand(a)) }) {
			return argv, nil
		}
		option, folder = "--exclude=", "--exclude="
	default:
		return argv, nil
	}
	excludes := make([]string, len(names))
	for k, n := range names {
		excludes[k] = option + n
		if first, _, isPath := strings.Cut(n, "/"); isPath {
			excludes[k] = folder + first
		}
	}
	out := make([]string, 0, len(argv)+len(names))
	out = append(append(out, argv[0]), excludes...)
	// grep and rg let the last matching --include/--exclude (glob) win:
	// --include='*env' given after the exclusions would let .env back in.
	// So they are given again after every inclusion, wherever it is.
	for k := 1; k < len(argv); k++ {
		a := argv[k]
		out = append(out, a)
		if a == "--" {
			return append(out, argv[k+1:]...), nil
		}
		if includes == nil {
			continue
		}
		include, valueNext := includes(a)
		if valueNext && k+1 < len(argv) {
			k++
			out = append(out, argv[k])
		}
		if include {
			out = append(out, excludes...)
		}
	}
	return out, nil
}

// tarValueLetters are the letters of tar's old-style option bundle that
// take the next word (tar cfb FILE 20: f takes FILE, b takes 20).
const tarValueLetters = "bfCgKLNTVXHIF"

// modernTar returns tar's argv with an old-style option bundle (tar cf -
// .) written with a dash (-cf - .), which means the same when at most its
// last letter takes a value, so that options may go in front of it.
func modernTar(argv, names []string) ([]string, error) {
	if len(argv) < 2 || argv[1] == "" || argv[1][0] == '-' {
		return argv, nil
	}
	bundle := argv[1]
	if i := strings.IndexAny(bundle, tarValueLetters); i >= 0 && i < len(bundle)-1 {
		return nil, fmt.Errorf("tar %s: the letters of this option bundle take their values in order, and rein must put its exclusions of files named like secrets (%s) before it; write the options with dashes (tar -c -f FILE ...)", bundle, someNames(names))
	}
	out := append([]string{argv[0], "-" + bundle}, argv[2:]...)
	return out, nil
}

// grepInclude reports whether a grep argument is --include, and whether
// the next word is its value (or that of another flag).
func grepInclude(a string) (include, valueNext bool) {
	return a == "--include" || strings.HasPrefix(a, "--include="), a == "--include" || flagValueNext(a, grepValued, grepValueFlags)
}

// ripgrepInclude reports whether an rg argument is a glob (--glob,
// --iglob, -g, also in a cluster: -ig), and whether the next word is its
// value (or that of another flag).
func ripgrepInclude(a string) (include, valueNext bool) {
	include = a == "--glob" || a == "--iglob" || strings.HasPrefix(a, "--glob=") || strings.HasPrefix(a, "--iglob=")
	if len(a) > 1 && a[0] == '-' && a[1] != '-' {
		if j := strings.IndexAny(a, ripgrepValued); j > 0 {
			include = a[j] == 'g'
		}
	}
	return include, flagValueNext(a, ripgrepValued, ripgrepValueFlags)
}

// flagValueNext reports whether the word after a is a's value: a is a long
// flag in long, or a cluster of short flags whose first one taking a value
// (one of valued) ends it.
func flagValueNext(a, valued string, long map[string]bool) bool {
	if long[a] {
		return true
	}
	if len(a) < 2 || a[0] != '-' || a[1] == '-' {
		return false
	}
	j := strings.IndexAny(a[1:], valued)
	return j >= 0 && j+2 == len(a)
}

// diffOperand is the file an argument of diff names, if it names one:
// itself, or the value of --from-file= and --to-file=.
func diffOperand(a string) string {
	for _, flag := range []string{"--from-file=", "--to-file="} {
		if v, ok := strings.CutPrefix(a, flag); ok {
			return v
		}
	}
	if strings.HasPrefix(a, "-") {
		return ""
	}
	return a
}

// isFolder reports whether name is a folder; with no stat, a name may be
// one.
func isFolder(stat func(string) (fs.FileInfo, error), name string) bool {
	if name == "" {
		return false
	}
	if stat == nil {
		return true
	}
	fi, err := stat(name)
	return err == nil && fi.IsDir()
}

// unfollow keeps a walking program from following symbolic links: a link
// in the workspace (a cloned repository may hold `up -> ../..`) would lead
// its walk to folders no argument named. The short flag follow becomes
// instead (or goes, when instead is 0) in every cluster, up to a flag that
// takes a value (valued: the rest of the word, or the next word, is that
// value); long flags are replaced by their entry in long ("" drops them).
// Words after -- are left alone.
func unfollow(argv []string, follow, instead byte, valued string, long map[string]string) []string {
	out := []string{argv[0]}
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if a == "--" {
			return append(out, argv[i:]...)
		}
		if repl, ok := long[a]; ok {
			if repl != "" {
				out = append(out, repl)
			}
			continue
		}
		if len(a) < 2 || a[0] != '-' || a[1] == '-' {
			out = append(out, a)
			continue
		}
		b := []byte{'-'}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(valued, c) >= 0 {
				b = append(b, a[j:]...)
				if j == len(a)-1 && i+1 < len(argv) {
					i++
					out = append(out, string(b), argv[i]) // the value, as it is
					b = nil
				}
				break
			}
			if c == follow {
				if instead == 0 {
					continue
				}
				c = instead
			}
			b = append(b, c)
		}
		if len(b) > 1 {
			out = append(out, string(b))
		}
	}
	return out
}

// guardFind puts `( -name N1 -o -name N2 ... ) -prune -o` in front of find's
// expression, so files with those names are neither listed nor handed to an
// action, and parenthesises the expression (with -print when it has no
// action of its own, as find would add).
func guardFind(argv, names []string) []string {
	// Not following links: -L becomes -P and -follow -true (-H, which
	// follows only the links named as start points, is checked like any
	// argument).
	argv = slices.Clone(argv)
	for k := 1; k < len(argv) && strings.HasPrefix(argv[k], "-") && !findTests[argv[k]]; k++ {
		if argv[k] == "-L" {
			argv[k] = "-P"
		}
	}
	for k := 2; k < len(argv); k++ {
		if argv[k] == "-follow" && !findTests[argv[k-1]] {
			argv[k] = "-true"
		}
	}
	i := 1
	for i < len(argv) && (argv[i] == "-H" || argv[i] == "-L" || argv[i] == "-P" || argv[i] == "-D" || strings.HasPrefix(argv[i], "-O")) {
		if argv[i] == "-D" {
			i++ // its debug options
		}
		i++
	}
	for i < len(argv) && !findExpression(argv[i]) {
		i++ // start points
	}
	head, expr := argv[:min(i, len(argv))], argv[min(i, len(argv)):]
	j := 0
	for j < len(expr) && findGlobalOptions[expr[j]] > 0 {
		j += findGlobalOptions[expr[j]]
	}
	j = min(j, len(expr))
	out := append(append([]string(nil), head...), expr[:j]...)
	out = append(out, "(")
	for k, n := range names {
		if k > 0 {
			out = append(out, "-o")
		}
		if strings.Contains(n, "/") {
			out = append(out, "-path", "*"+n) // .git/config as a start point too
			continue
		}
		out = append(out, "-name", n)
	}
	out = append(out, ")", "-prune", "-o")
	rest := expr[j:]
	if len(rest) > 0 {
		out = append(out, "(")
		out = append(out, rest...)
		out = append(out, ")")
	}
	if !slices.ContainsFunc(rest, func(w string) bool { return findActions[w] }) {
		out = append(out, "-print")
	}
	return out
}

func findExpression(w string) bool {
	return len(w) > 1 && w[0] == '-' || w == "(" || w == "!" || w == ","
}

// findGlobalOptions are the options find takes before its tests, with the
// number of words each takes (itself included).
var findGlobalOptions = map[string]int{
	"-maxdepth": 2, "-mindepth": 2, "-regextype": 2, "-depth": 1, "-d": 1, "-xdev": 1, "-mount": 1,
	"-follow": 1, "-noleaf": 1, "-ignore_readdir_race": 1, "-noignore_readdir_race": 1, "-warn": 1, "-nowarn": 1,
}

// findTests are find's tests and actions that take a value (the next word).
var findTests = map[string]bool{
	"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true,
	"-lname": true, "-ilname": true, "-regex": true, "-iregex": true, "-newer": true, "-anewer": true,
	"-cnewer": true, "-samefile": true, "-user": true, "-group": true, "-perm": true, "-type": true,
	"-xtype": true, "-size": true, "-links": true, "-inum": true, "-uid": true, "-gid": true, "-mtime": true,
	"-atime": true, "-ctime": true, "-mmin": true, "-amin": true, "-cmin": true, "-used": true,
	"-fstype": true, "-context": true, "-printf": true, "-fprint": true, "-fprintf": true, "-fprint0": true,
	"-fls": true, "-maxdepth": true, "-mindepth": true, "-regextype": true, "-D": true,
}

// findActions are find's actions: with none, find prints what matches.
var findActions = map[string]bool{
	"-print": true, "-print0": true, "-printf": true, "-fprint": true, "-fprint0": true, "-fprintf": true,
	"-ls": true, "-fls": true, "-exec": true, "-execdir": true, "-ok": true, "-okdir": true, "-delete": true,
	"-quit": true, "-prune": true,
}

// xargsReads reports whether s runs, through xargs, a program that reads
// the files whose names an earlier command printed.
func xargsReads(s *Script) bool {
	for _, c := range s.Commands {
		if slices.Contains(c.Via, "xargs") && (c.DynamicName || !nonReaders[c.Name]) {
			return true
		}
	}
	return false
}
