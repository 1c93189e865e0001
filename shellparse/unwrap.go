package shellparse

import (
	"fmt"
	"github.com/reinsh/rein/engine/programs"
	"maps"
	"slices"
	"strings"
)

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// unwrap finds the commands a simple command runs on its behalf and analyses
// them as simple commands of their own.
func (a *analyzer) unwrap(cmd *Command, ctx context) {
	if cmd.DynamicName || len(cmd.Words) == 0 {
		return
	}
	loadWrappers()
	w, ok := wrappings[cmd.Name]
	if !ok {
		return
	}
	words := cmd.Words
	name := cmd.Name
	exec := ctx
	exec.execd = true
	switch {
	case w.shell:
		a.unwrapShell(cmd, exec)
		return
	case w.special != nil:
		if name == "eval" || name == "trap" {
			exec = ctx // same shell: its functions stay visible
		}
		w.special(a, cmd, exec)
		return
	}
	syn, _ := wrapperSyntax(name)
	opts := skipOptions(words, *syn, name == "env" || syn.chdir != nil)
	if opts.unknown != "" {
		a.finding(FindingUnknownOption, unknownOption(name, opts.unknown, *syn), cmd.Pos, cmd.Via)
		return
	}
	if !opts.runs {
		return
	}
	next, env := opts.next, opts.env
	// env -C DIR and sudo -D DIR run the command in DIR.
	for _, o := range syn.chdir {
		if d, ok := opts.values[o]; ok && d != "" {
			exec.dir = joinDir(exec.dir, d)
		}
	}
	if name == "env" {
		split, ok := opts.values["-S"]
		if !ok {
			split, ok = opts.values["--split-string"]
		}
		if ok {
			a.nested(cmd, split+" "+joinWords(words[next:]), exec, "env -S")
			return
		}
	}
	if next >= len(words) {
		if name == "xargs" {
			a.inner(cmd, []Word{{Value: "echo"}}, nil, exec, name)
		}
		return
	}
	if name == "builtin" || name == "command" {
		exec.execd = false
	}
	a.inner(cmd, words[next:], env, exec, name)
}

// enter descends one level into a wrapper or nested script; false when
// the depth limit is reached (and reported).
func (a *analyzer) enter(ctx context, via string, at Position) (context, bool) {
	inner := ctx.with(via)
	if !a.nest(inner) {
		a.fail(FindingTooDeep, fmt.Sprintf("nesting deeper than %d levels", a.lim.MaxDepth), at)
		return inner, false
	}
	inner.at, inner.nested = at, true
	return inner, true
}

// inner records the command a wrapper runs.
func (a *analyzer) inner(outer *Command, words []Word, env map[string]string, ctx context, via string) {
	if inner, ok := a.enter(ctx, via, outer.Pos); ok {
		a.simple(words, env, inner, outer.Pos, "")
	}
}

// nested parses a string as a script of its own (sh -c, eval, ssh).
func (a *analyzer) nested(outer *Command, text string, ctx context, via string) {
	if inner, ok := a.enter(ctx, via, outer.Pos); ok {
		a.script_(text, inner, outer.Pos)
	}
}

// nestedWords joins words into a script (eval's semantics); a dynamic word
// makes the script unknowable.
func (a *analyzer) nestedWords(outer *Command, words []Word, ctx context, via string) {
	for _, w := range words {
		if w.Dynamic {
			a.finding(FindingDynamicScript, fmt.Sprintf("%s runs a script built at run time (%s); it cannot be checked", via, w.Raw), outer.Pos, outer.Via)
			return
		}
	}
	if len(words) == 0 {
		return
	}
	a.nested(outer, joinWords(words), ctx, via)
}

func joinWords(words []Word) string {
	parts := make([]string, len(words))
	for i, w := range words {
		parts[i] = w.Text()
	}
	return strings.Join(parts, " ")
}

func (a *analyzer) unwrapShell(cmd *Command, ctx context) {
	words := cmd.Words
	command := false
	i := 1
	for ; i < len(words); i++ {
		v := words[i].Value
		if v == "--" || v == "-" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			break
		}
		if strings.HasPrefix(v, "--") {
			if v == "--rcfile" || v == "--init-file" {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			switch v[j] {
			case 'c':
				command = true
			case 'o', 'O':
				if j == len(v)-1 {
					i++
				}
			}
		}
	}
	if !command {
		return
	}
	if i >= len(words) {
		return
	}
	label, ok := shellDashC[cmd.Name]
	if !ok {
		label = cmd.Name + " -c"
	}
	a.nestedWords(cmd, words[i:i+1], ctx, label)
}

func (a *analyzer) unwrapTrap(cmd *Command, ctx context) {
	args := cmd.Words[1:]
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") && args[0].Value != "-" {
		if args[0].Value == "--" {
			args = args[1:]
			break
		}
		args = args[1:]
	}
	if len(args) < 2 || args[0].Value == "-" || args[0].Value == "" && !args[0].Dynamic {
		return
	}
	a.nestedWords(cmd, args[:1], ctx, "trap")
}

// findExecVia names, for each find action that runs a program, the
// wrapper a command it runs is found through.
func findExecVia(action string) string {
	switch action {
	case "-exec":
		return "find -exec"
	case "-execdir":
		return "find -execdir"
	case "-ok":
		return "find -ok"
	case "-okdir":
		return "find -okdir"
	}
	return ""
}

func (a *analyzer) unwrapFind(cmd *Command, ctx context) {
	words := cmd.Words
	for i := 1; i < len(words); i++ {
		via := findExecVia(words[i].Value)
		if via == "" {
			continue
		}
		start := i + 1
		end := start
		for end < len(words) && words[end].Value != ";" && words[end].Value != "+" {
			end++
		}
		if end > start {
			a.inner(cmd, words[start:end], nil, ctx, via)
		}
		i = end
	}
}

// gitConfigRuns tells whether a git configuration entry runs a shell
// command (its value) or code the value does not show, from the program
// table's one list of keys (programs.GitConfigKey). An alias's value is
// read when known: alias.x=!cmd runs cmd, alias.x=log runs git log.
func gitConfigRuns(key, value string, known bool) (shellCommand, pathCode bool) {
	if !known {
		value = "!" // what it will be is not known: read it as a command
	}
	switch programs.GitConfigKey(key, value) {
	case programs.GitShell:
		return true, false
	case programs.GitCode:
		return false, true
	}
	return false, false
}

var gitValueOptions = []string{"-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--attr-source", "--list-cmds"}

func (a *analyzer) unwrapGit(cmd *Command, ctx context) {
	words := cmd.Words
	for i := 1; i < len(words); i++ {
		w := words[i]
		v := w.Value
		if !strings.HasPrefix(v, "-") {
			return
		}
		name, value, has := strings.Cut(v, "=")
		if name == "-c" && len(v) > 2 && !has {
			name, value, has = "-c", v[2:], true
		}
		if !has && slices.Contains(gitValueOptions, name) && i+1 < len(words) {
			i++
			w = words[i]
			value = w.Value
		}
		switch name {
		case "-c":
			key, val, _ := strings.Cut(value, "=")
			a.gitConfig(cmd, key, val, w.Dynamic, ctx)
		case "--config-env":
			key, _, _ := strings.Cut(value, "=")
			if shell, path := gitConfigRuns(key, "", false); shell || path {
				a.finding(FindingCodeExec, fmt.Sprintf("git --config-env sets %s from the environment: it runs code that cannot be checked", key), cmd.Pos, cmd.Via)
			}
		case "--exec-path": // bare, it only prints the path
			if has {
				a.finding(FindingCodeExec, "git --exec-path=DIR runs git's subcommands from DIR", cmd.Pos, cmd.Via)
			}
		}
	}
}

func (a *analyzer) gitConfig(cmd *Command, key, value string, dynamic bool, ctx context) {
	shell, path := gitConfigRuns(key, value, !dynamic)
	switch {
	case path:
		a.finding(FindingCodeExec, fmt.Sprintf("git -c %s runs code from %s", key, Quote(value)), cmd.Pos, cmd.Via)
	case shell && dynamic:
		a.finding(FindingDynamicScript, fmt.Sprintf("git -c %s sets a command built at run time", key), cmd.Pos, cmd.Via)
	case shell:
		value = strings.TrimPrefix(value, "!") // alias.x=!cmd
		if strings.TrimSpace(value) != "" {
			a.nested(cmd, value, ctx, "git -c "+key)
		}
	}
}

// unwrapRun follows TOOL run [OPTIONS] COMMAND (runTools): the command is
// vetted as its own. Options before run, or an option of run's rein does
// not know, leave it unknown.
func (a *analyzer) unwrapRun(cmd *Command, ctx context) {
	words := cmd.Words
	if len(words) < 3 || words[1].Dynamic || words[1].Value != "run" {
		return
	}
	syn := runTools[cmd.Name]
	opts := skipOptions(words[1:], syn, false)
	if opts.unknown != "" {
		a.finding(FindingUnknownOption, unknownOption(cmd.Name+" run", opts.unknown, syn), cmd.Pos, cmd.Via)
		return
	}
	next := opts.next + 1
	if !opts.runs || next >= len(words) {
		return
	}
	a.inner(cmd, words[next:], nil, ctx, cmd.Name+" run")
}

func (a *analyzer) unwrapWatch(cmd *Command, ctx context) {
	words := cmd.Words
	execMode := false
	i := 1
	for ; i < len(words); i++ {
		v := words[i].Value
		if v == "--" {
			i++
			break
		}
		option, long, end, ok := a.wrapperOption(cmd, words[i], "watch", watchOptions)
		if !ok {
			return
		}
		if end {
			break
		}
		switch {
		case option == "--exec":
			execMode = true
		case (option == "--interval" || option == "--equexit") && !strings.Contains(v, "="):
			i++
		case !long:
			for j := 1; j < len(v); j++ {
				if v[j] == 'x' {
					execMode = true
				}
				if strings.IndexByte(watchOptions.shortValue, v[j]) >= 0 {
					if j == len(v)-1 {
						i++ // the value is the next word
					}
					break
				}
				if v[j] == 'd' {
					break // -d[permanent]
				}
			}
		}
	}
	if i >= len(words) {
		return
	}
	if execMode {
		a.inner(cmd, words[i:], nil, ctx, "watch -x")
		return
	}
	a.nestedWords(cmd, words[i:], ctx, "watch")
}

func (a *analyzer) unwrapFlock(cmd *Command, ctx context) {
	words := cmd.Words
	i := 1
	for ; i < len(words); i++ {
		v := words[i].Value
		if v == "--" {
			i++
			break
		}
		option, long, end, ok := a.wrapperOption(cmd, words[i], "flock", flockOptions)
		if !ok {
			return
		}
		if end {
			break
		}
		if long {
			if slices.Contains(flockOptions.longValue, option) && !strings.Contains(v, "=") {
				i++
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(flockOptions.shortValue, v[j]) < 0 {
				continue
			}
			value, next := v[j+1:], i
			if value == "" {
				next = i + 1
			}
			if v[j] == 'c' {
				if value != "" {
					a.nested(cmd, value, ctx, "flock -c")
				} else if next < len(words) {
					a.nestedWords(cmd, words[next:next+1], ctx, "flock -c")
				}
				return
			}
			i = next
			break
		}
	}
	i++ // the lock file or descriptor
	if i >= len(words) {
		return
	}
	if v := words[i].Value; v == "-c" || v == "--command" {
		if i+1 < len(words) {
			a.nestedWords(cmd, words[i+1:i+2], ctx, "flock -c")
		}
		return
	}
	a.inner(cmd, words[i:], nil, ctx, "flock")
}

func (a *analyzer) unwrapParallel(cmd *Command, ctx context) {
	words := cmd.Words
	i := 1
	for ; i < len(words); i++ {
		v := words[i].Value
		if v == "--" {
			i++
			break
		}
		if strings.HasPrefix(v, ":::") {
			break
		}
		option, long, end, ok := a.wrapperOption(cmd, words[i], "parallel", parallelOptions)
		if !ok {
			return
		}
		if end {
			break
		}
		switch {
		case long && slices.Contains(parallelOptions.longValue, option) && !strings.Contains(v, "="):
			i++
		case !long && len(v) == 2 && strings.IndexByte(parallelOptions.shortValue, v[1]) >= 0:
			i++
		}
	}
	end := i
	for end < len(words) && !strings.HasPrefix(words[end].Value, ":::") {
		end++
	}
	if end == i {
		a.finding(FindingDynamicScript, "parallel reads the commands it runs from its input; they cannot be checked", cmd.Pos, cmd.Via)
		return
	}
	a.nestedWords(cmd, words[i:end], ctx, "parallel")
}

var sshCommandOptions = []string{"proxycommand", "localcommand", "knownhostscommand", "remotecommand"}

func (a *analyzer) unwrapSSH(cmd *Command, ctx context) {
	sp, _ := wrapperSyntax("ssh")
	syn := *sp
	words := cmd.Words
	// Options that run local commands, wherever they stand.
	for i := 1; i < len(words); i++ {
		v := words[i].Value
		var opt string
		switch {
		case v == "-o" && i+1 < len(words):
			opt = words[i+1].Value
		case strings.HasPrefix(v, "-o") && len(v) > 2:
			opt = v[2:]
		default:
			continue
		}
		key, val, ok := strings.Cut(opt, "=")
		if !ok {
			key, val, _ = strings.Cut(opt, " ")
		}
		if slices.Contains(sshCommandOptions, strings.ToLower(strings.TrimSpace(key))) {
			a.nested(cmd, val, ctx, "ssh -o "+key)
		}
	}
	opts := skipOptions(words, syn, false)
	if opts.unknown != "" {
		a.finding(FindingUnknownOption, unknownOption("ssh", opts.unknown, syn), cmd.Pos, cmd.Via)
		return
	}
	next := opts.next
	if next+1 >= len(words) {
		return
	}
	host := words[next].Value
	a.nestedWords(cmd, words[next+1:], ctx, "ssh "+host)
}

// envShellCommands are environment variables whose value programs run as a
// shell command; envCodeLoaders make programs load code from a path.
var envShellCommands = []string{"GIT_PAGER", "PAGER", "MANPAGER", "GIT_EDITOR", "EDITOR", "VISUAL", "GIT_SEQUENCE_EDITOR", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "PROMPT_COMMAND", "SYSTEMD_PAGER", "LESSOPEN", "LESSCLOSE", "GIT_PROXY_COMMAND"}
var envCodeLoaders = []string{"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "GIT_EXEC_PATH", "GIT_SSH", "GIT_ASKPASS", "SSH_ASKPASS", "PYTHONSTARTUP", "PYTHONPATH", "PERL5OPT", "PERL5LIB", "NODE_OPTIONS", "RUBYOPT", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_DIR", "GIT_TEMPLATE_DIR",
	// git -c's own channel; glibc's charset modules; OpenSSL's engines;
	// Java agents; programs the Rust and Go toolchains run; extra makefiles.
	"GIT_CONFIG_PARAMETERS", "GCONV_PATH", "OPENSSL_CONF", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
	"RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "GOCACHEPROG", "MAKEFILES", "PERL5DB", "RUBYLIB"}

// moduleSearchPaths are the loaders that name folders to find modules in: set to
// folders below the command's own (PYTHONPATH=. or src), they load the
// project's code, as running its tests does.
var moduleSearchPaths = []string{"PYTHONPATH", "PERL5LIB", "RUBYLIB"}

// withinCwd reports whether a search path lists only folders below the
// working folder, written out: relative, no .., nothing expanded later.
func withinCwd(value string) bool {
	if value == "" || strings.ContainsAny(value, "$`~\\") {
		return false
	}
	for _, part := range strings.Split(value, ":") {
		if part == "" || strings.HasPrefix(part, "/") || slices.Contains(strings.Split(part, "/"), "..") {
			return false
		}
	}
	return true
}

// isCodeEnv reports whether a variable, set in a command's environment, makes
// the program run or load code: such a variable set by the script is given
// to every command after it, exported or not (assign).
func isCodeEnv(name string) bool {
	return slices.Contains(envShellCommands, name) || loadsCode(name)
}

func loadsCode(name string) bool {
	return slices.Contains(envCodeLoaders, name) || strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "GIT_CONFIG_KEY_")
}

// envCode reports environment assignments that make the command run code;
// own are the command's own (prefix) assignments, the others were set
// earlier in the script.
func (a *analyzer) envCode(cmd *Command, ctx context, own map[string]string) {
	if len(cmd.Env) == 0 {
		return
	}
	for _, name := range slices.Sorted(maps.Keys(cmd.Env)) {
		value := cmd.Env[name]
		switch {
		case slices.Contains(envShellCommands, name):
			if strings.ContainsAny(value, "$`") {
				a.finding(FindingDynamicScript, fmt.Sprintf("%s is set to a command built at run time", name), cmd.Pos, cmd.Via)
			} else if strings.TrimSpace(value) != "" {
				// The value's commands run with the same environment,
				// already checked here: passing it on again would recurse;
				// what they export stays in their own shell.
				passed, exported := a.passed, a.exported
				a.passed, a.exported = nil, nil
				a.nested(cmd, value, ctx, name+"=")
				a.passed, a.exported = passed, exported
			}
		case loadsCode(name) && !(slices.Contains(moduleSearchPaths, name) && withinCwd(value)):
			setting := name + "=" + Quote(value)
			if _, ok := own[name]; !ok {
				setting = name + ", set earlier in the script,"
			}
			a.finding(FindingCodeExec, fmt.Sprintf("%s makes %s load code from outside the command", setting, cmd.Name), cmd.Pos, cmd.Via)
		}
	}
}
