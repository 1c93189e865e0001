package recipe

import (
	"path/filepath"
	"slices"
	"strings"
)

// What commands may write that runs later. A workspace is writable as a
// whole, but its hidden files and folders (.envrc, .husky/, .github/,
// .vscode/, .pre-commit-config.yaml, an agent's settings …), a recipe below
// its top and git's administrative files are read by programs that the
// person runs later, outside rein: direnv, git hooks, editors, agents, CI.
// No list of those programs is complete, so every hidden entry is
// read-only to commands (where the sandbox has namespaces) and one a
// command makes is taken back after it — but those on HiddenWritable and
// the recipe's sandbox.hidden_write.

// HiddenWritable are the hidden files and folders commands may write by
// default: ignore lists, which tell tools what to skip and name no
// program, and caches and build output that tools make again, which hold
// data the tool reads back or the project's own build (as dist/ does).
// docs/sandbox.md says why each cannot make anything run on this machine.
var HiddenWritable = []string{
	// Ignore lists.
	".gitignore", ".dockerignore", ".prettierignore", ".eslintignore", ".npmignore", ".gitkeep",
	// Test and type-checker caches: results and data.
	".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis", ".coverage", ".nyc_output", ".eslintcache",
	// Build output and bundlers' caches.
	".next", ".nuxt", ".svelte-kit", ".turbo", ".parcel-cache", ".angular", ".docusaurus",
}

// HiddenName reports whether a name is one of a hidden file or folder.
func HiddenName(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." && name != ".."
}

// HiddenWritableAt reports whether rel, a path relative to the workspace
// whose last part is hidden, is one commands may write under the list
// (entries are names, matched at any depth, or relative paths; * may
// stand in a part).
func HiddenWritableAt(rel string, list []string) bool {
	rel = filepath.ToSlash(rel)
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return slices.ContainsFunc(list, func(w string) bool {
		if !strings.Contains(w, "/") {
			ok, _ := filepath.Match(w, base)
			return ok
		}
		ok, _ := filepath.Match(strings.TrimPrefix(w, "./"), rel)
		return ok
	})
}

// GitWrites are the entries of a repository's .git that git itself writes
// as it works (the index, objects, refs, logs, the state of a merge,
// rebase or bisect, and config, whose keys rein puts back by name): every
// other entry (hooks, info, worktrees, modules, commondir …) is read-only
// to commands, where the sandbox has namespaces.
var GitWrites = []string{"index", "objects", "refs", "logs", "HEAD", "ORIG_HEAD", "FETCH_HEAD", "packed-refs",
	"config", "COMMIT_EDITMSG", "TAG_EDITMSG", "MERGE_HEAD", "MERGE_MSG", "MERGE_MODE", "MERGE_RR", "AUTO_MERGE",
	"CHERRY_PICK_HEAD", "REVERT_HEAD", "REBASE_HEAD", "rebase-merge", "rebase-apply", "sequencer", "rr-cache",
	"BISECT_LOG", "BISECT_START", "BISECT_TERMS", "BISECT_EXPECTED_REV", "BISECT_ANCESTORS_OK", "BISECT_NAMES",
	"shallow", "lfs", "gc.pid", "gc.log", "description", "gitk.cache", "SQUASH_MSG", "NOTES_MERGE_PARTIAL"}
