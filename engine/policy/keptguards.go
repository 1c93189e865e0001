package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"

	fastjson "github.com/segmentio/encoding/json"

	"github.com/reinsh/rein/engine/recipe"
)

// Rule guards kept between runs. New reads each rule's guards and the
// script fields it uses off expr's syntax tree of the rule, which takes
// parsing every rule at every start of rein. They depend on the rules'
// text alone, so they are kept in rein's cache under a hash of it
// (Options.CacheDir) and read back by the next rein.

// keptGuardsFormat changes whenever what is kept changes; how guards are
// worked out is this build's, so the key holds rein's executable too (as
// the recipe cache's does).
const keptGuardsFormat = "rein-rule-guards/2"

// keptRule is one rule's guards and fields as kept.
type keptRule struct {
	Names       []string     `json:"names,omitempty"`
	NamePattern *string      `json:"name_pattern,omitempty"`
	Env         bool         `json:"env,omitempty"`
	Sub         string       `json:"sub,omitempty"`
	HasSub      bool         `json:"has_sub,omitempty"`
	Subs        []string     `json:"subs,omitempty"`
	Flags       [][]string   `json:"flags,omitempty"`
	Positionals int          `json:"positionals"`
	Count       int          `json:"count,omitempty"`
	Rest        string       `json:"rest,omitempty"`
	Fields      scriptFields `json:"fields,omitempty"`
	AnyOf       scriptFields `json:"any_of,omitempty"`
}

// keptGuardsPath is where the guards of rules are kept in dir.
func keptGuardsPath(dir string, rules []recipe.Rule) string {
	h := sha256.New()
	h.Write([]byte(keptGuardsFormat + "\x00" + recipe.Executable()))
	for _, r := range rules {
		h.Write([]byte(r.Each + "\x00" + r.When + "\x01"))
	}
	return filepath.Join(dir, "guards", hex.EncodeToString(h.Sum(nil))+".json")
}

// readKeptGuards fills the rules' guards from dir, and reports whether it
// could: a missing or unreadable file is only work to do again.
func readKeptGuards(dir string, rules []*compiledRule, text []recipe.Rule) bool {
	b, err := os.ReadFile(keptGuardsPath(dir, text))
	if err != nil {
		return false
	}
	var kept []keptRule
	// segmentio's decoder: a third of encoding/json's time in a fresh
	// process, which every rein is.
	if fastjson.Unmarshal(b, &kept) != nil || len(kept) != len(rules) {
		return false
	}
	for i, k := range kept {
		r := rules[i]
		g := ruleGuards{env: k.Env, sub: k.Sub, hasSub: k.HasSub, flags: k.Flags, positionals: k.Positionals, count: k.Count, rest: k.Rest}
		if k.Names != nil {
			g.names = make(map[string]bool, len(k.Names))
			for _, n := range k.Names {
				g.names[n] = true
			}
		}
		if k.NamePattern != nil {
			g.namePattern = &namePattern{src: *k.NamePattern}
		}
		if k.Subs != nil {
			g.subs = make(map[string]bool, len(k.Subs))
			for _, s := range k.Subs {
				g.subs[s] = true
			}
		}
		r.guards, r.scriptFields, r.anyOf = g, k.Fields, k.AnyOf
	}
	return true
}

// keepGuards writes the rules' guards to dir (recipe.KeepInCache).
func keepGuards(dir string, rules []*compiledRule, text []recipe.Rule) {
	kept := make([]keptRule, len(rules))
	for i, r := range rules {
		g := r.guards
		k := keptRule{Env: g.env, Sub: g.sub, HasSub: g.hasSub, Flags: g.flags, Positionals: g.positionals, Count: g.count, Rest: g.rest, Fields: r.scriptFields, AnyOf: r.anyOf}
		if g.names != nil {
			k.Names = make([]string, 0, len(g.names))
			for n := range g.names {
				k.Names = append(k.Names, n)
			}
		}
		if g.namePattern != nil {
			k.NamePattern = &g.namePattern.src
		}
		for s := range g.subs {
			k.Subs = append(k.Subs, s)
		}
		kept[i] = k
	}
	b, err := json.Marshal(kept)
	if err != nil {
		return
	}
	path := keptGuardsPath(dir, text)
	if os.MkdirAll(filepath.Dir(path), 0o700) == nil {
		recipe.KeepInCache(path, b)
	}
}
