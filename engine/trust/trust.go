// Package trust records the repository recipes a person has approved. A
// repository's rein.jsonnet decides what commands may run there (it can
// allow anything and turn the sandbox off), and it comes with the
// repository: a project cloned from a stranger, a recipe a command wrote
// into a subfolder, a change a git pull brought. rein runs nothing under a
// repository recipe whose exact text (with the files it imports) nobody
// has approved on this machine; approvals are kept in a small JSON file in
// rein's state folder (Path), where no command may write.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/reinsh/rein/engine/recipe"
)

// FileName is the approvals file's name in rein's state folder.
const FileName = "trusted.json"

// Path is the approvals file in rein's state folder, which no sandbox
// grant may hold and rein writes for no model; "" when there is no state
// folder (no home folder and no XDG_STATE_HOME).
func Path() string {
	state := recipe.StateDir()
	if state == "" {
		return ""
	}
	return filepath.Join(state, FileName)
}

// State is what the record says of a recipe as it is now.
type State int

const (
	// New: never approved on this machine.
	New State = iota
	// Changed: approved, but its text (or an import's) changed since.
	Changed
	// Trusted: approved as it is.
	Trusted
)

func (s State) String() string {
	return [...]string{"new", "changed", "trusted"}[s]
}

// Entry is one approved recipe.
type Entry struct {
	Recipe      string    `json:"recipe"`
	Fingerprint string    `json:"fingerprint"`
	Files       []string  `json:"files"`
	TrustedAt   time.Time `json:"trusted_at"`
	// Texts are the approved files as they were, by path (each up to
	// maxKeptText): a changed recipe is shown as what changed.
	Texts map[string]string `json:"texts,omitempty"`
}

// maxKeptText bounds the text of one approved file kept for diffs.
const maxKeptText = 256 << 10

// Approved returns the approval of the recipe at path, if there is one.
func (r *Record) Approved(path string) (Entry, bool) {
	e, ok := r.entries[path]
	return e, ok
}

// Record is the approvals file.
type Record struct {
	path    string
	entries map[string]Entry
}

// Open reads the record at path; a missing file is an empty record, an
// unreadable or corrupt one an error naming it (rein never guesses that a
// recipe is approved).
func Open(path string) (*Record, error) {
	r := &Record{path: path, entries: map[string]Entry{}}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cannot read the trusted recipes in %s: %w", path, err)
	}
	var list []Entry
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("the trusted recipes in %s are not valid JSON (%w); remove the file and approve your recipes again with rein trust", path, err)
	}
	for _, e := range list {
		r.entries[e.Recipe] = e
	}
	return r, nil
}

// Fingerprint hashes the recipe, the files it imports and the scripts it
// allows by path (names and contents), so that changing any of them needs
// a new approval: a git pull that changes scripts/lint.sh changes what the
// approved recipe runs. A script that does not exist yet is hashed as
// missing; one made later needs an approval.
func Fingerprint(recipe string, imports, scripts []string) (string, []string, error) {
	files := append([]string{recipe}, imports...)
	sort.Strings(files[1:])
	files = slices.Compact(files)
	h := sha256.New()
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read %s to check it is approved: %w", f, err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	scripts = slices.Compact(slices.Sorted(slices.Values(scripts)))
	for _, f := range scripts {
		b, err := os.ReadFile(f)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(h, "script %s\x00missing\x00", f)
			continue
		case err != nil:
			return "", nil, fmt.Errorf("cannot read %s, a script the recipe allows, to check it is approved: %w", f, err)
		}
		fmt.Fprintf(h, "script %s\x00%d\x00", f, len(b))
		h.Write(b)
		files = append(files, f)
	}
	return hex.EncodeToString(h.Sum(nil)), files, nil
}

// State says whether the recipe at path, with this fingerprint, is approved.
func (r *Record) State(path, fingerprint string) State {
	e, ok := r.entries[path]
	switch {
	case !ok:
		return New
	case e.Fingerprint != fingerprint:
		return Changed
	}
	return Trusted
}

// Trust approves the recipe as it is and saves the record.
func (r *Record) Trust(path, fingerprint string, files []string) error {
	texts := map[string]string{}
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && len(b) <= maxKeptText {
			texts[f] = string(b)
		}
	}
	r.entries[path] = Entry{Recipe: path, Fingerprint: fingerprint, Files: files, TrustedAt: time.Now().UTC().Truncate(time.Second), Texts: texts}
	return r.save()
}

// Forget withdraws an approval; it reports whether there was one.
func (r *Record) Forget(path string) (bool, error) {
	if _, ok := r.entries[path]; !ok {
		return false, nil
	}
	delete(r.entries, path)
	return true, r.save()
}

// List returns the approvals, by recipe path.
func (r *Record) List() []Entry {
	var out []Entry
	for _, e := range r.entries {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Recipe < out[j].Recipe })
	return out
}

// Prune withdraws the approvals of recipes that no longer exist (their
// folder was deleted) and returns their paths.
func (r *Record) Prune() ([]string, error) {
	var gone []string
	for path := range r.entries {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			gone = append(gone, path)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	for _, path := range gone {
		delete(r.entries, path)
	}
	sort.Strings(gone)
	return gone, r.save()
}

// save writes the record whole, through a temporary file, so that a crash
// leaves the old record or the new one.
func (r *Record) save() error {
	b, err := json.MarshalIndent(r.List(), "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return fmt.Errorf("cannot save the trusted recipes: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(r.path), ".trusted-*")
	if err != nil {
		return fmt.Errorf("cannot save the trusted recipes: %w", err)
	}
	_, werr := tmp.Write(append(b, '\n'))
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), r.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot save the trusted recipes in %s: %v", r.path, werr)
	}
	return nil
}
