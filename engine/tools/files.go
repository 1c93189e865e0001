// Package tools implements the built-in tools a model can call besides
// running commands: glob, file_read, grep, file_write, list_directory and
// system_info. They are plain Go (no shell) and confined to the workspace
// and the recipe's paths globs; symlinks are resolved before any check, and
// files are opened through the workspace as an os.Root, so what changes
// after the check cannot lead them out of it.
package tools

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/reinsh/rein/engine/policy"
)

// Files gives confined access to the workspace.
type Files struct {
	policy    *policy.Policy
	workspace string // as configured
	real      string // with symlinks resolved
	maxBytes  int
	// maxOutput caps what glob, grep and list_directory return
	// (limits.max_output_bytes), as a command's output is capped.
	maxOutput int
	// checked, in tests, runs between a path's check and its opening: where
	// another process could swap the file or a folder above it.
	checked func(abs string)
}

// NewFiles makes the file tools for a policy's workspace.
func NewFiles(p *policy.Policy) *Files {
	ws := p.Recipe().Workspace
	real, err := filepath.EvalSymlinks(ws)
	if err != nil {
		real = ws
	}
	return &Files{policy: p, workspace: ws, real: real, maxBytes: p.Recipe().Limits.MaxFileBytes, maxOutput: max(p.Recipe().Limits.MaxOutputBytes, 1024)}
}

// Limits on search output.
const (
	maxMatches = 500
	maxGlob    = 1000
)

// resolve turns a tool's path argument into an absolute path with symlinks
// resolved, refusing anything outside the workspace or not allowed by the
// paths globs. For writes, the path may not exist yet.
func (f *Files) resolve(arg string, write bool) (string, error) {
	p := arg
	if p == "" {
		p = "."
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(f.workspace, p)
	}
	p = filepath.Clean(p)
	if !policy.Inside(p, f.workspace) && !policy.Inside(p, f.real) {
		return "", fmt.Errorf("%s resolves to %s, outside the workspace %s", arg, p, f.workspace)
	}
	real, err := policy.ResolveExisting(p)
	if err != nil {
		return "", fmt.Errorf("%s: %w", arg, err)
	}
	if !policy.Inside(real, f.real) {
		return "", fmt.Errorf("%s resolves through a symbolic link to %s, outside the workspace %s", arg, real, f.workspace)
	}
	if res := f.policy.CheckPath(real, write); res.Verdict != policy.Allow {
		return "", fmt.Errorf("%s is refused by rule %s: %s", arg, res.Rule, res.Reason)
	}
	return real, nil
}

// open opens abs, a path resolve checked, through the workspace as an
// os.Root: a folder or link swapped in after the check cannot lead the
// open out of the workspace. checked is what the path was when checked
// (nil: it did not exist); a file found there now that is not the same
// file (a link to a secret put in its place) is refused. Parent folders of
// a new file are made inside the workspace too.
func (f *Files) open(abs string, flag int, checked fs.FileInfo) (*os.File, error) {
	if f.checked != nil {
		f.checked(abs)
	}
	rel, err := filepath.Rel(f.real, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s is outside the workspace %s", abs, f.workspace)
	}
	root, err := os.OpenRoot(f.real)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	if flag&os.O_CREATE != 0 {
		if err := root.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return nil, err
		}
	}
	file, err := root.OpenFile(rel, flag|syscallNoFollow, 0o644)
	if err != nil {
		return nil, fmt.Errorf("%s changed while it was being opened, or leads out of the workspace: %w", f.rel(abs), err)
	}
	if checked != nil {
		now, err := file.Stat()
		if err != nil || !os.SameFile(now, checked) {
			file.Close()
			return nil, fmt.Errorf("%s changed while it was being opened (it is no longer the file checked); try again", f.rel(abs))
		}
	}
	return file, nil
}

func (f *Files) rel(abs string) string {
	if r, err := filepath.Rel(f.real, abs); err == nil {
		return filepath.ToSlash(r)
	}
	return abs
}

// Limit says a limit cut a tool's result, as command results say it.
type Limit struct {
	LimitReached bool   `json:"limit_reached,omitempty"`
	LimitMessage string `json:"limit_message,omitempty"`
}

func (l *Limit) reached(format string, args ...any) {
	l.LimitReached, l.LimitMessage = true, fmt.Sprintf(format, args...)
}

// ReadResult is file_read's result.
type ReadResult struct {
	Output    string `json:"output"`
	Bytes     int    `json:"bytes"`
	Truncated bool   `json:"truncated"`
	Limit
}

// Read returns lines [offset, offset+limit) of a file (1-based; 0 = from
// the start / to the end), at most limits.max_file_bytes of it.
func (f *Files) Read(path string, offset, limit int) (*ReadResult, error) {
	abs, err := f.resolve(path, false)
	if err != nil {
		return nil, err
	}
	// Checked before opening: opening a named pipe waits for a writer,
	// which would hold the agent until someone came.
	st, err := os.Stat(abs)
	switch {
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, fmt.Errorf("%s is a folder; use list_directory", path)
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s); only files can be read", path, st.Mode().Type())
	}
	file, err := f.open(abs, os.O_RDONLY, st)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	if offset < 0 || limit < 0 {
		return nil, fmt.Errorf("offset and limit must not be negative")
	}
	var out bytes.Buffer
	res := &ReadResult{}
	limited := &io.LimitedReader{R: file, N: int64(f.maxBytes) + 1}
	r := bufio.NewReader(limited)
	first := max(offset, 1)
	for line := 1; ; line++ {
		text, err := r.ReadString('\n')
		if text != "" && line >= first {
			if limit > 0 && line >= first+limit {
				res.Truncated = true // more lines follow the window
				break
			}
			out.WriteString(text)
		}
		if err != nil {
			break
		}
	}
	if limited.N <= 0 || out.Len() > f.maxBytes {
		out.Truncate(min(out.Len(), f.maxBytes))
		res.Truncated = true
		res.reached("the file is longer than limits.max_file_bytes (%d bytes): read the rest with offset and limit", f.maxBytes)
	}
	res.Output, res.Bytes = out.String(), out.Len()
	return res, nil
}

// WriteResult is file_write's result.
type WriteResult struct {
	Output string `json:"output"`
	Bytes  int    `json:"bytes"`
}

// Write creates (or appends to) a file, creating parent folders.
func (f *Files) Write(path, content string, appendTo bool) (*WriteResult, error) {
	if len(content) > f.maxBytes {
		return nil, fmt.Errorf("content is %d bytes; limits.max_file_bytes is %d", len(content), f.maxBytes)
	}
	abs, err := f.resolve(path, true)
	if err != nil {
		return nil, err
	}
	verb, flag := "wrote", os.O_WRONLY
	if appendTo {
		verb, flag = "appended", os.O_WRONLY|os.O_APPEND
	}
	// An existing file is opened without truncating it and cut only once
	// it is known to be the file checked; a new one is created only if
	// nothing has taken its name since.
	st, err := os.Lstat(abs)
	switch {
	case err == nil && !st.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s); only files can be written", path, st.Mode().Type())
	case errors.Is(err, fs.ErrNotExist):
		st, flag = nil, flag|os.O_CREATE|os.O_EXCL
	case err != nil:
		return nil, err
	}
	file, err := f.open(abs, flag, st)
	if err != nil {
		return nil, err
	}
	if st != nil && !appendTo {
		if err := file.Truncate(0); err != nil {
			file.Close()
			return nil, err
		}
	}
	n, err := file.WriteString(content)
	if cerr := file.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return &WriteResult{Output: fmt.Sprintf("%s %d bytes to %s", verb, n, f.rel(abs)), Bytes: n}, nil
}

// Entry is one list_directory entry.
type Entry struct {
	Name  string `json:"name"`
	Path  string `json:"path"`            // from the workspace's top
	Type  string `json:"type"`            // file, dir, symlink, other
	Size  int64  `json:"size"`            // a file's bytes
	Items int    `json:"items,omitempty"` // a folder's entries, up to maxItems
}

// maxItems is how far list_directory counts a folder's entries: one read of
// the folder, no walk.
const maxItems = 1000

// ListResult is list_directory's result.
type ListResult struct {
	Entries []Entry `json:"entries"`
	Limit
}

// List lists a folder.
func (f *Files) List(path string) (*ListResult, error) {
	abs, err := f.resolve(path, false)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%s is not a folder; use file_read", path)
	}
	dir, err := f.open(abs, os.O_RDONLY, st)
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	des, err := dir.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
	res := &ListResult{Entries: []Entry{}}
	size := 0
	for i, de := range des {
		if size += len(de.Name())*2 + 80; size > f.maxOutput {
			res.reached("listed %d of %d entries (limits.max_output_bytes); list a folder further down, or use glob", i, len(des))
			break
		}
		e := Entry{Name: de.Name(), Path: f.rel(filepath.Join(abs, de.Name())), Type: "other"}
		switch {
		case de.Type()&fs.ModeSymlink != 0:
			e.Type = "symlink"
		case de.IsDir():
			e.Type = "dir"
		case de.Type().IsRegular():
			e.Type = "file"
		}
		if info, err := de.Info(); err == nil && e.Type == "file" {
			e.Size = info.Size()
		}
		if e.Type == "dir" {
			e.Items = f.items(filepath.Join(abs, de.Name()))
		}
		res.Entries = append(res.Entries, e)
	}
	return res, nil
}

// items counts a folder's entries, up to maxItems (0 when it cannot be
// read, or the policy does not let it be).
func (f *Files) items(dir string) int {
	if _, err := f.resolve(dir, false); err != nil {
		return 0
	}
	d, err := os.Open(dir)
	if err != nil {
		return 0
	}
	defer d.Close()
	names, _ := d.Readdirnames(maxItems)
	return len(names)
}

// SearchResult is the result of glob and grep.
type SearchResult struct {
	Output string `json:"output"`
	Count  int    `json:"count"`
	Limit
}

// Glob lists files under path matching a pattern (** spans folders).
func (f *Files) Glob(pattern, path string) (*SearchResult, error) {
	if pattern == "" {
		return nil, errors.New("pattern is required, e.g. **/*.go")
	}
	root, err := f.resolve(path, false)
	if err != nil {
		return nil, err
	}
	var found []string
	size := 0
	err = f.walk(root, func(abs string, _ fs.FileInfo) bool {
		rel, _ := filepath.Rel(root, abs)
		if policy.MatchPath(pattern, filepath.ToSlash(rel)) {
			found = append(found, f.rel(abs))
			size += len(found[len(found)-1]) + 1
		}
		return len(found) < maxGlob && size <= f.maxOutput
	})
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Count: len(found)}
	if size > f.maxOutput {
		found = found[:len(found)-1]
		res.Count = len(found)
		res.reached("stopped at %d files (limits.max_output_bytes); narrow the pattern or the path", len(found))
	} else if len(found) >= maxGlob {
		res.reached("stopped at %d files; narrow the pattern or the path", maxGlob)
	}
	sort.Strings(found)
	res.Output = strings.Join(found, "\n")
	if res.LimitReached {
		res.Output += "\n[" + res.LimitMessage + "]"
	}
	return res, nil
}

// Grep searches files under path for an RE2 pattern; glob filters file
// names. Output lines are "file:line: text".
func (f *Files) Grep(pattern, path, glob string) (*SearchResult, error) {
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("pattern is not a valid RE2 regular expression: %w", err)
	}
	root, err := f.resolve(path, false)
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	count := 0
	err = f.walk(root, func(abs string, info fs.FileInfo) bool {
		if glob != "" {
			if ok, _ := filepath.Match(glob, filepath.Base(abs)); !ok {
				return true
			}
		}
		count += f.grepFile(abs, info, re, &out, maxMatches-count)
		return count < maxMatches && out.Len() < f.maxOutput
	})
	if err != nil {
		return nil, err
	}
	res := &SearchResult{Count: count}
	switch {
	case out.Len() >= f.maxOutput:
		res.reached("stopped after %d matches (limits.max_output_bytes); narrow the pattern or the path", count)
	case count >= maxMatches:
		res.reached("stopped at %d matches; narrow the pattern or the path", maxMatches)
	}
	if res.LimitReached {
		fmt.Fprintf(&out, "[%s]\n", res.LimitMessage)
	}
	res.Output = out.String()
	return res, nil
}

func (f *Files) grepFile(abs string, info fs.FileInfo, re *regexp.Regexp, out *strings.Builder, room int) int {
	file, err := f.open(abs, os.O_RDONLY, info)
	if err != nil {
		return 0
	}
	defer file.Close()
	head := make([]byte, 8000)
	n, _ := io.ReadFull(file, head)
	if bytes.IndexByte(head[:n], 0) >= 0 {
		return 0 // binary
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	sc := bufio.NewScanner(io.LimitReader(file, int64(f.maxBytes)))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	count := 0
	for line := 1; sc.Scan() && count < room && out.Len() < f.maxOutput; line++ {
		if re.Match(sc.Bytes()) {
			fmt.Fprintf(out, "%s:%d: %s\n", f.rel(abs), line, sc.Text())
			count++
		}
	}
	return count
}

// walk visits regular files below root (or root itself if it is a file),
// skipping .git and anything the policy does not let be read, and never
// following links out of the workspace.
func (f *Files) walk(root string, visit func(abs string, info fs.FileInfo) bool) error {
	stop := errors.New("stop")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" && p != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if res := f.policy.CheckPath(p, false); res.Verdict != policy.Allow {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if !visit(p, info) {
			return stop
		}
		return nil
	})
	if err == stop {
		return nil
	}
	return err
}
