package recipe

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/reinsh/rein/recipes"
)

// The cache is written with encoding/json and read with segmentio's
// decoder: both read every preset, and a recipe that sets what presets
// leave out (tests, tasks, env, limits, durations), to the same value.
func TestCacheDecodersAgree(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "rein.jsonnet"), []byte(`{
  description: 'every part',
  allow: ['make *'], ask: ['git push *'], deny: ['rm -rf *'],
  commands: [{ command: 'go test <pkg>', description: 'tests' }],
  limits: { timeout: '90s', max_timeout: '10m', cpu_seconds: 30, processes: 64 },
  env: { pass: ['GOFLAGS'], set: { CGO_ENABLED: '0' } },
  tests: { allow: ['make build'], deny: ['rm -rf /'] },
}`), 0o644)
	cases := map[string]Options{"workspace": {Dir: ws, CacheDir: "-", UserFile: "-"}}
	for _, p := range recipes.Presets {
		cases[p] = Options{Dir: ws, Preset: p, CacheDir: "-", UserFile: "-"}
	}
	for name, opts := range cases {
		r, err := Load(opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		b, err := json.Marshal(cacheEntry{Deps: map[string]string{"/a": "1"}, Recipe: r, Verified: true})
		if err != nil {
			t.Fatal(err)
		}
		var std, fast cacheEntry
		if err := json.Unmarshal(b, &std); err != nil {
			t.Fatal(err)
		}
		if err := fastjson.Unmarshal(b, &fast); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(std, fast) {
			t.Errorf("%s: the decoders disagree", name)
		}
	}
}
