package shellparse

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// WalkWithout returns argv changed so that a program walking folders (grep
// -r, rg, fd, find, diff of folders, tar, git grep and the patches of git
// diff, show and log -p) skips files whose base names match names (shell
// patterns: .env, *.pem; a name with a slash, .git/config, is a path
// ending) and follows no symbolic links out of the folders it was given;
// argv itself when the program walks nothing or names is empty. The
// program may be run through wrappers (timeout 5 nice grep -r, xargs grep
// -r, find -exec grep -r): its own words are changed.
//
// stat tells what the command's operands are, relative to the folder it
// runs in (git tells paths from revisions that way); with a nil stat, no
// file is known. An error says why a walk cannot be kept off the names:
// git's exclusions go after its paths, and xargs (unless it replaces -I's
// marker) or find -exec ... {} + put their words there too, so git under
// them needs a -- of its own (xargs git diff --); git stash show -p takes no
// pathspecs; tar's old option bundles take values in order.
func WalkWithout(argv []string, names []string, stat func(name string) (fs.FileInfo, error)) ([]string, error) {
	out, _, err := walkWithout(argv, names, stat, false)
	return out, err
}

// walkWithout is WalkWithout for an argv that more words may follow
// (follow: xargs appends them, find puts them at a final {}). It reports
// whether the change had to end argv (atEnd), where those words would go:
// the caller that adds them refuses the command then.
func walkWithout(argv []string, names []string, stat func(string) (fs.FileInfo, error), follow bool) (out []string, atEnd bool, err error) {
	if len(argv) == 0 || len(names) == 0 {
		return argv, false, nil
	}
	name := walkerName(argv[0])
	if syn, ok := runsAfterOptions(name); ok {
		return walkWrapped(argv, name, syn, names, stat, follow)
	}
	if name == "git" {
		return guardGit(argv, names, stat, follow)
	}
	out, err = guardProgram(argv, names, stat)
	if err != nil || !changed(argv, out) {
		return out, false, err
	}
	if name == "find" { // its expression ends the command
		out, err = guardFindExec(out, names, stat)
		return out, true, err
	}
	return out, false, nil
}

// walkWrapped guards the command a wrapper runs (timeout 5 CMD, env A=1
// CMD, xargs CMD).
func walkWrapped(argv []string, name string, syn optionSyntax, names []string, stat func(string) (fs.FileInfo, error), follow bool) ([]string, bool, error) {
	words := make([]Word, len(argv))
	for i, a := range argv {
		words[i] = Word{Value: a}
	}
	opts := skipOptions(words, syn, name == "env" || name == "xargs")
	if opts.unknown != "" {
		return nil, false, errors.New(unknownOption(name, opts.unknown, syn))
	}
	next, values, runs := opts.next, opts.values, opts.runs
	if name == "env" && (values["-S"] != "" || values["--split-string"] != "") {
		split := values["-S"] + values["--split-string"]
		inner, _, err := walkWithout(append(strings.Fields(split), argv[next:]...), names, stat, follow)
		if err != nil || changed(append(strings.Fields(split), argv[next:]...), inner) {
			return nil, false, fmt.Errorf("env -S %q runs a program that walks folders, which rein cannot keep off files named like secrets (%s) inside a split string; run it without env -S", split, someNames(names))
		}
		return argv, false, nil
	}
	if !runs || next >= len(argv) {
		return argv, false, nil
	}
	appends := false // xargs adds its words at the end, unless -I replaces a marker
	if name == "xargs" {
		_, i := values["-I"]
		_, i2 := values["-i"]
		_, r := values["--replace"]
		appends = !i && !i2 && !r
	}
	inner, atEnd, err := walkWithout(argv[next:], names, stat, follow || appends)
	if err != nil || !changed(argv[next:], inner) {
		return argv, false, err
	}
	if atEnd && appends {
		return nil, false, fmt.Errorf("xargs %s: rein keeps files named like secrets (%s) out of what %s reads with words at the end of its command, after which xargs would add its own; give it a -- of its own (xargs git diff --), or the words as arguments ($(...))",
			JoinArgv(argv[next:]), someNames(names), argv[next])
	}
	return append(slices.Clone(argv[:next]), inner...), atEnd, nil
}

// guardFindExec guards the commands find runs (-exec grep -r PATTERN {} +).
// A command ending with {} gets find's names there, as after xargs.
func guardFindExec(argv []string, names []string, stat func(string) (fs.FileInfo, error)) ([]string, error) {
	out := argv[:0:0]
	for i := 0; i < len(argv); i++ {
		a := argv[i]
		out = append(out, a)
		if a != "-exec" && a != "-execdir" && a != "-ok" && a != "-okdir" {
			continue
		}
		end := i + 1
		for end < len(argv) && argv[end] != ";" && (argv[end] != "+" || argv[end-1] != "{}") {
			end++
		}
		cmd := argv[i+1 : end]
		namesLast := len(cmd) > 1 && cmd[len(cmd)-1] == "{}"
		if namesLast {
			cmd = cmd[:len(cmd)-1]
		}
		inner, atEnd, err := walkWithout(cmd, names, stat, namesLast)
		switch {
		case err != nil:
			return nil, err
		case atEnd && namesLast && changed(cmd, inner):
			return nil, fmt.Errorf("find %s %s {}: rein keeps files named like secrets (%s) out of what it reads with words at the end of its command, where find puts the file names; give it a -- of its own (-exec git diff -- {} +), or run it on the folder instead",
				a, JoinArgv(cmd), someNames(names))
		}
		out = append(out, inner...)
		if namesLast {
			out = append(out, "{}")
		}
		i = end - 1
	}
	return out, nil
}

// changed reports whether out differs from argv.
func changed(argv, out []string) bool {
	return !slices.Equal(argv, out)
}

// WalkMayRefuse reports whether WalkWithout may refuse a command run as
// program: git (stash show -p), tar (old bundles), env -S, and the
// programs that run others (xargs git, find -exec git). Vetting asks
// WalkRefusal of those only.
func WalkMayRefuse(program string) bool {
	switch program {
	case "git", "tar", "gtar", "bsdtar", "find":
		return true
	}
	_, wraps := wrappers[program] // membership only: no options read
	return wraps && program != "ssh"
}

// walkerName is the program argv[0] starts, as the walk guards name it.
func walkerName(argv0 string) string { return path.Base(filepath.ToSlash(argv0)) }

// runsAfterOptions returns the option syntax of a wrapper whose command
// follows its options on the same machine (ssh's runs elsewhere).
func runsAfterOptions(program string) (optionSyntax, bool) {
	if _, ok := wrappers[program]; !ok || program == "ssh" {
		return optionSyntax{}, false
	}
	syn, _ := wrapperSyntax(program)
	return *syn, true
}

// WalkRefusal returns the error WalkWithout would refuse a static argv
// with, without building the guarded argv: vetting says what running
// would refuse. (find's own exclusions are not built; its -exec commands
// are looked at.)
func WalkRefusal(argv []string, names []string) error {
	if len(argv) == 0 || len(names) == 0 {
		return nil
	}
	switch name := walkerName(argv[0]); {
	case name == "find":
		if !slices.ContainsFunc(argv[1:], mayBeRefused) {
			return nil
		}
		_, err := guardFindExec(argv, names, nil)
		return err
	case name != "tar" && name != "gtar" && name != "bsdtar" && !slices.ContainsFunc(argv[1:], mayBeRefused):
		return nil
	}
	_, _, err := walkWithout(argv, names, nil, false)
	return err
}

// mayBeRefused reports whether a word of argv names a program whose walk
// WalkWithout may refuse to run as argv has it (git under xargs, git stash
// show -p, a tar bundle, find under xargs, env -S): without one, vetting
// need not ask.
func mayBeRefused(word string) bool {
	if word == "" {
		return false
	}
	switch word[0] { // most words are told apart by their first byte
	case '-':
		return strings.HasPrefix(word, "-S") || strings.HasPrefix(word, "--split-string")
	case 'g', 's', 't', 'b', 'f':
		switch word {
		case "git", "stash", "tar", "gtar", "bsdtar", "find":
			return true
		}
	}
	if strings.IndexByte(word, '/') < 0 && strings.IndexByte(word, '\\') < 0 {
		return false
	}
	switch programName(word) { // /usr/bin/git
	case "git", "tar", "gtar", "bsdtar", "find":
		return true
	}
	return false
}

// someNames lists the first few of names for a message.
func someNames(names []string) string {
	if len(names) > 4 {
		return strings.Join(names[:4], ", ") + ", …"
	}
	return strings.Join(names, ", ")
}
