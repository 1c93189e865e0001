package runner

import (
	"path/filepath"

	"fmt"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/interp"
	"sort"
	"strconv"
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

// gitConfinement is configuration every git a command runs gets, through
// git's GIT_CONFIG_* variables (which win over every configuration file):
// no repository found by being shaped like a bare one (a tracked folder
// with HEAD, config, refs and objects whose config names core.fsmonitor ran
// it on git -C vendor/lib status), and no fsmonitor program at all.
var gitConfinement = [][2]string{{"safe.bareRepository", "explicit"}, {"core.fsmonitor", "false"}}

// confineGit returns env with gitConfinement added after the entries it
// may already hold, and git's search for a repository stopped at ceiling
// (the folder above the workspace's working tree): a git started in a
// workspace that is not a repository must not take up one above it (a
// planted /tmp/.git, a home folder's dotfiles repository).
func confineGit(env []string, ceiling string) []string {
	n := 0
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GIT_CONFIG_COUNT="); ok {
			if c, err := strconv.Atoi(v); err == nil && c > 0 {
				n = c
			}
		}
	}
	out := make([]string, 0, len(env)+2*len(gitConfinement)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "GIT_CONFIG_COUNT=") && !strings.HasPrefix(kv, "GIT_CEILING_DIRECTORIES=") {
			out = append(out, kv)
		}
	}
	if filepath.IsAbs(ceiling) {
		out = append(out, "GIT_CEILING_DIRECTORIES="+ceiling)
	}
	for i, c := range gitConfinement {
		out = append(out, fmt.Sprintf("GIT_CONFIG_KEY_%d=%s", n+i, c[0]), fmt.Sprintf("GIT_CONFIG_VALUE_%d=%s", n+i, c[1]))
	}
	return append(out, fmt.Sprintf("GIT_CONFIG_COUNT=%d", n+len(gitConfinement)))
}

// lookPath finds the program a bare name runs. PATH entries that are
// relative (".", "", "bin") or inside the workspace (an activated
// virtualenv's .venv/bin, direnv's PATH_add) are tried only after the
// others: rein vets ls as ls, and a repository's own ./ls or .venv/bin/ls
// must not be what runs. A program found only there (pytest in .venv/bin)
// is still found; relative entries never are.
func (r *Runner) lookPath(dir string, env expand.Environ, name string) (string, error) {
	if strings.ContainsAny(name, `/\`) {
		return interp.LookPathDir(dir, env, name)
	}
	var outside, inside []string
	for _, d := range filepath.SplitList(env.Get("PATH").String()) {
		switch {
		case d == "" || !filepath.IsAbs(d):
		case policy.Inside(d, r.workspace):
			inside = append(inside, d)
		default:
			outside = append(outside, d)
		}
	}
	for _, list := range [][]string{outside, inside} {
		if len(list) == 0 {
			continue
		}
		pathEnv := expand.ListEnviron("PATH="+strings.Join(list, string(filepath.ListSeparator)), "PATHEXT="+env.Get("PATHEXT").String())
		if path, err := interp.LookPathDir(dir, pathEnv, name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%s: not found on PATH", name)
}

// workspaceCacheEnv expands the workspace's build cache in the values of
// env (GOMODCACHE=$REIN_WORKSPACE_CACHE/go/mod); a variable whose cache
// cannot be had is left out, and the tool uses its default.
func workspaceCacheEnv(env []string, workspace string) []string {
	out := env[:0:0]
	for _, kv := range env {
		v, ok := recipe.ExpandWorkspaceCache(kv, workspace)
		if ok {
			out = append(out, v)
		}
	}
	return out
}
