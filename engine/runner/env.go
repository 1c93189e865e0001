package runner

import (
	"sort"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

// BuildEnv makes the environment executed commands see: the parent's
// variables whose names match env.pass and none of env.deny (secrets are in
// env.deny by default), then env.set. Never the whole parent environment.
func BuildEnv(e recipe.Env, parent []string) []string {
	vars := map[string]string{}
	for _, kv := range parent {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		if matchesAny(e.Pass, name) && !matchesAny(e.Deny, name) {
			vars[name] = value
		}
	}
	for name, value := range e.Set {
		vars[name] = value
	}
	out := make([]string, 0, len(vars))
	for name, value := range vars {
		out = append(out, name+"="+value)
	}
	sort.Strings(out)
	return out
}

func matchesAny(globs []string, name string) bool {
	for _, g := range globs {
		if policy.Glob(g, name) {
			return true
		}
	}
	return false
}
