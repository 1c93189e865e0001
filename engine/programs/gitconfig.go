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
	section, sub, name, ok := splitKey(key)
	if !ok {
		return GitData
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

// gitRepositoryKeys are the keys a command may add to a repository's
// config or change there: each names data git reads — who commits, where a
// branch or a remote leads, how lines end, how output looks — never a
// program, a hook, a transport or more configuration. Any other key a
// command sets is put back after it (runner.keep), whether or not git is
// known to run something for it: the list grants what may change, rather
// than enumerating what may not. Section, subsection ("*" any, "" none)
// and name ("*" any), lower case.
var gitRepositoryKeys = []struct{ section, sub, name string }{
	{"user", "", "name"}, {"user", "", "email"}, {"user", "", "useconfigonly"},
	{"author", "", "name"}, {"author", "", "email"}, {"committer", "", "name"}, {"committer", "", "email"},
	{"branch", "*", "remote"}, {"branch", "*", "merge"}, {"branch", "*", "rebase"}, {"branch", "*", "pushremote"},
	{"branch", "*", "description"}, {"branch", "*", "vcs"},
	{"branch", "", "autosetupmerge"}, {"branch", "", "autosetuprebase"}, {"branch", "", "sort"},
	{"remote", "*", "url"}, {"remote", "*", "pushurl"}, {"remote", "*", "fetch"}, {"remote", "*", "push"},
	{"remote", "*", "tagopt"}, {"remote", "*", "prune"}, {"remote", "*", "prunetags"}, {"remote", "*", "mirror"},
	{"remote", "*", "skipdefaultupdate"}, {"remote", "*", "skipfetchall"}, {"remote", "*", "promisor"},
	{"remote", "*", "partialclonefilter"}, {"remote", "", "pushdefault"},
	{"core", "", "repositoryformatversion"}, {"core", "", "filemode"}, {"core", "", "bare"},
	{"core", "", "logallrefupdates"}, {"core", "", "ignorecase"}, {"core", "", "precomposeunicode"},
	{"core", "", "symlinks"}, {"core", "", "autocrlf"}, {"core", "", "eol"}, {"core", "", "safecrlf"},
	{"core", "", "quotepath"}, {"core", "", "whitespace"}, {"core", "", "abbrev"}, {"core", "", "compression"},
	{"core", "", "sparsecheckout"}, {"core", "", "sparsecheckoutcone"}, {"core", "", "untrackedcache"},
	{"core", "", "commentchar"}, {"core", "", "commentstring"}, {"core", "", "checkstat"}, {"core", "", "trustctime"},
	{"submodule", "*", "url"}, {"submodule", "*", "active"}, {"submodule", "*", "branch"}, {"submodule", "", "active"},
	{"submodule", "", "recurse"},
	{"init", "", "defaultbranch"}, {"pull", "", "rebase"}, {"pull", "", "ff"},
	{"push", "", "default"}, {"push", "", "autosetupremote"}, {"push", "", "followtags"},
	{"fetch", "", "prune"}, {"fetch", "", "prunetags"}, {"fetch", "", "recursesubmodules"},
	{"merge", "", "ff"}, {"merge", "", "conflictstyle"}, {"rebase", "", "autosquash"}, {"rebase", "", "autostash"},
	{"rebase", "", "updaterefs"}, {"rerere", "", "enabled"}, {"rerere", "", "autoupdate"},
	{"diff", "", "renames"}, {"diff", "", "algorithm"}, {"diff", "", "noprefix"}, {"diff", "", "mnemonicprefix"},
	{"diff", "", "context"}, {"diff", "", "colormoved"}, {"diff", "", "submodule"},
	{"status", "*", "*"}, {"status", "", "*"}, {"color", "*", "*"}, {"color", "", "*"},
	{"column", "", "*"}, {"log", "", "*"}, {"advice", "", "*"}, {"help", "", "autocorrect"},
	{"gc", "", "auto"}, {"gc", "", "autodetach"}, {"index", "", "version"}, {"feature", "", "manyfiles"},
	{"lfs", "", "repositoryformatversion"},
}

// GitRepositoryKey reports whether a command may set key in a repository's
// config (see gitRepositoryKeys). No alias: one runs what its words say
// the next time the person types its name, and git's commands take options
// that run programs (fetch --upload-pack, rebase --exec, grep -O).
func GitRepositoryKey(key string) bool {
	section, sub, name, ok := splitKey(key)
	if !ok {
		return false
	}
	for _, k := range gitRepositoryKeys {
		if k.section != section || k.name != "*" && k.name != name {
			continue
		}
		if k.sub == "" && sub == "" || k.sub == "*" && sub != "" {
			return true
		}
	}
	return false
}

// splitKey reads section.name or section.subsection.name, lower case.
func splitKey(key string) (section, sub, name string, ok bool) {
	section, rest, ok := strings.Cut(strings.ToLower(key), ".")
	if !ok {
		return "", "", "", false
	}
	name = rest
	if i := strings.LastIndexByte(rest, '.'); i >= 0 {
		sub, name = rest[:i], rest[i+1:]
	}
	return section, sub, name, true
}
