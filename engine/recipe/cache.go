package recipe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/reinsh/rein/recipes"
)

// cacheFormat changes whenever the compiled form or its derivation changes.
const cacheFormat = "rein-recipe-cache/1"

func (o Options) cacheDir() string {
	switch o.CacheDir {
	case "-":
		return ""
	case "":
		if env := os.Getenv("REIN_CACHE_DIR"); env != "" {
			if env == "-" {
				return ""
			}
			return filepath.Join(env, "recipes")
		}
		dir, err := os.UserCacheDir()
		if err != nil {
			return ""
		}
		return filepath.Join(dir, "rein", "recipes")
	}
	return o.CacheDir
}

// cacheKey hashes everything a compiled recipe depends on that is known
// before evaluation. Imported files are checked separately (deps).
func cacheKey(o Options, srcs []source, workspace string) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", cacheFormat, o.Version, recipes.Hash(), o.OS, o.Arch, os.Getenv("PATH"), workspace, ownKey())
	h.Write([]byte(Executable()))
	for _, s := range srcs {
		fmt.Fprintf(h, "%s\x00%d\x00%s\x00", s.name, len(s.text), s.text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

type cacheEntry struct {
	Deps   map[string]string `json:"deps"`
	Recipe *Recipe           `json:"recipe"`
	// Verified: Options.Verify passed before the entry was written.
	Verified bool `json:"verified,omitempty"`
}

// readCache returns the cached recipe for key if every imported file still
// has the content it was compiled from, those files' hashes, and whether
// it was verified.
func readCache(dir, key string) (*Recipe, map[string]string, bool) {
	b, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return nil, nil, false
	}
	// Read with segmentio's decoder (linked already, for the MCP SDK):
	// a fresh process decodes the entry in half encoding/json's time, and
	// every command starts with this (TestCacheDecodersAgree).
	var e cacheEntry
	if err := fastjson.Unmarshal(b, &e); err != nil || e.Recipe == nil || !depsUnchanged(e.Deps) {
		return nil, nil, false
	}
	return e.Recipe, e.Deps, e.Verified
}

// depsUnchanged reports whether every imported file still has the content
// whose hash deps holds.
func depsUnchanged(deps map[string]string) bool {
	for p, sum := range deps {
		content, err := os.ReadFile(p)
		if err != nil || hashString(string(content)) != sum {
			return false
		}
	}
	return true
}

// Memo keeps loaded recipes by their cache key (Options.Memo). The zero
// value is ready; a nil Memo keeps nothing.
type Memo struct {
	mu      sync.Mutex
	entries map[string]memoEntry
}

type memoEntry struct {
	recipe *Recipe
	deps   map[string]string
}

// memoSize bounds a Memo: past it, it starts again.
const memoSize = 64

func (m *Memo) get(key string) *Recipe {
	if m == nil {
		return nil
	}
	m.mu.Lock()
	e, ok := m.entries[key]
	m.mu.Unlock()
	if !ok || !depsUnchanged(e.deps) {
		return nil
	}
	return e.recipe
}

func (m *Memo) put(key string, r *Recipe, deps map[string]string) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.entries == nil || len(m.entries) >= memoSize {
		m.entries = map[string]memoEntry{}
	}
	m.entries[key] = memoEntry{r, deps}
}

// writeCache stores a compiled recipe; failures only cost speed.
func writeCache(dir, key string, deps map[string]string, r *Recipe) {
	b, err := json.Marshal(cacheEntry{Deps: deps, Recipe: r, Verified: r.Verified})
	if err != nil {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	KeepInCache(filepath.Join(dir, key+".json"), b)
}

// Executable identifies the rein that runs (its path, size and modification
// time), for the keys of what rein keeps in its cache: what one build
// worked out is not taken by another. "" when it cannot be read.
func Executable() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	st, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%s\x00%d\x00%d\x00", exe, st.Size(), st.ModTime().UnixNano())
}

// KeepInCache writes data to path, in a folder of rein's cache that exists,
// aside and renamed into place, so that a reader sees all of it or none. A
// failure leaves nothing: what is kept there only saves time.
func KeepInCache(path string, data []byte) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
