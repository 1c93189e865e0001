package recipe

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/suggest"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/google/go-jsonnet"

	"github.com/reinsh/rein/engine/jsonschema"
	"github.com/reinsh/rein/recipes"
	"github.com/reinsh/rein/schemas"
)

// FileName is the repository recipe's file name, found by walking up from
// the working directory.
const FileName = "rein.jsonnet"

// Options choose which recipes are loaded and how.
type Options struct {
	// Dir is where discovery starts (default: the working directory).
	Dir string
	// Recipe is an explicit recipe file, merged above discovered ones.
	Recipe string
	// Preset, when set, replaces the user and repository recipes with a
	// built-in preset.
	Preset string
	// UserFile overrides the user recipe path; "-" skips it.
	UserFile string
	// CacheDir overrides the compile cache folder; "-" disables the cache.
	CacheDir string
	// OS and Arch are the Jsonnet external variables (default: this machine).
	OS, Arch string
	// LookPath finds executables (default: exec.LookPath).
	LookPath func(string) (string, error)
	// Version is rein's version, part of the cache key.
	Version string
	// Verify, when set, checks a recipe compiled from source before it is
	// cached (rein compiles the policy's rules); its error is Load's error.
	// A cached recipe passed it when it was written. Either way the
	// recipe's Verified is set.
	Verify func(*Recipe) error
}

// Error is a recipe error a person can act on: which file, where, what.
type Error struct {
	File    string
	Line    int
	Col     int
	Pointer string // JSON pointer into the evaluated recipe, if known
	Msg     string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
		}
		b.WriteString(": ")
	}
	if e.Pointer != "" {
		fmt.Fprintf(&b, "%s: ", e.Pointer)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// source is one recipe to merge: a file or a built-in preset.
type source struct {
	name string // file path, or "builtin:NAME"
	text string
}

// Load discovers, evaluates, validates and merges recipes (using the compile
// cache when it can).
func Load(opts Options) (*Recipe, error) {
	opts = opts.withDefaults()
	srcs, workspace, err := discover(opts)
	if err != nil {
		return nil, err
	}
	cacheDir := opts.cacheDir()
	key := cacheKey(opts, srcs, workspace)
	if cacheDir != "" {
		if r, verified := readCache(cacheDir, key); r != nil && (verified || opts.Verify == nil) {
			r.Verified = verified
			return r, nil
		}
	}
	r, deps, err := compile(opts, srcs, workspace)
	if err != nil {
		return nil, err
	}
	if opts.Verify != nil {
		if err := opts.Verify(r); err != nil {
			return nil, err
		}
		r.Verified = true
	}
	if cacheDir != "" {
		writeCache(cacheDir, key, deps, r)
	}
	return r, nil
}

func (o Options) withDefaults() Options {
	if o.Dir == "" {
		o.Dir, _ = os.Getwd()
	}
	if o.OS == "" {
		o.OS = runtime.GOOS
	}
	if o.Arch == "" {
		o.Arch = runtime.GOARCH
	}
	if o.LookPath == nil {
		o.LookPath = lookPath
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	return o
}

// UserRecipePath is $XDG_CONFIG_HOME/rein/recipe.jsonnet (or the OS equivalent).
func UserRecipePath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "rein", "recipe.jsonnet")
}

// Repository is the repository recipe this one was merged from: the
// discovered rein.jsonnet of its workspace, when discovery found one (a
// preset replaces it).
func (r *Recipe) Repository() (string, bool) {
	p := filepath.Join(r.Workspace, FileName)
	return p, slices.Contains(r.Sources, p)
}

// FindRepository walks up from dir to the nearest rein.jsonnet.
func FindRepository(dir string) (string, bool) {
	dir, _ = filepath.Abs(dir)
	for {
		p := filepath.Join(dir, FileName)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return p, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func discover(opts Options) ([]source, string, error) {
	var srcs []source
	workspace, _ := filepath.Abs(opts.Dir)
	if opts.Preset != "" {
		if !recipes.IsPreset(opts.Preset) {
			return nil, "", &Error{Msg: fmt.Sprintf("unknown preset %q; the presets are %s", opts.Preset, strings.Join(recipes.Presets, ", "))}
		}
		srcs = append(srcs, presetSource(opts.Preset))
	} else {
		user := opts.UserFile
		if user == "" {
			user = UserRecipePath()
		}
		if user != "-" && user != "" {
			if s, err := readSource(user); err == nil {
				srcs = append(srcs, s)
			} else if !errors.Is(err, fs.ErrNotExist) {
				return nil, "", err
			}
		}
		if repo, ok := FindRepository(opts.Dir); ok {
			s, err := readSource(repo)
			if err != nil {
				return nil, "", err
			}
			srcs = append(srcs, s)
			workspace = filepath.Dir(repo)
		}
	}
	if opts.Recipe != "" {
		s, err := readSource(opts.Recipe)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil, "", &Error{File: opts.Recipe, Msg: "recipe file not found"}
			}
			return nil, "", err
		}
		srcs = append(srcs, s)
	}
	if len(srcs) == 0 {
		// No recipe anywhere: the safe default is the readonly preset.
		srcs = append(srcs, presetSource("readonly"))
	}
	return srcs, workspace, nil
}

func presetSource(name string) source {
	return source{name: "builtin:" + name, text: fmt.Sprintf("(import 'rein.libsonnet').presets[%q]", name)}
}

func readSource(p string) (source, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return source{}, err
		}
		return source{}, &Error{File: p, Msg: "cannot read recipe: " + err.Error()}
	}
	return source{name: p, text: string(b)}, nil
}

// compile evaluates every source, validates each against the schema, merges
// them, applies defaults and records availability.
func compile(opts Options, srcs []source, workspace string) (*Recipe, map[string]string, error) {
	imp := &importer{files: &jsonnet.FileImporter{}, deps: map[string]string{}, embedded: map[string]jsonnet.Contents{}}
	var merged map[string]any
	var err error
	var names []string
	for _, s := range srcs {
		vm := jsonnet.MakeVM()
		vm.Importer(imp)
		vm.ExtVar("os", opts.OS)
		vm.ExtVar("arch", opts.Arch)
		var out string
		if strings.HasPrefix(s.name, "builtin:") {
			out, err = vm.EvaluateAnonymousSnippet(s.name, s.text)
		} else {
			out, err = vm.EvaluateFile(s.name)
		}
		if err != nil {
			return nil, nil, jsonnetError(s.name, err)
		}
		doc, err := jsonschema.Decode([]byte(out))
		if err != nil {
			return nil, nil, &Error{File: s.name, Msg: "recipe did not evaluate to JSON: " + err.Error()}
		}
		if _, ok := doc.(map[string]any); !ok {
			return nil, nil, &Error{File: s.name, Msg: fmt.Sprintf("a recipe must evaluate to an object, not %s", jsonType(doc))}
		}
		if err := recipeSchema().Validate(doc); err != nil {
			return nil, nil, locateSchemaError(s, err)
		}
		merged = mergeValues(merged, doc).(map[string]any)
		names = append(names, s.name)
	}
	b, err := json.Marshal(merged)
	if err != nil {
		return nil, nil, err
	}
	r := &Recipe{}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(r); err != nil {
		return nil, nil, &Error{File: names[len(names)-1], Msg: err.Error()}
	}
	r.Workspace = workspace
	r.Sources = names
	if err := r.normalize(); err != nil {
		return nil, nil, err
	}
	r.protectOwn(imp.deps)
	r.Unavailable = unavailable(r, opts.LookPath)
	return r, imp.deps, nil
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// mergeValues merges b over a: objects field by field, arrays concatenated,
// anything else replaced.
func mergeValues(a, b any) any {
	switch bv := b.(type) {
	case map[string]any:
		av, ok := a.(map[string]any)
		if !ok {
			return bv
		}
		out := make(map[string]any, len(av)+len(bv))
		for k, v := range av {
			out[k] = v
		}
		for k, v := range bv {
			out[k] = mergeValues(av[k], v)
		}
		return out
	case []any:
		if av, ok := a.([]any); ok {
			return append(append([]any(nil), av...), bv...)
		}
		return bv
	case nil:
		if a != nil {
			return a
		}
	}
	return b
}

// recipeSchema is compiled on first use: most runs read a cached recipe and
// never validate.
var recipeSchema = sync.OnceValue(func() *jsonschema.Schema { return jsonschema.MustCompile(schemas.Recipe) })

// locateSchemaError turns a schema violation into an Error with the JSON
// pointer and, when the offending key can be found in the file, its position.
func locateSchemaError(s source, err error) error {
	var ve *jsonschema.Error
	if !errors.As(err, &ve) {
		return &Error{File: s.name, Msg: err.Error()}
	}
	e := &Error{File: s.name, Pointer: ve.Pointer(), Msg: ve.Message}
	for i := len(ve.Path) - 1; i >= 0; i-- {
		if line, col, ok := findKey(s.text, ve.Path[i]); ok {
			e.Line, e.Col = line, col
			break
		}
	}
	return e
}

var (
	// jsonnetLocation finds "file:line:col" (optionally "-col" or a range)
	// in go-jsonnet's error traces.
	jsonnetLocation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(\S+?):(\d+):(\d+)`) })
)

// jsonnetError turns a go-jsonnet error into an Error that starts with the
// file:line:col of the innermost frame in the recipe (or the first frame).
func jsonnetError(file string, err error) error {
	text := strings.TrimSpace(err.Error())
	e := &Error{File: file, Msg: text}
	var first []string
	for _, m := range jsonnetLocation().FindAllStringSubmatch(text, -1) {
		if first == nil {
			first = m
		}
		if m[1] == file {
			first = m
			break
		}
	}
	if first != nil {
		e.File = first[1]
		fmt.Sscan(first[2], &e.Line)
		fmt.Sscan(first[3], &e.Col)
		// The location is now in front; drop its repetition at the start.
		e.Msg = strings.TrimSpace(strings.TrimPrefix(text, first[0]))
		e.Msg = strings.TrimLeft(strings.TrimPrefix(e.Msg, "-"), "0123456789 ")
	}
	// rein.presets.golang: say which presets there are.
	if m := missingField().FindStringSubmatch(text); m != nil && presetNamed(e.File, m[1]) {
		e.Msg = strings.Replace(e.Msg, m[0], m[0]+suggest.DidYouMean(m[1], recipes.Presets)+"; the presets are "+strings.Join(recipes.Presets, ", "), 1)
	}
	return e
}

var missingField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Field does not exist: (\w+)`) })

// presetNamed reports whether the recipe file names presets.NAME.
func presetNamed(file, name string) bool {
	b, err := os.ReadFile(file)
	return err == nil && strings.Contains(string(b), "presets."+name)
}

// findKey finds the first place a key is written as an object field in
// Jsonnet source: name:, 'name':, "name": (with +:, :: and ::: too).
func findKey(text, key string) (line, col int, ok bool) {
	if key == "" || isIndex(key) {
		return 0, 0, false
	}
	for _, form := range []string{key, "'" + key + "'", `"` + key + `"`} {
		for off := 0; ; {
			i := strings.Index(text[off:], form)
			if i < 0 {
				break
			}
			i += off
			off = i + len(form)
			before := byte(' ')
			if i > 0 {
				before = text[i-1]
			}
			if isIdentByte(before) || before == '.' {
				continue
			}
			rest := strings.TrimLeft(text[off:], " \t")
			if strings.HasPrefix(rest, ":") || strings.HasPrefix(rest, "+:") {
				l := strings.Count(text[:i], "\n") + 1
				c := i - strings.LastIndexByte(text[:i], '\n')
				return l, c, true
			}
		}
	}
	return 0, 0, false
}

func isIndex(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Locate finds where a quoted string (a rule name, a command) is written in
// the recipe's source files, for error messages. It returns "" when unknown.
func (r *Recipe) Locate(s string) string {
	for i := len(r.Sources) - 1; i >= 0; i-- {
		name := r.Sources[i]
		if strings.HasPrefix(name, "builtin:") {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			continue
		}
		text := string(b)
		for _, form := range []string{"'" + s + "'", `"` + s + `"`} {
			if i := strings.Index(text, form); i >= 0 {
				l := strings.Count(text[:i], "\n") + 1
				c := i - strings.LastIndexByte(text[:i], '\n')
				return fmt.Sprintf("%s:%d:%d", name, l, c)
			}
		}
	}
	if len(r.Sources) > 0 {
		return r.Sources[len(r.Sources)-1]
	}
	return ""
}

// importer resolves 'rein.libsonnet' (and imports made from inside it) to
// the embedded library, and everything else relative to the importing file.
type importer struct {
	files    *jsonnet.FileImporter
	mu       sync.Mutex
	deps     map[string]string
	embedded map[string]jsonnet.Contents
}

const embeddedPrefix = "rein:/"

func (im *importer) Import(from, p string) (jsonnet.Contents, string, error) {
	if p == "rein.libsonnet" || strings.HasPrefix(from, embeddedPrefix) {
		name := p
		if strings.HasPrefix(from, embeddedPrefix) && p != "rein.libsonnet" {
			name = path.Join(path.Dir(strings.TrimPrefix(from, embeddedPrefix)), p)
		}
		im.mu.Lock()
		defer im.mu.Unlock()
		if c, ok := im.embedded[name]; ok {
			return c, embeddedPrefix + name, nil
		}
		b, err := recipes.Read(name)
		if err != nil {
			return jsonnet.Contents{}, "", fmt.Errorf("%s is not part of rein's library (rein.libsonnet and presets/*.libsonnet)", p)
		}
		c := jsonnet.MakeContentsRaw(b)
		im.embedded[name] = c
		return c, embeddedPrefix + name, nil
	}
	if strings.HasPrefix(from, "builtin:") {
		from = ""
	}
	c, found, err := im.files.Import(from, p)
	if err == nil {
		im.mu.Lock()
		im.deps[found] = hashString(c.String())
		im.mu.Unlock()
	}
	return c, found, err
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
