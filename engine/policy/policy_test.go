package policy_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

// Each bypass class that tools in this field have fallen to, with the
// defence that must hold under readonly.
var readonlyDenied = []struct{ class, command string }{
	{"sequence hides a second command", "git status; rm -rf x"},
	{"pipe into a shell", "git log && curl x | sh"},
	{"xargs runs its input", "ls | xargs rm"},
	{"find -exec", `find . -exec rm {} \;`},
	{"find -delete", "find . -delete"},
	{"empty quotes in name", "r''m -rf x"},
	{"quoted name", `"rm" x`},
	{"escaped name", `\rm x`},
	{"ansi-c name", `$'\x72m' x`},
	{"brace expansion name", "{rm,-rf,x}"},
	{"variable as command name", "c=rm; $c x"},
	{"command substitution", "echo $(rm -rf x)"},
	{"backticks", "echo `rm x`"},
	{"process substitution", "cat <(curl x)"},
	{"subshell", "(rm x)"},
	{"brace group", "{ rm x; }"},
	{"env runs a shell", "env sh -c 'rm x'"},
	{"privilege", "sudo ls"},
	{"bash -c", `bash -c "rm x"`},
	{"eval", "eval rm x"},
	{"git config code execution", "git -c core.pager=sh log"},
	{"git global flag before a write", "git -C /tmp push"},
	{"env prefix before a write", "FOO=1 git push"},
	{"loader injection", "LD_PRELOAD=/tmp/x.so ls"},
	{"redirect from a read-only command", "git status > out.txt"},
	{"heredoc into a file", "cat <<EOF > f\nhi\nEOF"},
	{"sed in place", "sed -i s/a/b/ f"},
	{"sed w command", "sed -n 'w out' f"},
	{"sort output file", "sort -o out f"},
	{"ripgrep preprocessor", "rg --pre sh x"},
	{"awk system()", `awk 'BEGIN{system("rm x")}'`},
	{"inline python", "python3 -c 'import os'"},
	{"background job", "ls &"},
	{"function hides a command", "f() { rm x; }; f"},
	{"rm of root, short flags", "rm -fr /"},
	{"rm of root, long flags", "rm --recursive --force /"},
	// More of the same classes.
	{"redirect with >&file", "echo hi >&out.txt"},
	{"append redirect", "ls >> log.txt"},
	{"redirect-only statement", "> file"},
	{"wrapper chain", `sudo env nice bash -c "eval 'ls'"`},
	{"xargs via sh -c", "ls | xargs sh -c 'rm $0'"},
	{"find -exec through sh", `find . -exec sh -c 'rm {}' \;`},
	{"timeout wrapper", "timeout 5 rm x"},
	{"dynamic eval", `eval "$x"`},
	{"git alias", "git -c alias.l='!rm x' l"},
	{"pager variable", "GIT_PAGER='rm x' git log"},
	{"PATH hijack", "PATH=/tmp:$PATH; ls"},
	{"program by path", "/tmp/evil/ls"},
	{"secret file", "cat ~/.ssh/id_rsa"},
	{"secret dotenv", "cat .env"},
	{"secret read redirect", "grep x < ~/.aws/credentials"},
	{"git diff writes a file", "git diff --output=x"},
	{"git config write", "git config core.pager sh"},
	{"git push", "git push"},
	{"unparseable", "echo 'unterminated"},
	{"nested substitution", "echo $(echo $(rm x))"},
	{"substitution in parameter default", "echo ${x:-$(rm y)}"},
	{"trap runs code", "trap 'rm x' EXIT"},
	{"ssh remote command", "ssh host rm -rf x"},
	{"tree output file", "tree -o out.txt"},
	{"uniq output file", "uniq in.txt out.txt"},
	{"awk output redirection", `awk '{print > "out"}' f`},
	{"awk reads a file it was not given", `awk 'BEGIN{ARGV[1]=".env"} {print}' x`},
	{"awk includes a file", `awk '@include ".env"'`},
	{"sed e flag", "sed 's/x/id/e' f"},
	{"sed long expression option", "sed --expression='w out' f"},
	{"secret folder itself", "grep -r key ~/.ssh"},
	{"date set", "date -s 2020-01-01"},
}

var readonlyAllowed = []string{
	"git status",
	"git log --oneline -5",
	"git diff HEAD~1 -- src",
	"ls -la",
	"cat README.md | head -20",
	"grep -rn TODO . | wc -l",
	"find . -name '*.go' -type f",
	"git log --oneline | head",
	"echo hi > /dev/null",
	"wc -l $(git ls-files '*.go')",
	"ls 2>&1 | head",
	"git show HEAD:README.md",
	"find . -type f -exec grep -l TODO {} +",
	"ls | xargs cat",
	"/usr/bin/git status",
	"cd src && ls",
	"GIT_PAGER=cat git log -1",
	"sed -n '1,20p' README.md",
	"awk -F: '{print $1}' /etc/passwd",
	"jq '.dependencies' package.json",
	"if [ -f go.mod ]; then cat go.mod; fi",
	"for f in a b; do wc -l $f; done",
}

func TestReadonlyDenies(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, tt := range readonlyDenied {
		t.Run(tt.class, func(t *testing.T) {
			d := p.Check(tt.command)
			if d.Verdict != policy.Deny {
				t.Errorf("%q: got %s by %s (%s), want deny", tt.command, d.Verdict, d.Rule, d.Reason)
			}
			if d.Rule == "" || d.Reason == "" {
				t.Errorf("%q: denial without rule or reason: %+v", tt.command, d)
			}
		})
	}
}

func TestReadonlyAllows(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, cmd := range readonlyAllowed {
		t.Run(cmd, func(t *testing.T) {
			d := p.Check(cmd)
			if d.Verdict != policy.Allow {
				t.Errorf("%q: got %s by %s (%s), want allow", cmd, d.Verdict, d.Rule, d.Reason)
				for _, c := range d.Commands {
					t.Logf("  %s %q %s: %s", c.Verdict, c.Text, c.Rule, c.Reason)
				}
			}
		})
	}
}

func TestStrictDeniesSubstitutions(t *testing.T) {
	p := presetPolicy(t, "strict")
	for _, cmd := range []string{"wc -l $(git ls-files '*.go')", "cat <(ls)", "(ls)", "ls | xargs cat", "c=ls; $c"} {
		if d := p.Check(cmd); d.Verdict != policy.Deny {
			t.Errorf("strict: %q got %s by %s, want deny", cmd, d.Verdict, d.Rule)
		}
	}
	if d := p.Check("git status"); d.Verdict != policy.Allow {
		t.Errorf("strict: git status got %s by %s", d.Verdict, d.Rule)
	}
}

func TestEveryPresetPassesItsTests(t *testing.T) {
	for _, name := range []string{"readonly", "strict", "git", "go", "node", "python", "rust", "make"} {
		t.Run(name, func(t *testing.T) {
			p := presetPolicy(t, name)
			results := p.RunTests()
			if len(results) < 10 {
				t.Errorf("preset %s has only %d tests", name, len(results))
			}
			for _, r := range results {
				if !r.Pass {
					t.Errorf("%q: want %s, got %s by %s: %s", r.Command, r.Want, r.Got, r.Decision.Rule, r.Decision.Reason)
				}
			}
		})
	}
}

func TestDecisionExplains(t *testing.T) {
	p := presetPolicy(t, "readonly")
	tests := []struct {
		command, rule, reason string
		alternative           string
	}{
		{"git push", "programs.git.deny_subcommands", "git push is denied", "git log"},
		{"rm -rf x", "shell.unknown_program", "rm is not in this recipe's catalog", "git status"},
		{"git status > out.txt", "shell.redirect_write", "only /dev/null may be written", ""},
		{"find . -delete", "programs.find.deny_flags", "find -delete is denied", ""},
		{"rm -fr /", "no-recursive-rm-of-root", "rm -r on /", ""},
		{"c=rm; $c x", "shell.dynamic_command_name", "computed at run time", ""},
		{"git frobnicate", "default", "git frobnicate is not an allowed subcommand; allowed: ", "git status"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			d := p.Check(tt.command)
			if d.Rule != tt.rule || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("got rule %q reason %q, want rule %q reason containing %q", d.Rule, d.Reason, tt.rule, tt.reason)
			}
			if tt.alternative != "" && !containsString(d.Alternatives, tt.alternative) {
				t.Errorf("alternatives %v lack %q", d.Alternatives, tt.alternative)
			}
		})
	}
}

func TestViaIsReported(t *testing.T) {
	d := presetPolicy(t, "readonly").Check("ls | xargs rm")
	last := d.Commands[len(d.Commands)-1]
	if last.Name != "rm" || strings.Join(last.Via, ",") != "xargs" || last.Verdict != policy.Deny {
		t.Errorf("got %+v", last)
	}
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

func TestCheckArgvAtRunTime(t *testing.T) {
	p := presetPolicy(t, "readonly")
	tests := []struct {
		argv []string
		env  map[string]string
		want policy.Verdict
	}{
		{[]string{"git", "status"}, nil, policy.Allow},
		{[]string{"rm", "x"}, nil, policy.Deny},        // what c=rm; $c x expands to
		{[]string{"xargs", "rm"}, nil, policy.Deny},    // wrappers are unwrapped at run time too
		{[]string{"sh", "-c", "ls"}, nil, policy.Deny}, // a shell is not in the catalog
		{[]string{"find", ".", "-exec", "cat", "{}", ";"}, nil, policy.Allow},
		{[]string{"ls"}, map[string]string{"LD_PRELOAD": "/x.so"}, policy.Deny},
		{[]string{"rm -rf x"}, nil, policy.Deny}, // one word with spaces is a program name, not a script
	}
	for _, tt := range tests {
		if d := p.CheckArgv(tt.argv, tt.env); d.Verdict != tt.want {
			t.Errorf("%q: got %s by %s, want %s", tt.argv, d.Verdict, d.Rule, tt.want)
		}
	}
}

// Secret paths are found whatever the working folder: relative names below a
// secret folder, .. out of the workspace, base names anywhere.
func TestSecretArgsFromAnyFolder(t *testing.T) {
	r, err := recipe.Load(recipe.Options{Preset: "readonly", CacheDir: "-", UserFile: "-", Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	home := r.Workspace // the workspace is the home folder here
	p, err := policy.New(r, policy.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat .ssh/id_rsa", "cat ./.aws/credentials", "cat sub/.env", "cat .ssh", "head -1 .ssh/config"} {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%q from the home folder: %s by %s", cmd, d.Verdict, d.Rule)
		}
	}
	q := presetPolicy(t, "readonly").In("/home/dev/proj")
	for _, cmd := range []string{"cat ../.ssh/id_rsa", "cat a/../../.ssh/x", "cat deep/dir/.env", "cat certs/key.pem"} {
		if d := q.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%q from a project: %s by %s", cmd, d.Verdict, d.Rule)
		}
	}
	if d := q.Check("cat src/main.go docs/env.md"); d.Verdict != policy.Allow {
		t.Errorf("ordinary files: %s by %s (%s)", d.Verdict, d.Rule, d.Reason)
	}
}

// Reading a folder that holds secrets, without naming them: the program
// walks the folder itself, so no run-time check of its argv sees the files.
func TestSecretFoldersReadRecursively(t *testing.T) {
	p := presetPolicy(t, "readonly") // home is /home/dev
	denied := []string{
		"grep -r password ~",
		"grep -R TOKEN /home/dev",
		"grep -rn key /",
		"grep -r -E 'a|b' ~",
		"grep -rl x ~/.config",
		"grep -d recurse x ~",
		"grep --directories=recurse x ~",
		"grep -drecurse x ~",
		"grep -d skip -r x ~",
		"grep -A 3 -r x ~",
		"grep -r x /etc",
		"rg token ~/.config",
		"rg -g '*.json' token ~",
		"ack -r TOKEN ~",
		"ag -A 2 TOKEN ~",
		"grep --directories skip -r x ~",
		"find ~ -type f -exec cat {} +",
		"find -L ~ -execdir cat {} \\;",
		"find ~ -type f | xargs cat",
		"find ~ -print0 | xargs -0 grep key",
		"tar czf - ~",
		"diff -r ~ /tmp/empty",
		"grep x ~/.ssh/*",
		"cat ~/.aws/*",
		"ls /etc/sudoers.d/*",
	}
	for _, cmd := range denied {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%q: %s by %s (%s), want a denial by paths.deny", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
	allowed := []string{
		"grep -rn TODO .",
		"grep -r / .",
		"grep -r -e / src",
		"grep -r -A 3 / src",
		"grep -e -r x .",
		"grep -erx .",
		"grep x ~/notes.txt",
		"grep -r x ~/projects",
		"find ~/projects -name x",
		"find ~ -name '*.go'",
		"find . -type f -exec grep -l TODO {} +",
		"cat src/*.go",
		"diff -r src other",
	}
	for _, cmd := range allowed {
		if d := p.Check(cmd); d.Verdict != policy.Allow {
			t.Errorf("%q: %s by %s (%s), want allow", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
	// After cd, the run-time check sees where the command really runs.
	if d := p.In("/home/dev").CheckArgv([]string{"grep", "-r", "x", "."}, nil); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
		t.Errorf("grep -r x . run in the home folder: %s by %s", d.Verdict, d.Rule)
	}
	// The interpreter expands globs before the run-time check: ~/.* names ~/.ssh.
	if d := p.CheckArgv([]string{"grep", "-r", "x", "/home/dev/.cache", "/home/dev/.ssh"}, nil); d.Verdict != policy.Deny {
		t.Errorf("an expanded ~/.*: %s by %s", d.Verdict, d.Rule)
	}
	d := p.Check("grep -r password ~")
	if !strings.Contains(d.Reason, "grep reads every file below ~, which holds the secret path ~/.ssh/**") {
		t.Errorf("the reason should say what is read and which secret it holds: %s", d.Reason)
	}
}

// A process's environment (rein's holds the model's API key) and memory,
// /proc's links to any file a process can reach, and rein's own record of
// every session.
func TestProcSecrets(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, cmd := range []string{
		"cat /proc/1234/environ",
		"cat /proc/self/environ",
		"cat /proc/self/task/1/environ",
		"cat /proc/1/mem",
		"cat /proc/self/cwd/../.aws/credentials",
		"cat /proc/self/root/etc/hostname",
		"cat //proc//self/root/etc/hostname", // doubled slashes reach the same link
		"cat /proc/self/root//etc/hostname",
		"cat /proc/self/fd/3",
		"grep -r TOKEN /proc",
		"head -c 100 < /proc/self/environ",
		"strings ~/.local/state/rein/rein.db",
		"cat /etc/ssh/ssh_host_ed25519_key",
		"cat /home/alice/.aws/credentials",
		"cat /root/.ssh/authorized_keys",
		"od -c /dev/mem",
	} {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%q: %s by %s (%s)", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
	// What $$ expands to is checked when the command runs.
	if d := p.CheckArgv([]string{"cat", "/proc/4242/environ"}, nil); d.Verdict != policy.Deny {
		t.Errorf("cat /proc/$$/environ at run time: %s by %s", d.Verdict, d.Rule)
	}
	if r := p.CheckOpen("/proc/4242/environ", false, "/home/dev"); r.Verdict != policy.Deny {
		t.Errorf("< /proc/$$/environ at run time: %s by %s", r.Verdict, r.Rule)
	}
	for _, cmd := range []string{"cat /proc/cpuinfo", "cat /proc/self/status", "cat /proc/loadavg", "head /proc/meminfo"} {
		if d := p.Check(cmd); d.Verdict != policy.Allow {
			t.Errorf("%q: %s by %s (%s)", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
}

// REV:PATH and HOST:PATH arguments name a file too.
func TestSecretAfterColon(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, cmd := range []string{"git show HEAD:.env", "git cat-file -p HEAD~3:deploy/.env.production", "git show main:certs/server.key"} {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%q: %s by %s (%s)", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
	if d := p.Check("git show HEAD:README.md"); d.Verdict != policy.Allow {
		t.Errorf("git show HEAD:README.md: %s by %s (%s)", d.Verdict, d.Rule, d.Reason)
	}
}

// guardedText is GuardSearch's argv, joined with spaces; an error fails
// the test.
func guardedText(t *testing.T, p *policy.Policy, argv []string, stat func(string) (fs.FileInfo, error)) string {
	t.Helper()
	out, err := p.GuardSearch(argv, stat)
	if err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	return strings.Join(out, " ")
}

func TestGuardSearch(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, argv := range [][]string{{"grep", "-n", "x", "a.go"}, {"cat", "a"}, {"grep"}, {"grep", "-e", "-r", "a.go"}} {
		if got := guardedText(t, p, argv, nil); got != strings.Join(argv, " ") {
			t.Errorf("%q changed to %q", argv, got)
		}
	}
	got := guardedText(t, p, []string{"/usr/bin/grep", "-rn", "KEY", "."}, nil)
	if !strings.HasPrefix(got, "/usr/bin/grep --exclude=.env --exclude=.env.* --exclude=*.pem") || !strings.HasSuffix(got, " -rn KEY .") {
		t.Errorf("grep -rn: %s", got)
	}
	if got := guardedText(t, p, []string{"rg", "KEY"}, nil); !strings.Contains(got, "--glob=!.env ") || !strings.HasSuffix(got, " KEY") {
		t.Errorf("rg: %s", got)
	}
	// The last matching --include or --glob wins in grep and rg: the
	// exclusions follow every inclusion too.
	for argv, want := range map[string]string{
		"grep -r --include=*env KEY .":       "grep -r --include=*env EX KEY .",
		"grep -r KEY . --include *env":       "grep -r KEY . --include *env EX",
		"grep -r --include=a -- --include=b": "grep -r --include=a EX -- --include=b",
		"rg -g *env KEY":                     "rg -g *env EX KEY",
		"rg --glob=*env -ig *.key KEY":       "rg --glob=*env EX -ig *.key EX KEY",
		"rg -g*env --iglob *ENV KEY":         "rg -g*env EX --iglob *ENV EX KEY",
		"rg -e -g KEY":                       "rg -e -g KEY",
	} {
		argv := strings.Fields(argv)
		got := guardedText(t, p, argv, nil)
		ex := "--exclude=.env --exclude=.env.* --exclude=*.pem"
		if argv[0] == "rg" {
			ex = "--glob=!.env --glob=!.env.* --glob=!*.pem"
		}
		guarded := strings.Fields(guardedText(t, p, []string{argv[0], "-r", "x"}, nil))
		all := strings.Join(guarded[1:len(guarded)-2], " ")
		if !strings.HasPrefix(all, ex) {
			t.Fatalf("%s: exclusions %s", argv[0], all)
		}
		if w := argv[0] + " " + all + strings.ReplaceAll(strings.TrimPrefix(want, argv[0]), "EX", all); got != w {
			t.Errorf("%s:\n got %s\nwant %s", strings.Join(argv, " "), got, w)
		}
	}
	// Walks do not follow symbolic links out of the folders named.
	for argv, want := range map[string]string{
		"grep -Rn KEY .":                     " -rn KEY .",
		"grep --dereference-recursive KEY .": " --recursive KEY .",
		"grep -r -e -R .":                    " -r -e -R .",
		"grep -reR .":                        " -reR .",
		"grep -R -- -R .":                    " -r -- -R .",
		"rg -L KEY":                          "* KEY",
		"rg -iL --follow KEY":                "* -i KEY",
		"rg -e -L KEY":                       "* -e -L KEY",
	} {
		got := guardedText(t, p, strings.Fields(argv), nil)
		suffix := strings.TrimPrefix(want, "*")
		if !strings.HasSuffix(got, suffix) || strings.Count(got, "-L") != strings.Count(suffix, "-L") {
			t.Errorf("%s: got %s, want it to end in %q", argv, got, suffix)
		}
	}
	secrets := strings.TrimSuffix(strings.TrimPrefix(guardedText(t, p, []string{"find"}, nil), "find "), " -print")
	if !strings.HasPrefix(secrets, "( -name .env -o -name .env.* -o -name *.pem ") || !strings.HasSuffix(secrets, " -o -path *.git/config ) -prune -o") {
		t.Fatalf("find's prune group: %s", secrets)
	}
	for argv, want := range map[string]string{
		"find":                              "find " + secrets + " -print",
		"find .":                            "find . " + secrets + " -print",
		"find -H . src -maxdepth 1 -name x": "find -H . src -maxdepth 1 " + secrets + " ( -name x ) -print",
		"find . -name x -print0":            "find . " + secrets + " ( -name x -print0 )",
		"find . -type f -exec cat {} +":     "find . " + secrets + " ( -type f -exec cat {} + )",
		"find . -maxdepth":                  "find . -maxdepth " + secrets + " -print",
		"find . -name a -o -name b":         "find . " + secrets + " ( -name a -o -name b ) -print",
		"find . -depth -xdev ! -name a":     "find . -depth -xdev " + secrets + " ( ! -name a ) -print",
		"find -L . -follow -name -follow":   "find -P . " + secrets + " ( -true -name -follow ) -print",
	} {
		if got := guardedText(t, p, strings.Fields(argv), nil); got != want {
			t.Errorf("%s:\n got %s\nwant %s", argv, got, want)
		}
	}
}

// git's exclusions work only as pathspecs after --; what comes before is
// told apart as git does it: an operand that exists as a file (or is a
// wildcard) starts the paths, the others are revisions.
func TestGuardGit(t *testing.T) {
	p := presetPolicy(t, "readonly")
	dir := t.TempDir()
	for _, name := range []string{"src/a.go", "README.md", "sub/lib/b.go"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	stat := func(name string) (fs.FileInfo, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.Stat(name)
	}
	ex := guardedText(t, p, []string{"git", "diff"}, stat)
	ex = strings.TrimPrefix(ex, "git diff -- .")
	if !strings.HasPrefix(ex, " :(exclude,glob)**/.env :(exclude,glob)**/.env.* ") {
		t.Fatalf("exclusions: %q", ex)
	}
	for argv, want := range map[string]string{
		"git grep -n KEY":                   "git grep -n KEY -- .",
		"git grep -e KEY":                   "git grep -e KEY -- .",
		"git grep --regexp=KEY":             "git grep --regexp=KEY -- .",
		"git -C sub grep -A 2 KEY":          "git -C sub grep -A 2 KEY -- .",
		"git grep KEY -- src":               "git grep KEY -- src",
		"git grep KEY src":                  "git grep KEY -- src",
		"git grep KEY HEAD":                 "git grep KEY HEAD -- .",
		"git grep KEY HEAD~1 src":           "git grep KEY HEAD~1 -- src",
		"git grep -ie KEY src":              "git grep -ie KEY -- src",
		"git grep KEY *.go":                 "git grep KEY -- *.go",
		"git -C sub grep KEY lib":           "git -C sub grep KEY -- lib",
		"git -C sub grep KEY src":           "git -C sub grep KEY src -- .",
		"git grep -e KEY -e src HEAD":       "git grep -e KEY -e src HEAD -- .",
		"git grep -A 2 -e KEY src":          "git grep -A 2 -e KEY -- src",
		"git grep -C 1 KEY src":             "git grep -C 1 KEY -- src",
		"git grep -nf README.md src":        "git grep -nf README.md -- src",
		"git grep - src":                    "git grep - -- src",
		"git log -p":                        "git log -p -- .",
		"git log -U5 HEAD~3..":              "git log -U5 HEAD~3.. -- .",
		"git log -p --author alice src":     "git log -p --author alice -- src",
		"git log -n 3 -p README.md":         "git log -n 3 -p -- README.md",
		"git whatchanged -p":                "git whatchanged -p -- .",
		"git diff-tree -p HEAD":             "git diff-tree -p HEAD -- .",
		"git diff":                          "git diff -- .",
		"git diff --cached":                 "git diff --cached -- .",
		"git diff HEAD~1":                   "git diff HEAD~1 -- .",
		"git diff HEAD~1 HEAD":              "git diff HEAD~1 HEAD -- .",
		"git diff HEAD~1 src --stat":        "git diff HEAD~1 -- src --stat",
		"git diff --stat HEAD -- src":       "git diff --stat HEAD -- src",
		"git diff HEAD --":                  "git diff HEAD -- .",
		"git diff src --":                   "git diff src -- .",
		"git diff :(glob)**/*.go":           "git diff -- :(glob)**/*.go",
		"git diff --no-index README.md src": "git diff --no-index -- README.md src",
		"git diff --no-index src/a.go sub":  "git diff --no-index -- src/a.go sub",
		"git show":                          "git show -- .",
		"git show HEAD":                     "git show HEAD -- .",
		"git show HEAD:README.md":           "git show HEAD:README.md -- .",
		"git --no-pager show v1":            "git --no-pager show v1 -- .",
	} {
		if got := guardedText(t, p, strings.Fields(argv), stat); got != want+ex {
			t.Errorf("%s:\n got %s\nwant %s%s", argv, got, want, ex)
		}
	}
	for _, argv := range []string{"git status", "git log --oneline", "git log --stat HEAD~3..", "git diff-tree HEAD", "git -C sub", "git", "git diff --no-index README.md src/a.go", "git -C src diff --no-index a.go ../README.md"} {
		if got := guardedText(t, p, strings.Fields(argv), stat); got != argv {
			t.Errorf("%s changed to %s", argv, got)
		}
	}
	if got := guardedText(t, p, strings.Fields("git stash show stash@{1}"), stat); got != "git -c stash.showPatch=false stash show stash@{1}" {
		t.Errorf("git stash show: %s", got)
	}
	if got := guardedText(t, p, strings.Fields("git stash list"), stat); got != "git stash list" {
		t.Errorf("git stash list: %s", got)
	}
	if _, err := p.GuardSearch(strings.Fields("git stash show -p"), stat); err == nil {
		t.Error("git stash show -p is not refused")
	}
	// Without a stat no file is known: operands are revisions.
	if got := guardedText(t, p, strings.Fields("git diff HEAD~1 src"), nil); got != "git diff HEAD~1 src -- ."+ex {
		t.Errorf("no stat: %s", got)
	}
}

// diff of two folders compares the files in them; of two files, nothing
// else is read and its argv is left alone.
func TestGuardDiff(t *testing.T) {
	p := presetPolicy(t, "readonly")
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.WriteFile(filepath.Join(dir, "f"), nil, 0o644)
	stat := func(name string) (fs.FileInfo, error) { return os.Stat(filepath.Join(dir, name)) }
	for argv, guarded := range map[string]bool{
		"diff f f":             false,
		"diff -u f missing":    false,
		"diff -r a f":          true,
		"diff a f":             true,
		"diff --from-file=a f": true,
		"colordiff -rN f a":    true,
		"diff --label=a f f":   false,
	} {
		got := guardedText(t, p, strings.Fields(argv), stat)
		if changed := got != argv; changed != guarded || guarded && !strings.Contains(got, " --exclude=.env ") {
			t.Errorf("%s: %s", argv, got)
		}
	}
}

// macOS and Windows open .env as .ENV and ~/.ssh as ~/.SSH: there secret
// paths match whatever the case. (On Linux those are other files.)
func TestSecretsIgnoreCaseWhereFilesDo(t *testing.T) {
	p := presetPolicy(t, "readonly")
	folding := p.FoldingCase()
	for _, text := range []string{
		"cat .ENV", "cat .Env.Local", "cat config/SERVER.PEM", "cat ~/.SSH/id_rsa", "cat ~/.ssh/ID_RSA",
		"grep -r KEY ~/.AWS", "cat /ETC/SHADOW", "git show HEAD:.ENV", "head ID_ED25519", "cd ~/.SSH && ls",
	} {
		if d := folding.Check(text); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
	if d := p.Check("cat .ENV"); d.Verdict != policy.Allow {
		t.Errorf("cat .ENV where case matters: %s by %s (%s)", d.Verdict, d.Rule, d.Reason)
	}
	for _, text := range []string{"cat README.md", "grep -rn TODO Src", "ls ~/Documents"} {
		if d := folding.Check(text); d.Verdict != policy.Allow {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
	if r := folding.CheckPath("/ETC/Shadow", false); r.Verdict != policy.Deny {
		t.Errorf("file tool: %+v", r)
	}
}

// Windows opens .env::$DATA (a stream), ".env. " (trailing dots and
// spaces) and .ENV as .env.
func TestSecretsAsWindowsOpensThem(t *testing.T) {
	win := presetPolicy(t, "readonly").WindowsNames()
	for _, text := range []string{
		"cat '.env::$DATA'", "cat .env:x", "cat '.env. '", "cat '.ENV...'", "cat 'config/server.pem  '",
		"cat '~/.ssh./id_rsa'", "cat '~/.ssh::$INDEX_ALLOCATION/config'",
	} {
		if d := win.Check(text); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
	for _, text := range []string{"cat README.md", "cat ./src/../main.go", "cat '..'", "ls C:/Users"} {
		if d := win.Check(text); d.Verdict == policy.Deny && d.Rule == "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
}

// A walking program run through a wrapper is guarded in its own words;
// git, whose exclusions end its command, cannot be under xargs or find
// -exec, which add theirs after them.
func TestGuardWrapped(t *testing.T) {
	p := presetPolicy(t, "readonly")
	grepEx := strings.Join(strings.Fields(guardedText(t, p, []string{"grep", "-r", "x"}, nil))[1:], " ")
	grepEx = strings.TrimSuffix(grepEx, " -r x")
	gitEx := strings.TrimPrefix(guardedText(t, p, []string{"git", "show"}, nil), "git show -- .")
	for argv, want := range map[string]string{
		"timeout 5 grep -r KEY .":                          "timeout 5 grep " + grepEx + " -r KEY .",
		"nice -n 5 env LANG=C grep -r KEY .":               "nice -n 5 env LANG=C grep " + grepEx + " -r KEY .",
		"xargs grep -r KEY":                                "xargs grep " + grepEx + " -r KEY",
		"xargs -0 -n1 grep -rl KEY":                        "xargs -0 -n1 grep " + grepEx + " -rl KEY",
		"command git show HEAD":                            "command git show HEAD -- ." + gitEx,
		"timeout -s KILL 5 git diff HEAD~1":                "timeout -s KILL 5 git diff HEAD~1 -- ." + gitEx,
		"find . -exec grep -r KEY {} +":                    "find . * ( -exec grep " + grepEx + " -r KEY {} + )",
		"find . -type d -exec timeout 9 grep -rl KEY {} ;": "find . * ( -type d -exec timeout 9 grep " + grepEx + " -rl KEY {} ; )",
		"xargs cat":               "xargs cat",
		"timeout 5 ls -R":         "timeout 5 ls -R",
		"xargs git log --oneline": "xargs git log --oneline",
	} {
		got := guardedText(t, p, strings.Fields(argv), nil)
		if before, after, star := strings.Cut(want, " * "); star {
			if !strings.HasPrefix(got, before+" ") || !strings.HasSuffix(got, after) {
				t.Errorf("%s:\n got %s\nwant %s", argv, got, want)
			}
			continue
		}
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", argv, got, want)
		}
	}
	tarEx := strings.Replace(grepEx, "--exclude-dir=.git", "--exclude=.git", 1)
	for argv, want := range map[string]string{
		"tar -cf - .":   "tar " + tarEx + " -cf - .",
		"tar cf - src":  "tar " + tarEx + " -cf - src",
		"tar xOf a.tar": "tar " + tarEx + " -xOf a.tar",
		"tar czvf":      "tar " + tarEx + " -czvf",
	} {
		if got := guardedText(t, p, strings.Fields(argv), nil); got != want {
			t.Errorf("%s:\n got %s\nwant %s", argv, got, want)
		}
	}
	for _, argv := range [][]string{
		strings.Fields("tar cbf 20 - ."),
		strings.Fields("xargs git show"), strings.Fields("xargs -n1 git diff HEAD~1"), strings.Fields("find . -exec git grep KEY {} +"),
		strings.Fields("xargs timeout 5 git grep KEY"), strings.Fields("xargs find"), {"env", "-S", "grep -r KEY", "."},
	} {
		if out, err := p.GuardSearch(argv, nil); err == nil {
			t.Errorf("%s: runs as %q", argv, out)
		} else if !strings.Contains(err.Error(), ".env") {
			t.Errorf("%s: %v", argv, err)
		}
	}
}

// A repository's config holds credentials (a CI checkout's token as an
// http extraheader, passwords in remote URLs): it is a secret, also to
// walks of the .git folder; the rest of .git is not.
func TestGitConfigIsSecret(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, text := range []string{"cat .git/config", "cat sub/.git/config", "head ./.git//config", "cat x/../.git/config",
		"grep -r token .git", "diff -rN .git /tmp/empty", "rg token sub/.git", "git config --file .git/config --list"} {
		if d := p.Check(text); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
	for _, text := range []string{"cat .git/HEAD", "ls .git", "grep -r x .git/hooks", "cat config", "cat .github/config.yml", "git status", "cat x.git/config.txt"} {
		if d := p.Check(text); d.Verdict != policy.Allow {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
	if got := guardedText(t, p, []string{"grep", "-r", "x", "."}, nil); !strings.Contains(got, " --exclude-dir=.git ") {
		t.Errorf("grep -r: %s", got)
	}
}

// Where tools keep passwords and tokens besides the well-known folders, and
// shell start-up files and histories, which often export or show one.
func TestMoreCredentialFilesAreSecret(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for _, f := range []string{"~/.gitconfig", "~/.config/git/credentials", "~/.pgpass", "~/.my.cnf", "~/.vault-token",
		"~/.cargo/credentials.toml", "~/.gem/credentials", "~/.terraform.d/credentials.tfrc.json", "~/.m2/settings.xml",
		"~/.gradle/gradle.properties", "~/.config/hub", "~/.password-store/x.gpg", "~/.local/share/keyrings/login.keyring",
		"~/.bash_history", "~/.zsh_history", "~/.python_history", "~/.bashrc", "~/.profile", "~/.zshrc", "~/.config/fish/fish_variables",
		"/home/dev/.bash_history", ".envrc", "sub/.npmrc", ".netrc", ".pypirc", ".git-credentials", "certs/client.p12", "a.pfx",
		"release.jks", "app.keystore", "terraform.tfstate", "infra/terraform.tfstate.backup", "CERT.P12x/../x.pem"} {
		if d := p.Check("cat " + f); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("cat %s: %s by %s (%s)", f, d.Verdict, d.Rule, d.Reason)
		}
	}
	for _, f := range []string{"~/.vimrc", "~/.config/nvim/init.lua", "~/notes.txt", "README.md", "history.txt", ".bashrc",
		"npmrc.md", "main.tf", "jks.go", "keystore.go", "state.tfstate.json"} {
		if d := p.Check("cat " + f); d.Verdict != policy.Allow {
			t.Errorf("cat %s: %s by %s (%s)", f, d.Verdict, d.Rule, d.Reason)
		}
	}
}
