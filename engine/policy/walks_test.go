package policy_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// The run-time exclusions that keep programs walking folders off files
// named like secrets (Policy.GuardSearch).

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

// statIn stats names as found from dir, as the runner's stat does.
func statIn(dir string) func(string) (fs.FileInfo, error) {
	return func(name string) (fs.FileInfo, error) {
		if !filepath.IsAbs(name) {
			name = filepath.Join(dir, name)
		}
		return os.Stat(name)
	}
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
	stat := statIn(dir)
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
		// git add stages no file named like a secret.
		"git add .":             "git add -- .",
		"git add -A":            "git add -A --",
		"git add --all":         "git add --all --",
		"git add --al":          "git add --all --",
		"git add -vu":           "git add -vu --",
		"git add src README.md": "git add -- src README.md",
		"git add -f -- src":     "git add -f -- src",
		"git add --chmod +x a":  "git add --chmod +x -- a",
	} {
		if got := guardedText(t, p, strings.Fields(argv), stat); got != want+ex {
			t.Errorf("%s:\n got %s\nwant %s%s", argv, got, want, ex)
		}
	}
	for _, argv := range []string{"git status", "git log --oneline", "git log --stat HEAD~3..", "git diff-tree HEAD", "git -C sub", "git", "git diff --no-index README.md src/a.go", "git -C src diff --no-index a.go ../README.md",
		"git add", "git add -n", "git add --no-all"} { // git add that stages nothing
		if got := guardedText(t, p, strings.Fields(argv), stat); got != argv {
			t.Errorf("%s changed to %s", argv, got)
		}
	}
	if got := guardedText(t, p, strings.Fields("git stash show stash@{1}"), stat); got != "git -c stash.showPatch=false stash show stash@{1}" {
		t.Errorf("git stash show: %s", got)
	}
	if _, err := p.GuardSearch(strings.Fields("git add --pathspec-from-file=list"), stat); err == nil {
		t.Error("git add --pathspec-from-file is not refused")
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
	stat := statIn(dir)
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
		"xargs cat":                       "xargs cat",
		"timeout 5 ls -R":                 "timeout 5 ls -R",
		"xargs git log --oneline":         "xargs git log --oneline",
		"xargs git diff HEAD --":          "xargs git diff HEAD --" + gitEx,
		"xargs -0 git grep -n KEY -- src": "xargs -0 git grep -n KEY -- src" + gitEx,
		"xargs -I{} git show {}":          "xargs -I{} git show {} -- ." + gitEx,
		"find . -exec git diff -- {} +":   "find . * ( -exec git diff --" + gitEx + " {} + )",
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

// What running would refuse for want of a way to guard the walk, vetting
// says already, with the same reason; the walks it can guard stay allowed.
func TestVettingSaysWhatRunningRefuses(t *testing.T) {
	p := presetPolicy(t, "git")
	for _, text := range []string{"git stash show -p", "git log --format=%H | xargs git show", "find . -exec git grep x {} +",
		"git rev-list --all | xargs -n1 git diff", "find . -type d -exec timeout 5 git log -p {} \\;"} {
		d := p.Check(text)
		if d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
			continue
		}
		var argv []string
		for _, c := range d.Commands {
			if c.Rule == "paths.deny" {
				argv = c.Argv
				break
			}
		}
		if _, err := p.GuardSearch(argv, nil); err == nil || err.Error() != d.Reason {
			t.Errorf("%s: vetting says %q, running %v", text, d.Reason, err)
		}
	}
	for _, text := range []string{"git stash show", "find . -name '*.go' | xargs grep -r x", "find . -exec grep -r x {} +", "git log --oneline | head"} {
		if d := p.Check(text); d.Verdict != policy.Allow {
			t.Errorf("%s: %s by %s (%s)", text, d.Verdict, d.Rule, d.Reason)
		}
	}
}

// A wrapper option rein cannot read leaves the walking command unknown:
// running refuses it, saying which option and what to do.
func TestGuardRefusesUnreadableWrapperOptions(t *testing.T) {
	p := presetPolicy(t, "readonly")
	for argv, want := range map[string]string{
		"timeout --bogus 5 grep -r KEY .": "timeout --bogus is not an option rein knows timeout to have, so it cannot tell which command timeout runs; write the command without it",
		"env --i grep -r KEY .":           "env --i is short for several of its options (--ignore-environment, --ignore-signal), so rein cannot tell which command it runs; write the option out in full",
	} {
		if out, err := p.GuardSearch(strings.Fields(argv), nil); err == nil || err.Error() != want {
			t.Errorf("%s: runs as %q, error %v", argv, out, err)
		}
	}
}

// The secret places inside a repository's working tree, relative to it: a
// home folder's (kept in git), the root's, the workspace's own.
func TestSecretsUnder(t *testing.T) {
	p, err := loadRecipeText(t, "(import 'rein.libsonnet').presets.readonly + { paths+: { deny+: ['private/**'] } }")
	if err != nil {
		t.Fatal(err)
	}
	ws := p.Recipe().Workspace
	for top, want := range map[string][]string{
		"/home/dev":   {".ssh/**", ".aws/**", ".*_history", ".gitconfig"},
		"/home/dev/":  {".ssh/**"},
		"/home":       {"dev/.ssh/**", "*/.ssh/**"},
		"/":           {"etc/shadow", "home/dev/.aws/**", "proc/**/environ"},
		ws:            {"private/**"},
		ws + "/..":    {filepath.Base(ws) + "/private/**"},
		"/usr/local":  nil,
		"/home/other": {".ssh/**", ".aws/**"}, // /home/*/.ssh/**
	} {
		got := p.SecretsUnder(top)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("SecretsUnder(%s) = %q, missing %q", top, got, w)
			}
		}
		if want == nil && len(got) > 0 {
			t.Errorf("SecretsUnder(%s) = %q, want none", top, got)
		}
		for _, g := range got {
			if strings.HasPrefix(g, "**/") || strings.HasPrefix(g, "/") {
				t.Errorf("SecretsUnder(%s) holds %q, not relative to it", top, g)
			}
		}
	}
}
