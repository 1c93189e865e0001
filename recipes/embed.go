// Package recipes embeds rein's Jsonnet library (rein.libsonnet) and the
// built-in presets that recipes extend.
package recipes

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed rein.libsonnet helpers.libsonnet prices.libsonnet presets/*.libsonnet
var files embed.FS

// FS is the embedded library: rein.libsonnet at the root, presets under presets/.
var FS fs.FS = files

// Presets lists the built-in presets in the order they are documented.
var Presets = []string{"readonly", "strict", "dev", "git", "go", "node", "python", "rust", "make"}

// IsPreset reports whether name is a built-in preset.
func IsPreset(name string) bool {
	for _, p := range Presets {
		if p == name {
			return true
		}
	}
	return false
}

var hashOnce = sync.OnceValue(func() string {
	h := sha256.New()
	var names []string
	_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return nil
	})
	sort.Strings(names)
	for _, n := range names {
		b, _ := files.ReadFile(n)
		h.Write([]byte(n + "\x00"))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))
})

// Hash identifies the embedded library's contents, for compile caches.
func Hash() string { return hashOnce() }

// Read returns an embedded file by its path inside the library.
func Read(name string) ([]byte, error) {
	return files.ReadFile(strings.TrimPrefix(name, "/"))
}
