package recipe

import (
	"path/filepath"
	"slices"
	"strings"
)

// What commands may read. Under granted reads (paths.scope 'granted', the
// default) a command reads the workspace, its temp folder, the places it
// may write, and ReadRoots: what programs need to run, and what the recipe
// grants. The rest of the home folder, and other users' homes, are not
// listed, so no list of secret names has to be complete: vetting refuses
// a path outside them by name, and the sandbox grants nothing else.

// Toolchains are where language toolchains and their version managers keep
// the programs and libraries they run, and the package caches builds read:
// a program on PATH is often a link into one of them (~/.cargo/bin/cargo
// runs ~/.rustup's toolchain; ~/.nvm's node loads its own lib folder).
// The sandbox also grants the folder a linked program lives in (see
// sandbox's linkPrefixes), for the managers this list does not name.
var Toolchains = []string{
	// Go: GOPATH's programs and module cache, downloaded toolchains, go env.
	"~/go/bin", "~/go/pkg/mod", "~/sdk", "~/.config/go",
	// Rust: rustup's toolchains, cargo's programs and registry.
	"~/.rustup", "~/.cargo/bin", "~/.cargo/registry", "~/.cargo/git",
	// Python: pyenv, uv's interpreters and tools, the user's site-packages.
	"~/.pyenv", "~/.local/share/uv", "~/.local/lib", "~/.local/bin", "~/.local/pipx",
	// JavaScript: nvm, volta, fnm, pnpm, bun, deno, npm's global prefix,
	// node-gyp's headers.
	"~/.nvm", "~/.volta", "~/.fnm", "~/.local/share/fnm", "~/.local/share/pnpm", "~/.bun", "~/.deno",
	"~/.npm-global", "~/.cache/node-gyp",
	// JVM, Ruby and the general managers: sdkman, maven's and gradle's
	// downloads, rbenv, asdf, mise, nix, Homebrew on Linux.
	"~/.sdkman", "~/.m2/repository", "~/.gradle/caches", "~/.gradle/wrapper", "~/.rbenv",
	"~/.asdf", "~/.local/share/mise", "~/.nix-profile", "~/.linuxbrew", "/home/linuxbrew/.linuxbrew",
	// .NET, Haskell, OCaml, Lean.
	"~/.dotnet", "~/.ghcup", "~/.opam", "~/.elan",
}

// ToolchainEnv are the variables that say where a toolchain lives when it
// is not where Toolchains looks (GOPATH=/work/go, CARGO_HOME, a Java or
// Python installation): their folders are read roots too.
var ToolchainEnv = []string{"GOROOT", "GOPATH", "GOMODCACHE", "CARGO_HOME", "RUSTUP_HOME", "PYENV_ROOT", "NVM_DIR",
	"VOLTA_HOME", "BUN_INSTALL", "DENO_DIR", "SDKMAN_DIR", "PNPM_HOME", "ASDF_DATA_DIR", "MISE_DATA_DIR",
	"RBENV_ROOT", "JAVA_HOME", "UV_PYTHON_INSTALL_DIR", "VIRTUAL_ENV", "CONDA_PREFIX"}

// GrantedReads reports whether commands' reads are granted (paths.scope
// 'granted', or its older name 'workspace') rather than open everywhere
// but the secret paths ('anywhere').
func (r *Recipe) GrantedReads() bool { return r.Paths.Scope != "anywhere" }

// ReadRoots are the places outside the workspace that commands may read
// under granted reads, as absolute paths (home is the user's home folder;
// getenv reads the environment rein runs in: PATH and ToolchainEnv): the
// system folders, the toolchains (Toolchains, ToolchainEnv),
// the folders on PATH (the programs) and the prefixes they are the bin
// folders of, the configuration files programs
// read for themselves, and the folders that the recipe's paths.read globs
// outside the workspace start with. Places that do not exist are listed
// too; the sandbox skips them.
func (r *Recipe) ReadRoots(home string, getenv func(string) string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		p = filepath.Clean(p)
		// Nothing that holds the home folder (a PATH of /, /home or ~
		// itself): that would grant everything in it.
		if seen[p] || home != "" && within(home, p) {
			return
		}
		seen[p] = true
		out = append(out, p)
	}
	expand := func(p string) string {
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home == "" {
				return ""
			}
			return filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		if filepath.IsAbs(p) {
			return p
		}
		return ""
	}
	for _, d := range SystemFolders {
		add(d)
	}
	for _, d := range Toolchains {
		if p := expand(d); p != "" {
			add(p)
		}
	}
	for _, v := range ToolchainEnv {
		for _, d := range filepath.SplitList(getenv(v)) {
			if filepath.IsAbs(d) {
				add(d)
			}
		}
	}
	for _, d := range filepath.SplitList(getenv("PATH")) {
		if !filepath.IsAbs(d) {
			continue
		}
		add(d)
		// A toolchain's programs are PREFIX/bin (or a version manager's
		// PREFIX/shims): they read PREFIX's lib and share. Not the
		// home folder's own ~/.local, whose share holds every
		// application's data (its bin and lib are in Toolchains).
		if base := filepath.Base(d); base == "bin" || base == "shims" {
			// Nor a home folder, nor what holds them.
			prefix := filepath.Dir(d)
			homes := []string{"/", "/home", "/Users", "/root"}
			if !slices.Contains(homes, prefix) && !slices.Contains(homes[1:3], filepath.Dir(prefix)) && (home == "" || prefix != filepath.Join(home, ".local")) {
				add(prefix)
			}
		}
	}
	for _, c := range ToolConfig {
		if p := expand(strings.TrimSuffix(c, "/**")); p != "" {
			add(p)
		}
	}
	for _, g := range r.Paths.Read {
		if p := expand(GlobTop(g)); p != "" && !within(p, r.Workspace) {
			add(p)
		}
	}
	// Not a place inside another.
	listed := make(map[string]bool, len(out))
	for _, p := range out {
		listed[p] = true
	}
	return slices.DeleteFunc(out, func(p string) bool {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if listed[d] {
				return true
			}
			if d == filepath.Dir(d) {
				return false
			}
		}
	})
}

// GlobTop is the literal folder a glob starts with: ~/notes for
// ~/notes/**/*.md, the glob itself when it has no wildcard.
func GlobTop(g string) string {
	i := strings.IndexAny(g, "*?[{")
	if i < 0 {
		return strings.TrimSuffix(g, "/")
	}
	top := g[:i]
	if j := strings.LastIndexByte(top, '/'); j >= 0 {
		return top[:j]
	}
	return ""
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	p, dir = filepath.Clean(p), filepath.Clean(dir)
	return p == dir || strings.HasPrefix(p, strings.TrimSuffix(dir, string(filepath.Separator))+string(filepath.Separator))
}
