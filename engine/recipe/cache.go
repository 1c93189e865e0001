package recipe

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

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
	// The build identifies the embedded library as well as its hash does,
	// without reading all 95 KB of it (0.3 ms of every rein's start).
	build := Executable()
	if build == "" {
		build = recipes.Hash()
	}
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00%s\x00", cacheFormat, o.Version, build, o.OS, o.Arch, os.Getenv("PATH"), workspace, ownKey())
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
// has the content it was compiled from, and whether it was verified.
func readCache(dir, key string) (*Recipe, bool) {
	b, err := os.ReadFile(filepath.Join(dir, key+".json"))
	if err != nil {
		return nil, false
	}
	// Read with segmentio's decoder (linked already, for the MCP SDK):
	// a fresh process decodes the entry in half encoding/json's time, and
	// every command starts with this (TestCacheDecodersAgree).
	var e cacheEntry
	if err := fastjson.Unmarshal(b, &e); err != nil || e.Recipe == nil {
		return nil, false
	}
	for p, sum := range e.Deps {
		content, err := os.ReadFile(p)
		if err != nil || hashString(string(content)) != sum {
			return nil, false
		}
	}
	return e.Recipe, e.Verified
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
