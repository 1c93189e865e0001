package programs

import "strings"

// GitConfig is what git does with a configuration entry's value.
type GitConfig uint8

const (
	// GitData: git runs nothing the value names.
	GitData GitConfig = iota
	// GitShell: the value is a shell command git runs (core.pager,
	// diff.external, alias.x=!cmd); rein can vet it as a command.
	GitShell
	// GitCode: the value names a program, a hook folder or more
	// configuration, or turns on a transport that runs commands: what runs
	// is not in the value, so rein cannot vet it.
	GitCode
)

// gitConfigKeys is the one table of git configuration keys that run
// programs: section, subsection ("*" any, "" none) and name, lower case.
// Sources: git-config(1) of git 2.39 and git-lfs's, git-send-email's.
var gitConfigKeys = []struct {
	section, sub, name string
	kind               GitConfig
}{
	{"core", "", "pager", GitShell},
	{"core", "", "editor", GitShell},
	{"core", "", "sshcommand", GitShell},
	{"core", "", "fsmonitor", GitShell},
	{"core", "", "askpass", GitShell},
	{"core", "", "gitproxy", GitShell},
	{"core", "", "alternaterefscommand", GitShell},
	{"core", "", "hookspath", GitCode},
	{"core", "", "worktree", GitCode},
	{"diff", "", "external", GitShell},
	{"diff", "*", "command", GitShell},
	{"diff", "*", "textconv", GitShell},
	{"diff", "", "tool", GitCode},
	{"merge", "*", "driver", GitShell},
	{"merge", "", "tool", GitCode},
	{"filter", "*", "*", GitShell},
	{"pager", "*", "*", GitShell},
	{"pager", "", "*", GitShell},
	{"difftool", "*", "*", GitShell},
	{"difftool", "", "*", GitShell},
	{"mergetool", "*", "*", GitShell},
	{"mergetool", "", "*", GitShell},
	{"sequence", "", "editor", GitShell},
	{"gpg", "", "program", GitShell},
	{"gpg", "*", "program", GitShell},
	{"credential", "", "helper", GitShell},
	{"credential", "*", "helper", GitShell},
	{"uploadpack", "", "packobjectshook", GitShell},
	{"sendemail", "", "tocmd", GitShell},
	{"sendemail", "", "cccmd", GitShell},
	{"sendemail", "", "sendmailcmd", GitShell},
	{"sendemail", "", "smtpserver", GitCode},
	{"sendemail", "*", "tocmd", GitShell},
	{"sendemail", "*", "cccmd", GitShell},
	{"sendemail", "*", "sendmailcmd", GitShell},
	{"sendemail", "*", "smtpserver", GitCode},
	{"remote", "*", "receivepack", GitShell},
	{"remote", "*", "uploadpack", GitShell},
	{"remote", "*", "vcs", GitCode},
	{"remote", "*", "proxy", GitCode},
	{"interactive", "", "difffilter", GitShell},
	{"web", "", "browser", GitCode},
	{"browser", "*", "*", GitShell},
	{"man", "*", "*", GitShell},
	{"man", "", "viewer", GitCode},
	{"submodule", "*", "update", GitCode},
	{"include", "", "path", GitCode},
	{"includeif", "*", "path", GitCode},
	{"extensions", "", "worktreeconfig", GitCode},
	{"lfs", "customtransfer", "path", GitCode},
	{"lfs", "*", "path", GitCode},
	{"lfs", "extension", "*", GitCode},
	{"lfs", "*", "clean", GitShell},
	{"lfs", "*", "smudge", GitShell},
	{"protocol", "*", "*", GitCode},
	{"protocol", "", "allow", GitCode},
	{"url", "*", "*", GitCode},
}

// GitConfigKey says what git does with the value of a configuration key
// (section.name or section.subsection.name, any case).
func GitConfigKey(key, value string) GitConfig {
	key = strings.ToLower(key)
	section, rest, ok := strings.Cut(key, ".")
	if !ok {
		return GitData
	}
	sub, name := "", rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	if section == "alias" {
		// Aliases to git's own commands run nothing else.
		if strings.HasPrefix(strings.TrimSpace(value), "!") {
			return GitShell
		}
		return GitData
	}
	for _, k := range gitConfigKeys {
		if k.section != section || k.name != "*" && k.name != name {
			continue
		}
		if k.sub == "" && sub == "" || k.sub == "*" && sub != "" || k.sub != "" && k.sub != "*" && strings.HasPrefix(sub, k.sub) {
			return k.kind
		}
	}
	return GitData
}
