package runner

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Vetting reads paths as written; the kernel follows symbolic links. A link
// in the workspace (checked out with a repository, or made by a command)
// can point at a secret, so at run time, when the files exist, every
// argument and opened path is also checked as the file it reaches.

// throughLinks returns the file path reaches when some part of it is a
// symbolic link, and whether it does. Relative paths are taken from dir;
// paths that do not exist yet reach through their folder.
func throughLinks(path, dir string) (string, bool) {
	if path == "" {
		return "", false
	}
	abs := filepath.Clean(resolveIn(path, dir))
	real := reach(abs, 0)
	if real == "" || real == abs {
		return "", false
	}
	return real, true
}

// reach is the file abs reaches, following links (a link to a file that
// does not exist yet too: writing through it creates that file), or "".
func reach(abs string, depth int) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	if depth > 40 {
		return ""
	}
	if fi, err := os.Lstat(abs); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		target, err := os.Readlink(abs)
		if err != nil {
			return ""
		}
		return reach(filepath.Clean(resolveIn(target, filepath.Dir(abs))), depth+1)
	}
	// A file about to be created: its folder decides where it lands.
	parent, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return ""
	}
	return filepath.Join(parent, filepath.Base(abs))
}

// argvThroughLinks is argv with each argument that reaches a file through
// a symbolic link replaced by that file (the value of --flag=PATH too), and
// whether any was.
func argvThroughLinks(argv []string, dir string) ([]string, bool) {
	var out []string
	for i, arg := range argv {
		if i == 0 {
			continue
		}
		prefix, value := "", arg
		if strings.HasPrefix(arg, "-") {
			name, v, ok := strings.Cut(arg, "=")
			if !ok {
				// A short option's attached value (xargs -aFILE, make
				// -fFILE, -CDIR): which letters take one is each
				// program's, so every tail that names a file counts.
				if k, real := attachedThroughLinks(arg, dir); k > 0 {
					if out == nil {
						out = append([]string(nil), argv...)
					}
					out[i] = arg[:k] + real
				}
				continue
			}
			prefix, value = name+"=", v
		}
		if _, err := os.Lstat(resolveIn(value, dir)); err != nil {
			continue // not a file: a pattern, a word, a revision
		}
		real, ok := throughLinks(value, dir)
		if !ok {
			continue
		}
		if out == nil {
			out = append([]string(nil), argv...)
		}
		out[i] = prefix + real
	}
	return out, out != nil
}

// attachedThroughLinks finds, in a single-dash word, a tail that names a
// file reached through a link: the index where it starts and the file.
func attachedThroughLinks(arg, dir string) (int, string) {
	if strings.HasPrefix(arg, "--") {
		return 0, ""
	}
	for k := 2; k < len(arg); k++ {
		value := arg[k:]
		if _, err := os.Lstat(resolveIn(value, dir)); err != nil {
			continue
		}
		if real, ok := throughLinks(value, dir); ok {
			return k, real
		}
	}
	return 0, ""
}

func resolveIn(path, dir string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}

// statIn stats names as a program running in dir finds them (GuardSearch
// tells a path from a git revision, a folder from a file, that way).
func statIn(dir string) func(string) (fs.FileInfo, error) {
	return func(name string) (fs.FileInfo, error) { return os.Stat(resolveIn(name, dir)) }
}
