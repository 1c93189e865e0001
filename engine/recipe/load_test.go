package recipe

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func write(t testing.TB, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// noLook pretends every executable exists, so tests do not depend on PATH.
func noLook(string) (string, error) { return "/bin/true", nil }

func TestDiscoveryAndMergeOrder(t *testing.T) {
	root := t.TempDir()
	user := write(t, filepath.Join(root, "config", "recipe.jsonnet"), `{ allow: ['user-tool *'], default: 'ask', limits: { timeout: '5s' }, provider: { model: 'openai:gpt-4.1' } }`)
	repo := filepath.Join(root, "repo")
	write(t, filepath.Join(repo, "rein.jsonnet"), `
local rein = import 'rein.libsonnet';
local shared = import 'lib/shared.libsonnet';
rein.presets.readonly + shared + { allow+: ['repo-tool *'], limits: { timeout: '10s' } }`)
	write(t, filepath.Join(repo, "lib", "shared.libsonnet"), `{ deny+: ['shared-deny *'] }`)
	explicit := write(t, filepath.Join(root, "extra.jsonnet"), `{ allow: ['extra-tool'], default: 'deny' }`)
	sub := filepath.Join(repo, "src", "pkg")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}

	r, err := Load(Options{Dir: sub, UserFile: user, Recipe: explicit, CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	if r.Workspace != repo {
		t.Errorf("workspace = %s, want %s", r.Workspace, repo)
	}
	wantSources := []string{user, filepath.Join(repo, "rein.jsonnet"), explicit}
	if strings.Join(r.Sources, ",") != strings.Join(wantSources, ",") {
		t.Errorf("sources = %v, want %v", r.Sources, wantSources)
	}
	if got := strings.Join(r.Allow, ","); got != "user-tool *,repo-tool *,extra-tool" {
		t.Errorf("allow = %s (arrays concatenate, lowest precedence first)", got)
	}
	if r.Default != "deny" || r.Limits.Timeout != Duration(10*time.Second) || r.Provider.Model != "openai:gpt-4.1" {
		t.Errorf("scalars: default=%s timeout=%s model=%s", r.Default, r.Limits.Timeout, r.Provider.Model)
	}
	if len(r.Deny) != 1 || r.Deny[0] != "shared-deny *" {
		t.Errorf("deny = %v (relative import)", r.Deny)
	}
	if r.Programs["git"] == nil || len(r.Tests.Deny) == 0 {
		t.Error("readonly preset not merged")
	}
}

// What a recipe is compiled from, and the folders rein keeps its user
// recipe and compile cache in, are never written by rein for a model: a
// command that rewrote them would widen the next run's policy.
func TestRecipeFilesAreProtected(t *testing.T) {
	config, cache := t.TempDir(), t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	t.Setenv("REIN_CACHE_DIR", cache)
	repo := t.TempDir()
	write(t, filepath.Join(repo, "rein.jsonnet"), `(import 'policy/shared.libsonnet') + { allow+: ['ls', './bin/check *', './gen/*.sh'],
  commands: [{ command: './scripts/lint.sh <file>' }], ask: ['tools/fmt *'] }`)
	write(t, filepath.Join(repo, "policy", "shared.libsonnet"), `{ allow: ['cat *'] }`)
	r, err := Load(Options{Dir: repo, UserFile: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	protected := strings.Join(r.Paths.Protect, "\n")
	for _, want := range []string{"**/rein.jsonnet", "**/.git/hooks/**",
		filepath.ToSlash(filepath.Join(repo, "rein.jsonnet")), filepath.ToSlash(filepath.Join(repo, "policy", "shared.libsonnet")),
		filepath.ToSlash(filepath.Join(config, "rein")) + "/**", filepath.ToSlash(cache) + "/**",
		filepath.ToSlash(filepath.Join(repo, "scripts", "lint.sh")), filepath.ToSlash(filepath.Join(repo, "tools", "fmt")), filepath.ToSlash(filepath.Join(repo, "bin", "check"))} {
		if !strings.Contains(protected, want) {
			t.Errorf("paths.protect lacks %s:\n%s", want, protected)
		}
	}
	if len(r.Scripts) != 3 || len(r.Imports) != 1 {
		t.Errorf("scripts %v (a glob names none), imports %v (the sources are not imports)", r.Scripts, r.Imports)
	}
	// From the cache, the same.
	again, err := Load(Options{Dir: repo, UserFile: "-", LookPath: noLook})
	if err != nil || strings.Join(again.Paths.Protect, "\n") != protected {
		t.Errorf("cached recipe protects %v (%v)", again.Paths.Protect, err)
	}
}

func TestNoRecipeMeansReadonly(t *testing.T) {
	r, err := Load(Options{Dir: t.TempDir(), UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sources) != 1 || r.Sources[0] != "builtin:readonly" {
		t.Errorf("sources = %v", r.Sources)
	}
}

func TestDefaults(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "rein.jsonnet"), `{ paths: { deny: ['private/**'] }, env: { deny: ['MY_*'] } }`)
	r, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	if r.Default != "deny" || r.Shell.RedirectWrite != "deny" || r.Shell.Background != "deny" || r.Shell.UnknownProgram != "deny" {
		t.Errorf("defaults: %+v %+v", r.Default, r.Shell)
	}
	if r.Limits.Timeout != Duration(30*time.Second) || r.Limits.MaxToolTurns != 50 || r.Limits.MaxOutputBytes != 1<<20 {
		t.Errorf("limits: %+v", r.Limits)
	}
	for _, want := range []string{"private/**", "~/.ssh/**", "**/.env"} {
		if !slices.Contains(r.Paths.Deny, want) {
			t.Errorf("paths.deny lacks %s: %v", want, r.Paths.Deny)
		}
	}
	if !slices.Contains(r.Env.Deny, "MY_*") || !slices.Contains(r.Env.Deny, "*TOKEN*") {
		t.Errorf("env.deny = %v", r.Env.Deny)
	}
}

func TestRecipeErrors(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string // substrings of the error
	}{
		{"jsonnet syntax", "{\n  allow: ['x'\n}\n", []string{"rein.jsonnet:3:1", "Expected"}},
		{"jsonnet runtime", "{\n  allow: [error 'broken on purpose'],\n}\n", []string{"rein.jsonnet:2:11: RUNTIME ERROR: broken on purpose"}},
		{"unknown field", "{\n  comands: [],\n}\n", []string{"rein.jsonnet:2:3", `unknown field "comands" (did you mean "commands"?)`}},
		{"wrong type", "{\n  programs: {\n    git: { flags: 'status' },\n  },\n}\n", []string{"rein.jsonnet:3:12", "/programs/git/flags", "want array or null, got string"}},
		{"bad decision", "{\n  shell: { background: 'maybe' },\n}\n", []string{"rein.jsonnet:2:12", "/shell/background"}},
		{"bad duration", "{\n  limits: { timeout: 'forever' },\n}\n", []string{"rein.jsonnet:2:13", "/limits/timeout", "is not a duration such as 30s"}},
		{"not an object", "[1, 2]\n", []string{"rein.jsonnet", "must evaluate to an object"}},
		{"timeout above max", "{ limits: { timeout: '20m', max_timeout: '10m' } }", []string{"rein.jsonnet:1:13", "longer than limits.max_timeout"}},
		{"unknown dependency", "{ tasks: { build: { run: 'go build', deps: ['gen'] } } }", []string{"rein.jsonnet", `depends on "gen"`}},
		{"missing library file", "import 'rein/nothing.libsonnet'", []string{"rein.jsonnet:1:1", "nothing.libsonnet"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, filepath.Join(dir, "rein.jsonnet"), tt.text)
			_, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: "-", LookPath: noLook})
			if err == nil {
				t.Fatal("want an error")
			}
			var re *Error
			if !errors.As(err, &re) {
				t.Errorf("error is %T, want *recipe.Error", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestUnknownPresetAndMissingFile(t *testing.T) {
	_, err := Load(Options{Preset: "paranoid", CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "readonly, strict") {
		t.Errorf("unknown preset: %v", err)
	}
	_, err = Load(Options{Recipe: filepath.Join(t.TempDir(), "nope.jsonnet"), UserFile: "-", CacheDir: "-"})
	if err == nil || !strings.Contains(err.Error(), "recipe file not found") {
		t.Errorf("missing recipe: %v", err)
	}
}

// Xcode's command line is in the dev preset on macOS only.
func TestDevPresetPerOS(t *testing.T) {
	mac, err := Load(Options{Preset: "dev", OS: "darwin", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	linux, err := Load(Options{Preset: "dev", OS: "linux", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	if mac.Programs["xcodebuild"] == nil || linux.Programs["xcodebuild"] != nil || linux.Programs["swift"] == nil {
		t.Error("xcodebuild belongs to macOS only; swift to both")
	}
}

func TestPlatformExtVars(t *testing.T) {
	posix, err := Load(Options{Preset: "readonly", OS: "linux", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	windows, err := Load(Options{Preset: "readonly", OS: "windows", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	if posix.Programs["findstr"] != nil || windows.Programs["findstr"] == nil || windows.Programs["where"] == nil {
		t.Error("windows equivalents should appear only when os=windows")
	}
	// The Windows catalog offers only what runs there: no cmd.exe
	// built-ins (dir), and type is the shell's own (it describes a
	// command name; it prints no file).
	if windows.Programs["dir"] != nil {
		t.Error("dir is a cmd.exe built-in, which rein's shell cannot run")
	}
	if ty := windows.Programs["type"]; ty == nil || strings.Contains(ty.Description, "Print files") {
		t.Errorf("type on Windows: %+v", ty)
	}
	for _, c := range windows.Commands {
		if first := strings.Fields(c.Command)[0]; first == "dir" || first == "type" {
			t.Errorf("the Windows catalog offers %q", c.Command)
		}
	}
}

func TestUnavailableCommands(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "scripts", "ok.sh"), "#!/bin/sh\n")
	write(t, filepath.Join(dir, "rein.jsonnet"), `
local rein = import 'rein.libsonnet';
{ commands: [rein.command('present --x'), rein.command('missing-tool'), rein.command('./scripts/ok.sh'), rein.command('./scripts/gone.sh'), rein.command('cd <dir>')],
  programs: { other: rein.program() } }`)
	look := func(name string) (string, error) {
		if name == "present" {
			return "/usr/bin/present", nil
		}
		return "", errors.New("not found")
	}
	r, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: "-", LookPath: look})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(r.Unavailable, ","); got != "./scripts/gone.sh,missing-tool,other" {
		t.Errorf("unavailable = %s", got)
	}
	if !r.Available("present") || r.Available("missing-tool") {
		t.Error("Available")
	}
}

func TestCompileCache(t *testing.T) {
	dir := t.TempDir()
	cache := t.TempDir()
	lib := write(t, filepath.Join(dir, "lib.libsonnet"), `{ allow: ['one'] }`)
	write(t, filepath.Join(dir, "rein.jsonnet"), `(import 'lib.libsonnet') + { deny: ['x'] }`)
	opts := Options{Dir: dir, UserFile: "-", CacheDir: cache, LookPath: noLook}

	r1, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(cache)
	if len(entries) != 1 {
		t.Fatalf("cache entries = %d, want 1", len(entries))
	}
	// A hit returns the same recipe without evaluating: prove it by
	// breaking the evaluator's input in a way the key does not see.
	r2, err := Load(opts)
	if err != nil || strings.Join(r2.Allow, ",") != strings.Join(r1.Allow, ",") {
		t.Fatalf("cached load: %v %v", r2, err)
	}
	// Changing an imported file invalidates the entry.
	write(t, lib, `{ allow: ['two'] }`)
	r3, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(r3.Allow, ",") != "two" {
		t.Errorf("after editing an import: allow = %v, want [two]", r3.Allow)
	}
	// A corrupt entry is ignored, not trusted.
	entries, _ = os.ReadDir(cache)
	for _, e := range entries {
		write(t, filepath.Join(cache, e.Name()), "{not json")
	}
	if _, err := Load(opts); err != nil {
		t.Errorf("corrupt cache entry: %v", err)
	}
}

func TestMergeValues(t *testing.T) {
	a := map[string]any{"x": []any{"a"}, "o": map[string]any{"k": 1.0, "l": []any{"p"}}, "s": "low", "n": "keep"}
	b := map[string]any{"x": []any{"b"}, "o": map[string]any{"l": []any{"q"}}, "s": "high", "n": nil}
	m := mergeValues(a, b).(map[string]any)
	if len(m["x"].([]any)) != 2 || m["s"] != "high" || m["n"] != "keep" || m["o"].(map[string]any)["k"] != 1.0 || len(m["o"].(map[string]any)["l"].([]any)) != 2 {
		t.Errorf("merge = %v", m)
	}
}

// BenchmarkLoadCached is what every rein process pays to get its recipe when
// the compile cache is warm.
func BenchmarkLoadCached(b *testing.B) {
	dir := b.TempDir()
	write(b, filepath.Join(dir, "rein.jsonnet"), "local rein = import 'rein.libsonnet';\nrein.presets.readonly + { allow+: ['make test'] }\n")
	opts := Options{Dir: dir, UserFile: "-", CacheDir: b.TempDir(), LookPath: noLook}
	if _, err := Load(opts); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Load(opts); err != nil {
			b.Fatal(err)
		}
	}
}

// Verify runs on a recipe compiled from source; a cache entry written after
// it passed is trusted without running it again, and says so.
func TestVerifyAndCache(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "rein.jsonnet"), `{ allow: ['make'] }`)
	calls := 0
	verify := func(r *Recipe) error {
		calls++
		if len(r.Allow) == 0 {
			return errors.New("nothing allowed")
		}
		return nil
	}
	cache := t.TempDir()
	opts := Options{Dir: dir, UserFile: "-", CacheDir: cache, LookPath: noLook, Verify: verify}
	for i := 0; i < 3; i++ {
		r, err := Load(opts)
		if err != nil || !r.Verified {
			t.Fatalf("load %d: verified=%v, %v", i, r != nil && r.Verified, err)
		}
	}
	if calls != 1 {
		t.Errorf("verify ran %d times; the cache should have been trusted after the first", calls)
	}
	// Without Verify the recipe is not marked verified.
	r, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: t.TempDir(), LookPath: noLook})
	if err != nil || r.Verified {
		t.Errorf("unverified load: verified=%v, %v", r.Verified, err)
	}
	// An entry written without Verify is checked before it is trusted.
	unverified := t.TempDir()
	if _, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: unverified, LookPath: noLook}); err != nil {
		t.Fatal(err)
	}
	calls = 0
	if r, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: unverified, LookPath: noLook, Verify: verify}); err != nil || !r.Verified || calls != 1 {
		t.Errorf("unverified entry: verified=%v calls=%d %v", r.Verified, calls, err)
	}
	// A failing Verify is Load's error, and nothing is cached as verified.
	write(t, filepath.Join(dir, "rein.jsonnet"), `{ deny: ['rm'] }`)
	failing := t.TempDir()
	for i := 0; i < 2; i++ {
		if _, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: failing, LookPath: noLook, Verify: verify}); err == nil || !strings.Contains(err.Error(), "nothing allowed") {
			t.Errorf("load %d: want the verify error, got %v", i, err)
		}
	}
}

// Presets merge alike in either order: readonly, which every preset
// extends, only fills in the sandbox and the unknown-option decision where
// no preset listed with it set them, so a preset that builds keeps its
// network and writes wherever it stands.
func TestPresetsMergeInEitherOrder(t *testing.T) {
	type got struct{ mode, network, unknownOption string }
	load := func(text string) got {
		dir := t.TempDir()
		write(t, filepath.Join(dir, FileName), "local rein = import 'rein.libsonnet';\n"+text)
		r, err := Load(Options{Dir: dir, UserFile: "-", CacheDir: "-", LookPath: noLook})
		if err != nil {
			t.Fatal(err)
		}
		return got{r.Sandbox.Mode, r.Sandbox.Network, r.Shell.UnknownOption}
	}
	for _, pair := range [][2]string{{"go", "git"}, {"rust", "git"}, {"node", "readonly"}, {"python", "strict"}, {"make", "git"}} {
		a := load("rein.presets." + pair[0] + " + rein.presets." + pair[1])
		b := load("rein.presets." + pair[1] + " + rein.presets." + pair[0])
		network := "granted" // the language presets grant their registries
		if pair[0] == "make" {
			network = "allow"
		}
		if a != b || a.network != network || a.mode != "workspace-write" || a.unknownOption != "ask" {
			t.Errorf("%s and %s: %+v one way, %+v the other", pair[0], pair[1], a, b)
		}
	}
	if g := load("rein.presets.readonly"); g != (got{"read-only", "deny", "deny"}) {
		t.Errorf("readonly alone: %+v", g)
	}
	if g := load("rein.presets.git"); g != (got{"workspace-write", "deny", "ask"}) {
		t.Errorf("git alone: %+v", g)
	}
}

// A program entry keyed by a path is an error that says what to write:
// programs are matched by the name of a program found on PATH.
func TestProgramKeyedByPath(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "rein.jsonnet"), `{ programs: { './scripts/x.sh': {} } }`)
	_, err := Load(Options{Dir: repo, UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err == nil || !strings.Contains(err.Error(), "rein.command('./scripts/x.sh <args>')") {
		t.Errorf("%v", err)
	}
}

// rein's state folder is a secret where XDG_STATE_HOME puts it, and
// protected: its approvals and transcripts were readable and writable by
// commands under a state folder other than the default.
func TestStateFolderIsSecretWherever(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	r, err := Load(Options{Dir: t.TempDir(), UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.ToSlash(filepath.Join(state, "rein")) + "/**"
	if !slices.Contains(r.Paths.Deny, want) || !slices.Contains(r.Paths.Protect, want) {
		t.Errorf("deny %v\nprotect %v", r.Paths.Deny, r.Paths.Protect)
	}
}

// A preset that does not exist is answered with the presets there are.
func TestUnknownPreset(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "rein.jsonnet"), "local rein = import 'rein.libsonnet';\nrein.presets.golang\n")
	_, err := Load(Options{Dir: repo, UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err == nil || !strings.Contains(err.Error(), "Field does not exist: golang; did you mean go?; the presets are readonly, strict, dev, git, go") {
		t.Errorf("%v", err)
	}
}

// A tools key that names no tool is a typo, caught like any other.
func TestUnknownTool(t *testing.T) {
	repo := t.TempDir()
	write(t, filepath.Join(repo, "rein.jsonnet"), "{ tools: { file_wirte: true } }")
	_, err := Load(Options{Dir: repo, UserFile: "-", CacheDir: "-", LookPath: noLook})
	if err == nil || !strings.Contains(err.Error(), "tools.file_wirte is not a tool; did you mean file_write?") {
		t.Errorf("%v", err)
	}
}

// A run's cost comes from the presets' price table, by the model's name or
// the longest listed name it starts with; a recipe adds its own.
func TestModelCost(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "rein.jsonnet"), `local rein = import 'rein.libsonnet';
rein.presets.readonly + { provider+: { prices+: { 'my-model': { input: 1, output: 2 } } } }`)
	r, err := Load(Options{Dir: dir, CacheDir: "-", UserFile: "-", LookPath: noLook})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		model string
		want  float64
		known bool
	}{
		{"gpt-4.1", 2.0*1 + 8.0*0.5, true},
		{"gpt-4.1-mini-2025-04-14", 0.4*1 + 1.6*0.5, true},
		{"claude-sonnet-4-5", 3.0*1 + 15.0*0.5, true},
		{"my-model", 1*1 + 2*0.5, true},
		{"llama3", 0, false},
	} {
		got, known := r.Provider.Cost(tt.model, 1_000_000, 500_000)
		if known != tt.known || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: %v %v, want %v %v", tt.model, got, known, tt.want, tt.known)
		}
	}
}
