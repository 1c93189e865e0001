package recipe

import (
	"fmt"
	"github.com/reinsh/rein/engine/suggest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Built-in defaults, applied under every recipe.
var (
	// SecretPaths are never readable or writable by commands or file tools.
	SecretPaths = append([]string{"~/.ssh/**", "~/.aws/**", "~/.gnupg/**", "~/.config/gcloud/**", "~/.azure/**", "~/.kube/**",
		"~/.docker/config.json", "~/.netrc", "~/.git-credentials", "~/.npmrc", "~/.pypirc", "~/.config/gh/**",
		// More places tools keep passwords and tokens, and shell histories
		// (export TOKEN=... typed once); ToolConfig is added below.
		"~/.vault-token", "~/.cargo/credentials", "~/.cargo/credentials.toml", "~/.gem/credentials",
		"~/.terraform.d/credentials.tfrc.json", "~/.config/hub", "~/.password-store/**", "~/.local/share/keyrings/**", "~/.*_history",
		"**/.env", "**/.env.*", "**/*.pem", "**/*.key", "**/id_rsa*", "**/id_ed25519*", "**/id_ecdsa*",
		// The same files kept in a project, and certificate stores and
		// terraform state (which holds every secret it provisioned).
		"**/.envrc", "**/.netrc", "**/.npmrc", "**/.pypirc", "**/.git-credentials", "**/*.p12", "**/*.pfx",
		"**/*.jks", "**/*.keystore", "**/*.tfstate", "**/*.tfstate.backup",
		// A repository's config holds credentials: the token CI checkouts
		// leave as an http extraheader, passwords in remote URLs.
		"**/.git/config",
		"/etc/shadow", "/etc/gshadow", "/etc/master.passwd", "/etc/sudoers", "/etc/sudoers.d/**",
		"/etc/ssh/ssh_host_*key", "/etc/ssl/private/**", "/dev/mem", "/dev/kmem", "/dev/port",
		// Disks read raw: every file on them, every user's keys, for a
		// rein running as root (devcontainers, CI runners).
		"/dev/sd*", "/dev/hd*", "/dev/vd*", "/dev/xvd*", "/dev/nvme*", "/dev/mmcblk*", "/dev/loop[0-9]*", "/dev/dm-*",
		"/dev/md[0-9]*", "/dev/sr[0-9]*", "/dev/sg[0-9]*", "/dev/root", "/dev/mapper/**", "/dev/disk/**", "/dev/block/**",
		// Other users' keys, for a rein running as root (or with their permissions).
		"/root/.ssh/**", "/root/.aws/**", "/root/.gnupg/**", "/home/*/.ssh/**", "/home/*/.aws/**",
		"/home/*/.gnupg/**", "/Users/*/.ssh/**", "/Users/*/.aws/**", "/Users/*/.gnupg/**",
		// Another process's environment and memory (rein's own holds the
		// model's API key), and the links through which /proc reaches any
		// file the process can (/proc/PID/root/home/u/.ssh/id_rsa).
		"/proc/**/environ", "/proc/**/mem", "/proc/**/root/**", "/proc/**/cwd/**", "/proc/**/fd/**", "/proc/**/map_files/**",
		// The terminal rein runs in: a command reading it takes the
		// keystrokes meant for rein's prompts (or the user's next command),
		// one writing it can forge what the user sees.
		"/dev/tty", "/dev/tty[0-9]*", "/dev/pts/**", "/dev/console", "/dev/ptmx", "/dev/vcs*",
		// rein's own record: every session's transcript, from every repository.
		"~/.local/state/rein/**",
		// Container registries' logins: podman, buildah and skopeo
		// (containers-auth.json(5)), Docker's before config.json.
		"~/.config/containers/auth.json", "/run/user/*/containers/auth.json", "~/.dockercfg",
		// git's own credential store in its XDG folder (the rest of that
		// folder is tool configuration, readable by programs).
		"~/.config/git/credentials",
		// Cloud and platform command lines' tokens: Oracle (oci), DigitalOcean
		// (doctl), Hetzner (hcloud), Alibaba (aliyun), GitLab (glab), Pulumi,
		// Terraform's CLI config, 1Password (op), rclone, s3cmd, boto, MinIO.
		"~/.oci/**", "~/.config/doctl/**", "~/.config/hcloud/**", "~/.aliyun/**", "~/.config/glab-cli/**",
		"~/.pulumi/credentials.json", "~/.terraformrc", "~/.config/op/**", "~/.config/rclone/rclone.conf",
		"~/.s3cfg", "~/.boto", "~/.mc/config.json",
		// Package registries' tokens: Composer, NuGet, sbt and ivy, yarn 2+.
		"~/.composer/auth.json", "~/.config/composer/auth.json", "~/.nuget/NuGet/NuGet.Config",
		"~/.sbt/credentials", "~/.ivy2/.credentials", "~/.yarnrc.yml",
		// Coding agents' logins: Claude Code, Codex, Gemini CLI, GitHub
		// Copilot; and tools that keep tokens in configstore (firebase).
		"~/.claude/.credentials.json", "~/.claude.json", "~/.codex/auth.json", "~/.gemini/oauth_creds.json",
		"~/.config/github-copilot/**", "~/.config/configstore/**",
		// Secrets mounted into containers: Docker and Compose secrets,
		// Kubernetes service account tokens.
		"/run/secrets/**", "/var/run/secrets/**",
		// Project files that hold secrets by name: prod.env, Google's OAuth
		// client secrets and service account keys.
		"**/*.env", "**/credentials.json", "**/client_secret*.json",
		// Other processes' command lines: tokens passed as arguments.
		"/proc/**/cmdline"}, ToolConfig...)
	// SystemFolders are what programs read to run at all (their code,
	// libraries, the dynamic loader's cache, time zones, certificates,
	// /proc/self): a recipe with paths.scope 'workspace' lets commands
	// read these and the workspace, and nothing else. Secret paths inside
	// them (/etc/shadow) stay refused and hidden.
	SystemFolders = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/nix", "/proc", "/sys", "/dev",
		"/System", "/Library", "/Applications", "/private/etc", "/private/var/db", "/Windows"}
	// ToolConfig are secrets that the programs rein runs read for their
	// own configuration: git its ~/.gitconfig, shells their start-up files
	// (export TOKEN=... lives there), maven and gradle their settings,
	// database clients their password files. Naming them is refused like
	// any secret; the sandbox leaves them readable, as hiding them would
	// break those programs (git warns on every command and loses the
	// user's identity).
	ToolConfig = []string{"~/.gitconfig", "~/.config/git/**", "~/.m2/settings.xml", "~/.gradle/gradle.properties",
		"~/.pgpass", "~/.my.cnf", "~/.bashrc", "~/.bash_profile", "~/.profile", "~/.zshrc", "~/.zshenv", "~/.zprofile",
		"~/.config/fish/**"}
	// ProtectedPaths hold code that runs later, when the user works outside
	// rein: git runs a repository's hooks and the commands its per-worktree
	// and submodule configs name (core.fsmonitor, core.pager) on the next
	// commit or status, without asking, and a .git file can point git at
	// another folder's config. Reading them is harmless; rein never writes
	// them (.git/config is a secret already). Nor any rein.jsonnet: a recipe
	// is the policy of the commands run below it, and one written into a
	// subfolder becomes the recipe there.
	ProtectedPaths = append([]string{"**/rein.jsonnet", "**/.git", "**/.git/hooks", "**/.git/hooks/**", "**/.git/config.worktree",
		"**/.git/worktrees/*/config.worktree", "**/.git/modules/**", "**/.git/commondir",
		// Agents' and editors' configuration: hooks and MCP servers the
		// agent runs, tasks an editor runs when it opens the folder.
		"**/.claude/**", "**/.mcp.json", "**/.cursor/**", "**/.gemini/**", "**/.codex/**",
		"**/.vscode/tasks.json", "**/.vscode/settings.json", "**/.vscode/launch.json", "**/.idea/**"}, AgentConfig...)
	// ToolNames are the built-in tools a recipe's tools field turns on and
	// off (engine/tools makes them; a test holds the two lists alike).
	ToolNames = []string{"run_command", "execute_command", "list_allowed_commands", "glob", "file_read", "grep", "file_write", "list_directory", "system_info"}
	// AgentConfig are the files in a workspace that agents and editors run
	// commands from: rein puts them back when a command changes them.
	AgentConfig = []string{".claude/settings.json", ".claude/settings.local.json", ".mcp.json", ".cursor/mcp.json",
		".gemini/settings.json", ".codex/config.toml", ".vscode/tasks.json", ".vscode/settings.json", ".vscode/launch.json"}
	// SecretEnv are environment variables executed commands never see.
	SecretEnv = []string{"*_API_KEY", "*_APIKEY", "*TOKEN*", "*SECRET*", "*PASSWORD*", "*PASSWD*", "*CREDENTIAL*", "*_PRIVATE_KEY", "AWS_*", "AZURE_*", "GOOGLE_APPLICATION_CREDENTIALS"}
	// PassEnv are passed to executed commands unless a recipe says otherwise.
	PassEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "TMPDIR", "TEMP", "TMP",
		"SYSTEMROOT", "COMSPEC", "PATHEXT", "WINDIR", "USERPROFILE", "APPDATA", "LOCALAPPDATA",
		"GOPATH", "GOROOT", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "CARGO_HOME", "RUSTUP_HOME", "NODE_PATH", "VIRTUAL_ENV", "PYTHONHOME"}
)

// Shell construct defaults: what a recipe that says nothing gets.
var defaultShell = Shell{
	RedirectWrite:       "deny",
	RedirectRead:        "allow",
	Substitution:        "allow",
	ProcessSubstitution: "allow",
	Subshell:            "allow",
	Background:          "deny",
	Function:            "deny",
	Heredoc:             "allow",
	DynamicCommandName:  "deny",
}

// normalize applies defaults, removes duplicates that merged presets
// produce, and checks what the schema cannot.
func (r *Recipe) normalize() error {
	if r.Default == "" {
		r.Default = "deny"
	}
	fill := func(dst *string, def string) {
		if *dst == "" {
			*dst = def
		}
	}
	fill(&r.Shell.RedirectWrite, defaultShell.RedirectWrite)
	fill(&r.Shell.RedirectRead, defaultShell.RedirectRead)
	fill(&r.Shell.Substitution, defaultShell.Substitution)
	fill(&r.Shell.ProcessSubstitution, defaultShell.ProcessSubstitution)
	fill(&r.Shell.Subshell, defaultShell.Subshell)
	fill(&r.Shell.Background, defaultShell.Background)
	fill(&r.Shell.Function, defaultShell.Function)
	fill(&r.Shell.Heredoc, defaultShell.Heredoc)
	fill(&r.Shell.DynamicCommandName, defaultShell.DynamicCommandName)
	fill(&r.Shell.UnknownProgram, r.Default)

	fill(&r.Paths.Scope, "granted")
	if r.Paths.Read == nil {
		r.Paths.Read = []string{"**"}
	}
	if r.GrantedReads() {
		for _, g := range r.Paths.Read {
			if top := GlobTop(g); top == "~" || top == "/" || top == "/home" || top == "/Users" {
				return r.fieldError("read", fmt.Sprintf("paths.read %q grants every file in %s: name the folders commands need (paths.read: ['~/notes/**']), or let them read everything but the secret paths with paths.scope: 'anywhere'", g, top))
			}
		}
	}
	if r.Paths.Write == nil {
		r.Paths.Write = []string{"**"}
	}
	r.Paths.Deny = dedupe(append(r.Paths.Deny, SecretPaths...))
	r.Paths.Protect = dedupe(append(r.Paths.Protect, ProtectedPaths...))
	r.Sandbox.HiddenWrite = dedupe(append(slices.Clone(HiddenWritable), r.Sandbox.HiddenWrite...))
	for _, g := range r.Paths.Grant {
		clean := filepath.ToSlash(filepath.Clean(g.Path))
		if g.Path == "" || filepath.IsAbs(g.Path) || strings.HasPrefix(g.Path, "~") || clean == ".." || strings.HasPrefix(clean, "../") || strings.ContainsAny(filepath.Dir(clean), "*?[") {
			return r.fieldError("grant", fmt.Sprintf("paths.grant path %q: name a file or folder of the workspace, relative to it (.env, config/secrets.yml; * only in the last part)", g.Path))
		}
		if len(g.Commands) == 0 {
			return r.fieldError("grant", fmt.Sprintf("paths.grant of %q names no command: say which commands see it, as allow globs ('npm test', 'docker compose *')", g.Path))
		}
	}
	if r.Env.Pass == nil {
		r.Env.Pass = PassEnv
	}
	r.Env.Deny = dedupe(append(r.Env.Deny, SecretEnv...))

	// execute_command's own defaults, unless the recipe set the limits.
	fillDuration := func(dst *Duration, defs ...time.Duration) {
		for _, def := range defs {
			if *dst == 0 {
				*dst = Duration(def)
			}
		}
	}
	fillDuration(&r.Limits.ExecuteTimeout, r.Limits.Timeout.D(), 60*time.Second)
	fillDuration(&r.Limits.ExecuteMaxTimeout, r.Limits.MaxTimeout.D(), 120*time.Second)
	fillDuration(&r.Limits.Timeout, 30*time.Second)
	fillDuration(&r.Limits.MaxTimeout, 10*time.Minute)
	if r.Limits.MaxToolTurns == 0 {
		r.Limits.MaxToolTurns = 50
	}
	if r.Limits.MaxCommands == 0 {
		r.Limits.MaxCommands = 50
	}
	if r.Limits.MaxOutputBytes == 0 {
		r.Limits.MaxOutputBytes = 1 << 20
	}
	if r.Limits.MaxFileBytes == 0 {
		r.Limits.MaxFileBytes = 1 << 20
	}
	timeout, maxTimeout := r.Limits.Timeout.D(), r.Limits.MaxTimeout.D()
	if timeout > maxTimeout {
		return r.fieldError("timeout", fmt.Sprintf("limits.timeout (%s) is longer than limits.max_timeout (%s)", timeout, maxTimeout))
	}
	// execute_command's default lies within its maximum, and both within
	// the recipe's maximum.
	execMax := min(max(r.Limits.ExecuteMaxTimeout, r.Limits.ExecuteTimeout), r.Limits.MaxTimeout)
	r.Limits.ExecuteTimeout, r.Limits.ExecuteMaxTimeout = min(r.Limits.ExecuteTimeout, execMax), execMax
	fill(&r.Sandbox.Mode, "workspace-write")
	if len(r.Paths.Write) == 0 && r.Sandbox.Mode == "workspace-write" {
		// A recipe that lets commands write nowhere runs them read-only:
		// what vetting missed cannot write either.
		r.Sandbox.Mode = "read-only"
	}
	fill(&r.Sandbox.Network, "allow")
	fill(&r.Sandbox.Unavailable, "warn")

	r.Commands = dedupeCommands(r.Commands)
	r.Rules = dedupeRules(r.Rules)
	r.Allow, r.Ask, r.Deny = dedupe(r.Allow), dedupe(r.Ask), dedupe(r.Deny)
	r.Tests.Allow, r.Tests.Ask, r.Tests.Deny = dedupe(r.Tests.Allow), dedupe(r.Tests.Ask), dedupe(r.Tests.Deny)
	for name := range r.Tools {
		if !slices.Contains(ToolNames, name) {
			return r.fieldError(name, fmt.Sprintf("tools.%s is not a tool%s; the tools are %s", name, suggest.DidYouMean(name, ToolNames), strings.Join(ToolNames, ", ")))
		}
	}
	for name, p := range r.Programs {
		if p == nil {
			delete(r.Programs, name)
			continue
		}
		if strings.ContainsAny(name, `/\`) {
			// Program rules match a program found on PATH by its name; a
			// script run by path is allowed by a catalog entry.
			return r.fieldError(name, fmt.Sprintf("programs.%q names a path: programs are matched by the name of a program found on PATH; allow a script by its path with a catalog entry, rein.command('%s <args>'), or an allow glob, '%s *'", name, name, name))
		}
		p.DenyFlags = dedupe(p.DenyFlags)
		p.DenySubcommands = dedupe(p.DenySubcommands)
		if p.Flags != nil {
			p.Flags = dedupe(p.Flags)
		}
	}
	for name, t := range r.Tasks {
		for _, d := range t.Deps {
			if _, ok := r.Tasks[d]; !ok {
				return r.fieldError(name, fmt.Sprintf("task %q depends on %q, which is not a task", name, d))
			}
		}
	}
	return nil
}

func (r *Recipe) fieldError(key, msg string) error {
	e := &Error{Msg: msg}
	for i := len(r.Sources) - 1; i >= 0 && e.File == ""; i-- {
		if b, err := os.ReadFile(r.Sources[i]); err == nil {
			if l, c, ok := findKey(string(b), key); ok {
				e.File, e.Line, e.Col = r.Sources[i], l, c
			}
		}
	}
	if e.File == "" && len(r.Sources) > 0 {
		e.File = r.Sources[len(r.Sources)-1]
	}
	return e
}

func dedupe(xs []string) []string {
	if len(xs) < 2 {
		return xs
	}
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// dedupeCommands keeps one entry per command, the later description winning.
func dedupeCommands(cs []CatalogCommand) []CatalogCommand {
	index := map[string]int{}
	var out []CatalogCommand
	for _, c := range cs {
		if i, ok := index[c.Command]; ok {
			if c.Description != "" {
				out[i].Description = c.Description
			}
			continue
		}
		index[c.Command] = len(out)
		out = append(out, c)
	}
	return out
}

// dedupeRules keeps one rule per name, the later definition winning.
func dedupeRules(rs []Rule) []Rule {
	index := map[string]int{}
	var out []Rule
	for _, r := range rs {
		if i, ok := index[r.Name]; ok {
			out[i] = r
			continue
		}
		index[r.Name] = len(out)
		out = append(out, r)
	}
	return out
}

// Builtins are provided by rein's embedded shell: always available.
var Builtins = map[string]bool{
	"cd": true, "echo": true, "printf": true, "true": true, "false": true, "test": true, "[": true, ":": true,
	"exit": true, "export": true, "local": true, "declare": true, "readonly": true, "typeset": true, "type": true,
	"command": true, "builtin": true, "eval": true, "exec": true, "set": true, "shift": true, "unset": true,
	"pwd": true, "read": true, "return": true, "source": true, ".": true, "trap": true, "wait": true, "alias": true,
	"unalias": true, "getopts": true, "let": true, "shopt": true, "pushd": true, "popd": true, "dirs": true, "umask": true,
	"mapfile": true, "readarray": true, "time": true,
}

func lookPath(name string) (string, error) { return exec.LookPath(name) }

// unavailable lists catalog commands and programs whose executable is
// neither a builtin, on PATH, nor a file in the workspace.
func unavailable(r *Recipe, look func(string) (string, error)) []string {
	seen := map[string]bool{}
	var missing []string
	check := func(prog string) {
		if prog == "" || seen[prog] {
			return
		}
		seen[prog] = true
		if Builtins[prog] {
			return
		}
		if strings.ContainsAny(prog, `/\`) {
			p := prog
			if !filepath.IsAbs(p) {
				p = filepath.Join(r.Workspace, p)
			}
			if _, err := os.Stat(p); err != nil {
				missing = append(missing, prog)
			}
			return
		}
		if _, err := look(prog); err != nil {
			missing = append(missing, prog)
		}
	}
	for _, c := range r.Commands {
		if f := strings.Fields(c.Command); len(f) > 0 {
			check(f[0])
		}
	}
	for name := range r.Programs {
		check(name)
	}
	sort.Strings(missing)
	return missing
}

// Available reports whether a catalog command or program can run here.
func (r *Recipe) Available(prog string) bool {
	i := sort.SearchStrings(r.Unavailable, prog)
	return i >= len(r.Unavailable) || r.Unavailable[i] != prog
}

// TimeoutDuration is limits.timeout as a duration.
func (r *Recipe) TimeoutDuration() time.Duration { return r.Limits.Timeout.D() }
