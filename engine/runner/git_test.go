package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
)

// needGit skips a test that runs git where POSIX commands or git are
// missing.
func needGit(t *testing.T) {
	t.Helper()
	needUnix(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
}

// secretRepo makes a runner under readonly in a git repository with two
// commits and uncommitted changes, where .env, src/.env and src/key.pem say
// LEAK, and main.go and src/app.go mention API_KEY. git runs it returns git's
// output.
func secretRepo(t *testing.T) (*runner.Runner, func(args ...string) string) {
	t.Helper()
	return secretRepoUnder(t, "readonly")
}

// secretRepoUnder is secretRepo under another preset.
func secretRepoUnder(t *testing.T, preset string) (*runner.Runner, func(args ...string) string) {
	t.Helper()
	needGit(t)
	r, dir := newRunner(t, preset, nil)
	os.MkdirAll(filepath.Join(dir, "src"), 0o755)
	write := func(round string) {
		for name, text := range map[string]string{
			".env": "API_KEY=LEAK" + round, "src/.env": "TOKEN=LEAK" + round, "src/key.pem": "LEAK" + round,
			"main.go": "// reads API_KEY " + round, "src/app.go": "// reads API_KEY and TOKEN " + round,
		} {
			os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644)
		}
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	for _, round := range []string{"1", "2"} {
		write(round)
		git("add", "-A")
		git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "round "+round)
	}
	write("3")
	return r, git
}

// git grep, diff, show and log -p print tracked files: a committed .env is
// left out, also when the command names revisions or paths without --
// (git diff HEAD~1, git grep KEY src), where the exclusions need them put
// behind a --.
func TestGitSkipsSecretFiles(t *testing.T) {
	r, _ := secretRepo(t)
	for _, text := range []string{
		"git grep -n API_KEY", "git grep API_KEY -- .", "git grep -e API_KEY", "git grep API_KEY HEAD",
		"git grep -a TOKEN src", "git grep TOKEN HEAD~1 src", "git grep -i token -- src",
		"git diff", "git diff HEAD~1", "git diff HEAD~1 HEAD", "git diff HEAD~1 src", "git diff --cached HEAD~1",
		"git log -p", "git log -p --all", "git log -U1 HEAD~1..", "git log --cc --author t src", "git whatchanged -p",
		"git show", "git show HEAD", "git show HEAD~1 --stat -p", "git diff-tree -p HEAD", "git diff-tree -r -p HEAD~1 HEAD",
		"cd src && git diff HEAD~1 .", "git -C src log -p -1 .",
		// Found by the oracle: a patch asked for in a cluster of letters,
		// and reflog, which is log -g.
		"git whatchanged -Dp HEAD", "git log -Wp -1", "git reflog -p", "git reflog -u HEAD", "git reflog -U1 HEAD",
		"git reflog --patch-with-stat HEAD", "git reflog -pz HEAD",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, ".go") || res.ExitCode != 0 {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// git log --full-diff shows every file of the commits its paths choose:
// exclusions cannot leave a committed .env out, so it is refused.
func TestGitFullDiffIsRefused(t *testing.T) {
	r, _ := secretRepo(t)
	for _, text := range []string{"git log -p --full-diff -- main.go", "git log --full-diff -p main.go", "git whatchanged -p --full-diff"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" || !strings.Contains(res.Error, "drop --full-diff") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if res := r.Run(context.Background(), "git log --full-diff --oneline -- main.go", runner.RunOptions{}); res.DeniedBy != "" || res.ExitCode != 0 {
		t.Errorf("without patches: %+v", res)
	}
}

// An object id names no path: git show and cat-file of a blob's id (the
// id of a committed .env is one git ls-tree away) are refused at run time,
// whether the id is in argv, on cat-file --batch's input or handed over by
// xargs; commits, trees and REV:PATH are shown.
func TestGitObjectIDsOfFilesAreRefused(t *testing.T) {
	r, git := secretRepo(t)
	env, code := git("rev-parse", "HEAD:.env"), git("rev-parse", "HEAD:main.go")
	git("tag", "envtag", env)
	for _, text := range []string{
		"git show " + env[:7], "git show HEAD " + env, "git cat-file -p " + env, "git cat-file blob " + env[:10],
		"git cat-file --filters --path=main.go " + env, "git show envtag", "git cat-file -p envtag^{}",
		"echo " + env + " | git cat-file --batch", "echo " + env + " | git -C . cat-file --batch", "printf 'contents " + env + "\\n' | git cat-file --batch-command",
		"git ls-tree -r HEAD | cut -c13-52 | xargs git show", "git ls-tree HEAD | awk '{print $3}' | xargs -n1 git cat-file -p",
		"git cat-file --batch-all-objects --batch", "git grep API_KEY " + env, "git grep -e API " + env[:9],
		// A file named in a short option's attached value: git log -L
		// follows lines of it through history.
		"git log -L1,1:.env", "x=.env; git log -L1,+1:$x HEAD",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		// (--filters runs the filters configuration names: refused for that first.)
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" && !(strings.Contains(text, "--filters") && res.DeniedBy == "options.helper") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	for text, want := range map[string]string{
		"git show --stat HEAD":             "main.go",
		"git cat-file -p HEAD":             "round 2",
		"git cat-file -t " + env:           "blob",
		"git show HEAD:main.go":            "API_KEY 2",
		"git cat-file -p HEAD^{tree}":      code,
		"echo HEAD | git cat-file --batch": "round 2",
		"git diff " + code + " " + env:     "",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "" || !strings.Contains(res.Stdout, want) {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// A walking program started through a wrapper (timeout, nice, env,
// command, xargs, find -exec) is guarded as if started directly; git under
// xargs or find -exec, which add words after git's exclusions, is refused.
func TestWrappedWalksSkipSecretFiles(t *testing.T) {
	r, _ := secretRepo(t)
	for _, text := range []string{
		"timeout 5 git show HEAD", "nice git diff HEAD~1", "env git grep API_KEY HEAD", "command git show HEAD",
		"timeout 9 nice -n 5 git log -p", "echo . | xargs grep -r API_KEY", "find . -maxdepth 0 -exec grep -r API_KEY {} +",
		"find src -maxdepth 0 -exec timeout 9 grep -rn TOKEN {} \\;", "printf 'src\\n' | xargs -I{} grep -r TOKEN {}",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, ".go") || res.ExitCode != 0 {
			t.Errorf("%s: %+v", text, res)
		}
	}
	for _, text := range []string{"git rev-list --all | xargs git show", "echo HEAD | xargs git diff HEAD~1", "find . -maxdepth 0 -exec git grep API_KEY {} +"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" || !strings.Contains(res.Error, "a -- of its own") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	// Words xargs or find put after git's own -- are paths, next to rein's
	// exclusions; xargs -I puts them where its marker is: those run.
	for _, text := range []string{"git ls-files '*.go' | xargs git diff HEAD~1 --", "ls | xargs -I{} git log -p", "find . -name '*.go' -exec git diff HEAD~1 -- {} +",
		"printf 'src\n.\n' | xargs -n1 git grep API_KEY HEAD --"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.ExitCode != 0 || !strings.Contains(res.Stdout, ".go") {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// git stash show -p takes no pathspecs: it is refused, and a plain stash
// show is kept to its summary whatever stash.showPatch says.
func TestGitStashShowKeepsToItsSummary(t *testing.T) {
	r, git := secretRepoUnder(t, "git")
	git("stash", "-q")
	git("config", "stash.showPatch", "true")
	res := r.Run(context.Background(), "git stash show", runner.RunOptions{})
	if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "main.go") || res.ExitCode != 0 {
		t.Errorf("git stash show: %+v", res)
	}
	for _, text := range []string{"git stash show -p", "git stash show --patch stash@{0}", "timeout 5 git stash show -p"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" || !strings.Contains(res.Error, "git diff") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	res = r.Run(context.Background(), "git diff 'stash@{0}^' 'stash@{0}'", runner.RunOptions{})
	if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "main.go") {
		t.Errorf("git diff of the stash: %+v", res)
	}
}

// git config, git remote and git var print the credentials a CI checkout
// leaves in .git/config: they are hidden, and rein says so.
func TestGitConfigCredentialsAreHidden(t *testing.T) {
	r, git := secretRepo(t)
	git("config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic TEVBSzpMRUFL")
	git("remote", "add", "origin", "https://x-access-token:LEAKTOKEN@github.com/o/r.git")
	for _, text := range []string{"git config --list", "git config -l --show-origin", "git remote -v", "git config --get remote.origin.url",
		"git config --get-regexp 'http.*'", "git var -l", "timeout 5 git config --list", "git -C . config --list", "git --no-pager remote -v", "git config -z -l | tr '\\0' '\\n'"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || strings.Contains(res.Stdout, "TEVBSzpMRUFL") || !strings.Contains(res.Stdout, "***") ||
			!strings.Contains(res.Stderr, "credentials in the output were hidden") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	res := r.RunArgv(context.Background(), []string{"git", "remote", "-v"}, runner.RunOptions{})
	if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "https://***@github.com/o/r.git") {
		t.Errorf("execute_command git remote -v: %+v", res)
	}
	// A value git echoes in an error, on standard error, is hidden too.
	for _, run := range []func() *runner.Result{
		func() *runner.Result {
			return r.Run(context.Background(), "git config --type=int --get remote.origin.url", runner.RunOptions{})
		},
		func() *runner.Result {
			return r.RunArgv(context.Background(), []string{"git", "config", "--type=int", "--get", "remote.origin.url"}, runner.RunOptions{})
		},
	} {
		res := run()
		if strings.Contains(res.Stderr, "LEAK") || !strings.Contains(res.Stderr, "***@github.com") {
			t.Errorf("a value in an error: %+v", res)
		}
	}
}

// env, printenv and go env print the environment rein passes on, where a
// proxy or database URL may carry a password: hidden too. A command env
// runs is not touched.
func TestEnvironmentCredentialsAreHidden(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, "readonly", []string{"GOPROXY=https://user:LEAKPROXY@proxy.example.com", "LANG=C", "PATH=" + os.Getenv("PATH")})
	for _, text := range []string{"printenv GOPROXY", "env", "printenv"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "https://***@proxy.example.com") ||
			!strings.Contains(res.Stderr, "credentials in the output were hidden") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	res := r.Run(context.Background(), "env LANG=C echo https://a:b@host", runner.RunOptions{})
	if res.Stdout != "https://a:b@host\n" || res.Stderr != "" {
		t.Errorf("a command under env: %+v", res)
	}
}

// When rein cannot ask the repository what an object id names (here:
// there is no repository), the command is refused, saying why.
func TestGitObjectQuestionFailsClosed(t *testing.T) {
	needGit(t)
	r, _ := newRunner(t, "readonly", nil)
	res := r.Run(context.Background(), "git show 7c1c8c3", runner.RunOptions{})
	if res.DeniedBy != "paths.deny" || !strings.Contains(res.Error, "rein could not ask git what 7c1c8c3 names") ||
		!strings.Contains(res.Error, "not a git repository") {
		t.Errorf("%+v", res)
	}
}

// git add . and git add -A leave files named like secrets out of the index
// (a commit would put them in history) and stage the rest.
func TestGitAddLeavesSecretsOut(t *testing.T) {
	for _, text := range []string{"git add .", "git add -A", "git add --all -v", "cd src && git add ."} {
		t.Run(text, func(t *testing.T) {
			r, git := secretRepoUnder(t, "git")
			os.WriteFile(filepath.Join(git("rev-parse", "--show-toplevel"), "src", ".env.local"), []byte("NEW=LEAK\n"), 0o644)
			res := r.Run(context.Background(), text, runner.RunOptions{})
			if res.ExitCode != 0 || res.Error != "" {
				t.Fatalf("result %+v", res)
			}
			staged := git("diff", "--cached", "--name-only")
			if strings.Contains(staged, ".env") || strings.Contains(staged, ".pem") || !strings.Contains(staged, "app.go") {
				t.Errorf("staged:\n%s", staged)
			}
		})
	}
}

// A home folder kept in git tracks ~/.aws/credentials as .aws/credentials,
// which no exclusion by name leaves out: git is given the secret places
// inside its repository's working tree too, as is a recipe's own secret
// path (private/**) inside the workspace's repository.
func TestGitLeavesOutSecretPlacesOfItsRepository(t *testing.T) {
	needGit(t)
	home := t.TempDir()
	ws := filepath.Join(home, "proj")
	for name, text := range map[string]string{
		".aws/credentials": "aws_secret_access_key=LEAK", ".bash_history": "export TOKEN=LEAK",
		"proj/private/token.txt": "LEAK", "proj/main.go": "package main // API",
		"proj/rein.jsonnet": "(import 'rein.libsonnet').presets.readonly + { paths+: { deny+: ['private/**'], scope: 'anywhere' } }",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(home, name)), 0o755)
		os.WriteFile(filepath.Join(home, name), []byte(text+"\n"), 0o644)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "dotfiles"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = home
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	rc, err := recipe.Load(recipe.Options{Dir: ws, CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(rc, policy.Options{Home: home})
	if err != nil {
		t.Fatal(err)
	}
	r := runner.New(p, runner.Options{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}})
	for _, text := range []string{
		"git log -p", "git log -p -- :/", "git -C ~ log -p", "git -C .. show HEAD", "cd ~ && git grep -e LEAK -e API",
		"git grep -e LEAK -e API -- :/", "timeout 5 git -C ~ log -p",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if res.Error != "" || strings.Contains(res.Combined, "LEAK") || !strings.Contains(res.Combined, "API") {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// A variable the script exports reaches every command after it: each is
// checked at run time as if it were the command's prefix. git reads its
// configuration from GIT_CONFIG_PARAMETERS and from $HOME, which a cloned
// repository can hold: core.fsmonitor runs a command under git status.
func TestExportedVariablesReachTheCheck(t *testing.T) {
	r, git := secretRepo(t)
	dir := git("rev-parse", "--show-toplevel")
	os.MkdirAll(filepath.Join(dir, "evil"), 0o755)
	os.WriteFile(filepath.Join(dir, "evil", ".gitconfig"), []byte("[core]\n\tfsmonitor = touch MARK2\n"), 0o644)
	for _, text := range []string{
		`export GIT_CONFIG_PARAMETERS="'core.fsmonitor=touch MARK1'"; git status --short`,
		`export HOME="$PWD/evil"; git status --short`,
		`HOME="$PWD/evil"; git status --short`, // HOME is exported already
	} {
		res := r.Interpret(context.Background(), text, runner.RunOptions{})
		if !strings.HasPrefix(res.Error, "stopped at run time") || !strings.Contains(res.Error, "which the script set") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	for _, mark := range []string{"MARK1", "MARK2"} {
		if _, err := os.Stat(filepath.Join(dir, mark)); err == nil {
			t.Errorf("%s: the configured command ran", mark)
		}
	}
	// Variables rein passed, and locale variables the recipe allows, stay.
	for _, text := range []string{"git status --short", "export LANG=C; git status --short", "x=1; echo $x"} {
		if res := r.Interpret(context.Background(), text, runner.RunOptions{}); res.Error != "" {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// A tracked folder shaped like a bare repository, whose config names
// core.fsmonitor: git -C into it (allowed under readonly) ran the program.
// Every git rein runs gets safe.bareRepository=explicit and no fsmonitor.
func TestGitDoesNotRunAPlantedBareRepository(t *testing.T) {
	r, dir := sandboxed(t, `local rein = import 'rein.libsonnet'; rein.presets.readonly + { sandbox+: { mode: 'workspace-write' } }`, nil)
	needGit(t)
	bare := filepath.Join(dir, "vendor", "lib")
	for _, d := range []string{"refs/heads", "objects"} {
		os.MkdirAll(filepath.Join(bare, d), 0o755)
	}
	hook := filepath.Join(dir, "hook.sh")
	os.WriteFile(hook, []byte("#!/bin/sh\ntouch "+filepath.Join(dir, "RAN")+"\n"), 0o755)
	os.WriteFile(filepath.Join(bare, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
	os.WriteFile(filepath.Join(bare, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = "+dir+"\n\tfsmonitor = "+hook+"\n"), 0o644)
	for _, text := range []string{"git -C vendor/lib status", "git -C vendor/lib log", "cd vendor/lib && git status"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if _, err := os.Stat(filepath.Join(dir, "RAN")); err == nil {
			t.Fatalf("%s ran the planted fsmonitor: %+v", text, res)
		}
	}
}
