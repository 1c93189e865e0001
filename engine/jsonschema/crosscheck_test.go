package jsonschema_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	reference "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/reinsh/rein/engine/jsonschema"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tasks"
	"github.com/reinsh/rein/engine/tools"
	"github.com/reinsh/rein/recipes"
	"github.com/reinsh/rein/schemas"
)

// pair is one schema compiled by both validators.
type pair struct {
	name string
	ours *jsonschema.Schema
	ref  *reference.Schema
}

func compileBoth(t *testing.T, name string, doc []byte) pair {
	t.Helper()
	ours, err := jsonschema.Compile(doc)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	raw, err := reference.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := reference.NewCompiler()
	url := "mem://" + name
	if err := c.AddResource(url, raw); err != nil {
		t.Fatal(err)
	}
	ref, err := c.Compile(url)
	if err != nil {
		t.Fatalf("%s: reference validator: %v", name, err)
	}
	return pair{name, ours, ref}
}

// agree validates doc with both and fails the test when their verdicts
// differ, or when both refuse it at different places. It reports whether
// the document was valid.
func (p pair) agree(t *testing.T, doc []byte, what string) bool {
	t.Helper()
	v, err := jsonschema.Decode(doc)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := reference.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	ourErr := p.ours.Validate(v)
	refErr := p.ref.Validate(rv)
	if (ourErr == nil) != (refErr == nil) {
		t.Errorf("%s, %s: ours says %v, the reference says %v\n%s", p.name, what, ourErr, refErr, doc)
		return false
	}
	if ourErr == nil {
		return true
	}
	var oe *jsonschema.Error
	var re *reference.ValidationError
	if errors.As(ourErr, &oe) && errors.As(refErr, &re) {
		if places := leafPlaces(re); !slices.Contains(places, oe.Pointer()) && !slices.Contains(places, parent(oe.Pointer())) {
			t.Errorf("%s, %s: ours points at %q, the reference at %v (%v)", p.name, what, oe.Pointer(), places, refErr)
		}
	}
	return false
}

// leafPlaces are the instance locations of the reference's innermost causes.
func leafPlaces(ve *reference.ValidationError) []string {
	if len(ve.Causes) == 0 {
		return []string{pointer(ve.InstanceLocation)}
	}
	var out []string
	for _, c := range ve.Causes {
		out = append(out, leafPlaces(c)...)
	}
	return out
}

func pointer(path []string) string {
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + strings.ReplaceAll(strings.ReplaceAll(p, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// parent drops the last segment: we point at an unknown field itself, the
// reference at the object holding it.
func parent(ptr string) string {
	if i := strings.LastIndex(ptr, "/"); i >= 0 {
		return ptr[:i]
	}
	return ptr
}

// mutations are the documents one edit away from doc: every value replaced
// by every JSON kind, every field removed, an unknown field added to every
// object, every string replaced by an empty one.
func mutations(doc any) []any {
	replacements := []any{nil, true, json.Number("0"), json.Number("-1"), json.Number("1.5"), json.Number("7"),
		"", "x", "ask", "10s", []any{}, []any{"x"}, []any{json.Number("1")}, map[string]any{}, map[string]any{"x": "y"}}
	var out []any
	var walk func(cur any, rebuild func(any) any)
	walk = func(cur any, rebuild func(any) any) {
		for _, r := range replacements {
			out = append(out, rebuild(r))
		}
		switch c := cur.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(mapsKeys(c)) {
				without := clone(c)
				delete(without, k)
				out = append(out, rebuild(without))
				walk(c[k], func(v any) any {
					m := clone(c)
					m[k] = v
					return rebuild(m)
				})
			}
			extra := clone(c)
			extra["zz_unknown"] = "x"
			out = append(out, rebuild(extra))
		case []any:
			for i := range c {
				walk(c[i], func(v any) any {
					s := slices.Clone(c)
					s[i] = v
					return rebuild(s)
				})
			}
		}
	}
	walk(doc, func(v any) any { return v })
	return out
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func marshal(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seedRecipes are valid recipe documents: every preset, compiled, and rein's
// own recipe, with the fields compiling adds taken out again.
func seedRecipes(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	found := func(string) (string, error) { return "/usr/bin/x", nil }
	add := func(name string, opts recipe.Options) {
		opts.UserFile, opts.CacheDir, opts.LookPath = "-", "-", found
		r, err := recipe.Load(opts)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var m map[string]any
		if err := json.Unmarshal(marshal(t, r), &m); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"workspace", "sources", "unavailable"} {
			delete(m, k)
		}
		out[name] = marshal(t, dropNulls(m))
	}
	for _, p := range recipes.Presets {
		add("preset "+p, recipe.Options{Preset: p})
	}
	own, _ := filepath.Abs("../../rein.jsonnet")
	if _, err := os.Stat(own); err == nil {
		add("rein.jsonnet", recipe.Options{Dir: filepath.Dir(own), Recipe: own})
	}
	return out
}

// shrink keeps two items of each array and three fields of each map of
// maps (the rest have the same shapes), so that mutating every value of a
// recipe stays quick.
func shrink(v any) any {
	switch x := v.(type) {
	case map[string]any:
		keys := slices.Sorted(mapsKeys(x))
		allMaps := true
		for _, k := range keys {
			_, isMap := x[k].(map[string]any)
			allMaps = allMaps && isMap
		}
		if allMaps && len(keys) > 3 {
			keys = keys[:3]
		}
		out := map[string]any{}
		for _, k := range keys {
			out[k] = shrink(x[k])
		}
		return out
	case []any:
		if len(x) > 2 {
			x = x[:2]
		}
		out := make([]any, len(x))
		for i := range x {
			out[i] = shrink(x[i])
		}
		return out
	}
	return v
}

// dropNulls removes object fields whose value is null (empty Go slices and
// maps of the compiled recipe), which a written recipe would leave out.
func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, item := range x {
			if item == nil {
				delete(x, k)
			} else {
				x[k] = dropNulls(item)
			}
		}
	case []any:
		for i := range x {
			x[i] = dropNulls(x[i])
		}
	}
	return v
}

func TestRecipeSchemaAgreesWithReference(t *testing.T) {
	p := compileBoth(t, "recipe.schema.json", schemas.Recipe)
	seeds := seedRecipes(t)
	total, invalid := 0, 0
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range seeds {
			if !yield(k) {
				return
			}
		}
	}) {
		if !p.agree(t, seeds[name], name) {
			v, _ := jsonschema.Decode(seeds[name])
			t.Fatalf("%s is not a valid recipe: %v", name, p.ours.Validate(v))
		}
		doc, _ := jsonschema.Decode(seeds[name])
		for i, m := range mutations(shrink(doc)) {
			total++
			if !p.agree(t, marshal(t, m), fmt.Sprintf("%s, mutation %d", name, i)) {
				invalid++
			}
		}
	}
	t.Logf("%d mutated recipes, %d invalid, same verdict and place from both validators", total, invalid)
	if invalid == 0 || invalid == total {
		t.Errorf("the mutations should give both valid and invalid recipes")
	}
}

func TestToolSchemasAgreeWithReference(t *testing.T) {
	r, err := recipe.Load(recipe.Options{Preset: "readonly", UserFile: "-", CacheDir: "-", LookPath: func(string) (string, error) { return "/usr/bin/x", nil }})
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string][]byte{"tool-result.schema.json": schemas.ToolResult}
	r.Tools = map[string]any{"file_write": true}
	pol, err := policy.New(r, policy.Options{Tool: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range tools.NewSet(pol, runner.New(pol, runner.Options{}), tools.Options{AllowCommands: true}).Specs() {
		docs["tool "+s.Name] = s.Schema
	}
	docs["task params"] = tasks.Schema(&recipe.Task{Params: map[string]*recipe.Param{
		"pkg":   {Type: "string", Description: "package"},
		"count": {Type: "int", Default: json.Number("3")},
		"race":  {Type: "bool"},
		"mode":  {Type: "enum", Enum: []string{"fast", "full"}},
	}})
	samples := []string{
		`{}`, `null`, `[]`, `"x"`,
		`{"command":"git status","reason":"look"}`, `{"command":"ls","args":["-la"],"timeout":5}`,
		`{"command":"ls","timeout":0}`, `{"command":"ls","timeout":1.5}`, `{"command":"ls","timeout":100000}`,
		`{"command":"ls","args":"-la"}`, `{"command":"ls","args":[1]}`, `{"pattern":"*.go","path":"src"}`,
		`{"path":"a","offset":2,"limit":10}`, `{"path":"a","offset":-1}`, `{"path":"a","content":"x","append":true}`,
		`{"path":"a","content":"x","append":"yes"}`, `{"stdout":"","stderr":"","exit_code":0,"timed_out":false,"truncated":false,"duration_ms":3}`,
		`{"stdout":"","stderr":"","exit_code":0,"timed_out":false,"truncated":false,"duration_ms":-3}`,
		`{"error":"denied","denied_by":"deny:rm","alternatives":["ls"]}`, `{"error":"x","stdout":""}`,
		`{"pkg":"./...","race":true,"mode":"fast"}`, `{"pkg":"./...","race":true,"mode":"slow"}`,
		`{"pkg":"./...","race":true,"mode":"fast","count":"3"}`, `{"race":true,"mode":"fast"}`,
		`{"unknown":1}`,
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range docs {
			if !yield(k) {
				return
			}
		}
	}) {
		p := compileBoth(t, strings.ReplaceAll(name, " ", "_"), docs[name])
		for _, s := range samples {
			p.agree(t, []byte(s), s)
			v, _ := jsonschema.Decode([]byte(s))
			for i, m := range mutations(v) {
				p.agree(t, marshal(t, m), fmt.Sprintf("%s, mutation %d", s, i))
			}
		}
	}
}
