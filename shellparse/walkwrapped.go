package shellparse

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// WalkWithout returns argv changed so that a program walking folders (grep
// -r, rg, fd, find, diff of folders, git grep and the patches of git diff,
// show and log -p) skips files whose base names match names (shell
// patterns: .env, *.pem) and follows no symbolic links out of the folders
// it was given; argv itself when the program walks nothing or names is
// empty. The program may be run through wrappers (timeout 5 nice grep -r,
// xargs grep -r, find -exec grep -r): its own words are changed.
//
// stat tells what the command's operands are, relative to the folder it
// runs in (git tells paths from revisions that way); with a nil stat, no
// file is known. An error says why a walk cannot be kept off the names:
// git, whose exclusions go after --, run by xargs or find -exec, which add
// their words at the end.
func WalkWithout(argv []string, names []string, stat func(name string) (fs.FileInfo, error)) ([]string, error) {
	out, _, err := walkWithout(argv, names, stat)
	return out, err
}

// walkWithout is WalkWithout, also reporting whether the change added
// words at the end of argv, where a wrapper appending words would break it.
func walkWithout(argv []string, names []string, stat func(string) (fs.FileInfo, error)) (out []string, atEnd bool, err error) {
	if len(argv) == 0 || len(names) == 0 {
		return argv, false, nil
	}
	name := path.Base(filepath.ToSlash(argv[0]))
	if syn, ok := wrappers[name]; ok && name != "ssh" {
		return walkWrapped(argv, name, syn, names, stat)
	}
	out, err = guardProgram(argv, names, stat)
	if err != nil {
		return nil, false, err
	}
	if !changed(argv, out) {
		return argv, false, nil
	}
	switch name {
	case "find":
		out, err = guardFindExec(out, names, stat)
		return out, true, err
	case "git":
		return out, true, nil
	}
	return out, false, nil
}

// walkWrapped guards the command a wrapper runs (timeout 5 CMD, env A=1
// CMD, xargs CMD).
func walkWrapped(argv []string, name string, syn optionSyntax, names []string, stat func(string) (fs.FileInfo, error)) ([]string, bool, error) {
	words := make([]Word, len(argv))
	for i, a := range argv {
		words[i] = Word{Value: a}
	}
	next, _, values, runs := skipOptions(words, syn, name == "env")
	if name == "env" && (values["-S"] != "" || values["--split-string"] != "") {
		split := values["-S"] + values["--split-string"]
		inner, _, err := walkWithout(append(strings.Fields(split), argv[next:]...), names, stat)
		if err != nil || changed(append(strings.Fields(split), argv[next:]...), inner) {
			return nil, false, fmt.Errorf("env -S %q runs a program that walks folders, which rein cannot keep off files named like secrets (%s) inside a split string; run it without env -S", split, strings.Join(names, ", "))
		}
		return argv, false, nil
	}
	if !runs || next >= len(argv) {
		return argv, false, nil
	}
	inner, atEnd, err := walkWithout(argv[next:], names, stat)
	if err != nil || !changed(argv[next:], inner) {
		return argv, false, err
	}
	if atEnd && name == "xargs" {
		return nil, false, fmt.Errorf("xargs %s: rein keeps files named like secrets (%s) out of what %s prints with words at the end of its command, after which xargs would add its own; give %s the words as arguments instead (%s $(...))",
			JoinArgv(argv[next:]), strings.Join(names, ", "), argv[next], argv[next], JoinArgv(argv[next:]))
	}
	return append(slices.Clone(argv[:next]), inner...), atEnd, nil
}

// guardFindExec guards the commands find runs (-exec grep -r PATTERN {} +).
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
		inner, atEnd, err := walkWithout(cmd, names, stat)
		switch {
		case err != nil:
			return nil, err
		case atEnd && changed(cmd, inner):
			return nil, fmt.Errorf("find %s %s: rein keeps files named like secrets (%s) out of what it prints with words at the end of its command, where find puts the file names; run %s on the folder instead",
				a, JoinArgv(cmd), strings.Join(names, ", "), cmd[0])
		}
		out = append(out, inner...)
		i = end - 1
	}
	return out, nil
}

// changed reports whether out differs from argv.
func changed(argv, out []string) bool {
	return !slices.Equal(argv, out)
}
