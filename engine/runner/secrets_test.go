package runner_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// What a command reaches at run time that its argv does not say: files
// through links, walks of folders, lists of names, response files.

// A symbolic link in the workspace leads outside it: vetting reads the path
// as written, so the run-time check follows the link and vets the target.
func TestSecretsThroughLinks(t *testing.T) {
	needUnix(t)
	r, dir, outside := vaultRunner(t, "TOPSECRET\n", "allow+: ['read *', 'true']")
	os.WriteFile(filepath.Join(dir, "certs.pem"), []byte("TOPSECRET\n"), 0o644)
	os.Symlink(filepath.Join(outside, "vault", "key.txt"), filepath.Join(dir, "notes.txt"))
	os.Symlink(outside, filepath.Join(dir, "mirror"))
	os.Symlink("certs.pem", filepath.Join(dir, "readme.txt"))
	os.Symlink(filepath.Join(outside, "vault", "new.txt"), filepath.Join(dir, "dangling"))
	for _, text := range []string{
		"cat notes.txt",
		"cat mirror/vault/key.txt",
		"cat readme.txt",
		"grep -r TOPSECRET mirror",
		"cat < notes.txt",
		"read x < readme.txt; echo $x",
		"head --lines=1 notes.txt",
		// A link named in a short option's attached value.
		"grep -fnotes.txt README", "xargs -anotes.txt echo",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout+res.Stderr, "TOPSECRET") {
			t.Errorf("%s: the secret was read through a link: %+v", text, res)
		}
		if res.DeniedBy != "paths.deny" && !strings.Contains(res.Stderr, "refused by rein (rule paths.deny") {
			t.Errorf("%s: not refused by paths.deny: %+v", text, res)
		}
	}
	// Writing through a dangling link would create the secret file.
	res := r.Run(context.Background(), "true > dangling", runner.RunOptions{})
	if _, err := os.Stat(filepath.Join(outside, "vault", "new.txt")); err == nil {
		t.Errorf("a write through a dangling link created the target: %+v", res)
	}
	// Links to ordinary files still work.
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("plain\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(dir, "b.txt"))
	if res := r.Run(context.Background(), "cat b.txt", runner.RunOptions{}); res.Stdout != "plain\n" {
		t.Errorf("cat through an ordinary link: %+v", res)
	}
}

// A recursive search of the workspace does not read files named like
// secrets (.env, *.pem): the program walks the folder itself, so rein adds
// the exclusions to its argv.
func TestRecursiveSearchSkipsSecretFiles(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=LEAK1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "config", ".env.production"), []byte("API_KEY=LEAK2\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "config", "server.pem"), []byte("API_KEY=LEAK3\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("// reads API_KEY from the environment\n"), 0o644)
	for _, text := range []string{"grep -rn API_KEY .", "grep -R API_KEY", "grep -r -e API_KEY config .", "cd config && grep -rl API_KEY ..", "grep -n API_KEY * | cat"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") {
			t.Errorf("%s read a secret file: %q", text, res.Stdout)
		}
		if text != "cd config && grep -rl API_KEY .." && text != "grep -n API_KEY * | cat" && !strings.Contains(res.Stdout, "main.go") {
			t.Errorf("%s: the ordinary file was not searched: %+v", text, res)
		}
	}
	// grep and rg let the last matching --include/--glob win: one given
	// after rein's exclusions, or after the operands, does not let .env back.
	for _, text := range []string{"grep -rn --include=*env --include=*.go API_KEY .", "grep -rn API_KEY . --include '*.env*' --include=*.go", "grep -r --include=*.pe? --include=main.go -- API_KEY ."} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "main.go") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if _, err := exec.LookPath("rg"); err == nil {
		for _, text := range []string{"rg -uu API_KEY .", "rg -uu -g '*env' -g '*.go' API_KEY", "rg -uu API_KEY . --glob=*.pem"} {
			res := r.Run(context.Background(), text, runner.RunOptions{})
			if strings.Contains(res.Stdout, "LEAK") {
				t.Errorf("%s read a secret file: %q", text, res.Stdout)
			}
		}
	}
}

// find hands what it finds to -exec or, through a pipe, to xargs: rein keeps
// files named like secrets out of its walk, and what it lists is otherwise
// unchanged.
func TestFindSkipsSecretFiles(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	secretFiles(t, dir)
	for _, text := range []string{
		"find . -type f -exec cat {} +",
		"find . -type f | xargs cat",
		"find . -maxdepth 2 -type f -exec grep -H . {} \\;",
		"find -L . -name '*' -type f -print0 | xargs -0 cat",
		"find . -name '.e*' -exec cat {} +",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") {
			t.Errorf("%s read a secret file: %q", text, res.Stdout)
		}
		if !strings.Contains(text, ".e*") && !strings.Contains(res.Stdout, "package main") {
			t.Errorf("%s: the ordinary file was not read: %+v", text, res)
		}
		if strings.Contains(res.Stderr, "find:") {
			t.Errorf("%s: find complained: %s", text, res.Stderr)
		}
	}
	res := r.Run(context.Background(), "find . | sort", runner.RunOptions{})
	if res.Stdout != ".\n./config\n./main.go\n" {
		t.Errorf("find . lists %q", res.Stdout)
	}
	res = r.Run(context.Background(), "find . -name '*.go' -o -name config", runner.RunOptions{})
	if res.Stdout != "./config\n./main.go\n" && res.Stdout != "./main.go\n./config\n" {
		t.Errorf("find with -o lists %q", res.Stdout)
	}
}

// xargs makes command lines from its input, which no argv check sees: rein
// reads the input first and refuses names of secrets in it.
func TestXargsInputIsChecked(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	secretFiles(t, dir)
	os.WriteFile(filepath.Join(dir, "list.txt"), []byte("main.go\n.env\n"), 0o644)
	os.Symlink(".env", filepath.Join(dir, "settings"))
	for _, text := range []string{
		"ls -a | xargs cat",
		"printf '.env' | xargs cat",
		"printf 'main.go\\000config/server.pem' | xargs -0 cat",
		"echo env | xargs -I{} cat .{}",
		"echo 'main.go,.env' | xargs -d , cat",
		"echo \"'.env'\" | xargs cat",
		"echo settings | xargs cat",
		"cat list.txt | xargs -n 1 cat",
		"echo HEAD:.env | xargs git show",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") {
			t.Errorf("%s read a secret file: %q", text, res.Stdout)
		}
		if res.DeniedBy != "paths.deny" {
			t.Errorf("%s: not refused by paths.deny: %+v", text, res)
		}
	}
	os.Remove(filepath.Join(dir, "settings")) // ls would list the link to .env
	res := r.Run(context.Background(), "ls | xargs cat", runner.RunOptions{})
	if res.DeniedBy != "" || !strings.Contains(res.Stdout, "package main") {
		t.Errorf("ls | xargs cat: %+v", res)
	}
	res = r.RunArgv(context.Background(), []string{"xargs", "cat"}, runner.RunOptions{Stdin: strings.NewReader(".env\n")})
	if res.DeniedBy != "paths.deny" || strings.Contains(res.Stdout, "LEAK") {
		t.Errorf("execute_command xargs cat: %+v", res)
	}
}

func TestParseXargsOptions(t *testing.T) {
	// Through the exported behaviour: each form must find the same command.
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("A\n"), 0o644)
	for _, text := range []string{
		"echo a.txt | xargs cat",
		"echo a.txt | xargs -n1 cat",
		"echo a.txt | xargs -n 1 -r cat",
		"printf 'a.txt\\000' | xargs -0 cat",
		"echo a.txt | xargs --max-args=1 cat",
		"echo a | xargs -I % cat %.txt",
		"echo a | xargs -I% cat %.txt",
		"echo a | xargs --replace=% cat %.txt",
		"echo a.txt | xargs -t cat",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if res.Error != "" || !strings.Contains(res.Stdout, "A") {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// Programs that read the files named in a list they are given.
func TestFileListsAreChecked(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `local rein = import 'rein.libsonnet';
rein.presets.readonly + { allow+: ['tar *', 'parallel *'] }`, nil)
	os.WriteFile(filepath.Join(dir, ".env"), []byte("API_KEY=LEAK1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "names"), []byte("main.go\x00.env\x00"), 0o644)
	for _, text := range []string{
		"printf '.env\\000' | sort --files0-from=-",
		"printf 'main.go\\000.env' | wc -c --files0-from -",
		"sort --files0-from=names",
		"echo .env | tar -cf - -T - | cat",
		"echo HEAD:.env | git cat-file --batch",
		"echo env | parallel cat .{}",
		"printf '.env\\n' | parallel cat :::: -",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if res := r.Run(context.Background(), "printf 'main.go\\000' | sort --files0-from=-", runner.RunOptions{}); res.Stdout != "package main\n" {
		t.Errorf("an ordinary list: %+v", res)
	}
}

// A walk does not follow a symbolic link out of the folder it was given: a
// cloned repository can hold `up -> ../..`.
func TestWalksDoNotFollowLinks(t *testing.T) {
	needUnix(t)
	r, dir, outside := vaultRunner(t, "needle VAULTKEY-12345\n", "")
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("needle in the workspace\n"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "up"))
	for _, text := range []string{"grep -R needle .", "grep -rn --dereference-recursive needle .", "find -L . -type f -exec cat {} +", "find . -follow -type f -exec cat {} +"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "VAULTKEY") {
			t.Errorf("%s followed the link: %q", text, res.Stdout)
		}
		if !strings.Contains(res.Stdout, "needle in the workspace") {
			t.Errorf("%s: the workspace file was not read: %+v", text, res)
		}
	}
}

// diff compares two folders file by file: a .env in both would be printed.
// rein excludes secret names when an operand is a folder, and leaves diff
// of two files as it is.
func TestDiffOfFoldersSkipsSecretFiles(t *testing.T) {
	needUnix(t)
	if out, err := exec.Command("diff", "--exclude=x", "/dev/null", "/dev/null").CombinedOutput(); err != nil {
		t.Skipf("diff without --exclude: %v %s", err, out)
	}
	r, dir := newRunner(t, "readonly", nil)
	secretFiles(t, dir)
	os.MkdirAll(filepath.Join(dir, "other"), 0o755)
	os.WriteFile(filepath.Join(dir, "other", ".env"), []byte("API_KEY=OTHER\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other", "main.go"), []byte("package other\n"), 0o644)
	for _, text := range []string{"diff -rN . other", "diff . other", "diff -ru other .", "diff --recursive --new-file --from-file=. other"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || strings.Contains(res.Stdout, "OTHER") || !strings.Contains(res.Stdout, "package") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if res := r.Run(context.Background(), "diff main.go other/main.go", runner.RunOptions{}); !strings.Contains(res.Stdout, "package other") {
		t.Errorf("diff of two files: %+v", res)
	}
}

// secretFiles puts files named like secrets (whose contents say LEAK) and
// an ordinary main.go into dir.
func secretFiles(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "config"), 0o755)
	for name, text := range map[string]string{".env": "API_KEY=LEAK1\n", "config/server.pem": "LEAK2\n", "main.go": "package main\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A file list rein cannot read ahead stops the command with a message that
// says why.
func TestFileListErrors(t *testing.T) {
	needUnix(t)
	r, _ := newRunner(t, "readonly", nil)
	res := r.Run(context.Background(), "xargs -a missing.txt cat", runner.RunOptions{})
	if res.ExitCode != 126 || !strings.Contains(res.Stderr, "cannot check the file names xargs reads") || !strings.Contains(res.Stderr, "missing.txt") {
		t.Errorf("missing list: %+v", res)
	}
	res = r.RunArgv(context.Background(), []string{"xargs", "echo"}, runner.RunOptions{Stdin: strings.NewReader(strings.Repeat("x\n", 9<<20))})
	if !strings.Contains(res.Error, "longer than 16 MiB") {
		t.Errorf("long list: %+v", res)
	}
}

// Programs that read response files (strings @FILE) read FILE and the
// files it names: both are checked, nested ones and links included.
func TestResponseFilesAreChecked(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("strings"); err != nil {
		t.Skip("no strings")
	}
	r, dir := newRunner(t, "readonly", nil)
	secretFiles(t, dir)
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("node_modules\n.env\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "nested.rsp"), []byte("-a @.gitignore\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.rsp"), []byte("main.go\n"), 0o644)
	os.Symlink(".env", filepath.Join(dir, "settings"))
	for _, text := range []string{"strings @.gitignore", "strings @nested.rsp", "strings @.env", "strings @settings", "timeout 5 strings @.gitignore", "strings -a @'config/server.pem'"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout+res.Stderr, "LEAK") || res.DeniedBy != "paths.deny" {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if res := r.Run(context.Background(), "strings @ok.rsp", runner.RunOptions{}); !strings.Contains(res.Stdout, "package main") {
		t.Errorf("an ordinary response file: %+v", res)
	}
}

// .git/config holds credentials: searches and walks of the workspace leave
// it out, and the .git folder cannot be walked whole.
func TestWalksSkipGitConfig(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[http \"https://github.com/\"]\n\textraheader = AUTHORIZATION: basic LEAK\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".git", "hooks", "x.sample"), []byte("# AUTHORIZATION sample\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("// AUTHORIZATION header\n"), 0o644)
	for _, text := range []string{"grep -rn AUTHORIZATION .", "grep -rn AUTHORIZATION .git/hooks", "find . -type f -exec cat {} +", "find . -type f | xargs cat", "cd .git && grep -rn AUTHORIZATION hooks"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.ExitCode != 0 || !strings.Contains(res.Stdout, "AUTHORIZATION") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	for _, text := range []string{"cat .git/config", "grep -r AUTHORIZATION .git", "cd .git && cat config", "ls -a .git | xargs -I{} cat .git/{}", "find .git -type f | xargs cat"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || res.DeniedBy != "paths.deny" {
			t.Errorf("%s: %+v", text, res)
		}
	}
}

// tar walks what it archives and prints what it extracts with -O: a
// recipe that allows it gets the exclusions before tar's operands, old
// option bundles included.
func TestTarSkipsSecretFiles(t *testing.T) {
	needUnix(t)
	if _, err := exec.LookPath("tar"); err != nil {
		t.Skip("no tar")
	}
	r, dir := newRunner(t, "local rein = import 'rein.libsonnet';\nrein.presets.readonly + { programs+: { tar: rein.program('Archives') } }\n", nil)
	secretFiles(t, dir)
	for _, text := range []string{"tar -cf - . | tar -xOf -", "tar cf - . | tar xOf -", "tar -c -f - config main.go | tar -xO -f -"} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if strings.Contains(res.Stdout, "LEAK") || !strings.Contains(res.Stdout, "package main") {
			t.Errorf("%s: %+v", text, res)
		}
	}
	if res := r.Run(context.Background(), "tar cbf 20 - .", runner.RunOptions{}); res.DeniedBy != "paths.deny" {
		t.Errorf("tar cbf: %+v", res)
	}
}

// Every attack in testdata/leaks.txt (quoting, globs, redirects, /proc,
// wrappers, xargs and find pipelines, git plumbing, object ids, response
// files, ...) runs, under each preset, with asks approved, in a repository
// holding secrets in files, in history and in .git/config: no output holds
// one.
func TestKnownLeaksStayClosed(t *testing.T) {
	needGit(t)
	text, err := os.ReadFile(filepath.Join("testdata", "leaks.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var attacks []string
	for _, line := range strings.Split(string(text), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			attacks = append(attacks, line)
		}
	}
	for _, preset := range []string{"readonly", "git", "go"} {
		r, dir := newRunner(t, preset, nil)
		leakyRepo(t, dir)
		for _, attack := range attacks {
			res := r.Run(context.Background(), attack, runner.RunOptions{Approved: true, Stdin: strings.NewReader("")})
			if out := res.Stdout + res.Stderr + res.Error; strings.Contains(out, "LEAK_") {
				t.Errorf("%s: %s printed a secret:\n%s", preset, attack, out)
			}
		}
	}
}

// leakyRepo makes dir a git repository whose secrets say LEAK_: a .env, a
// key and a nested .env, committed, and a token in .git/config.
func leakyRepo(t *testing.T, dir string) {
	t.Helper()
	for name, text := range map[string]string{".env": "API_KEY=LEAK_ENV", "src/.env": "TOKEN=LEAK_SRCENV",
		"src/server.pem": "-----BEGIN LEAK_PEM-----", "src/main.go": "package main // main", "docs/readme.txt": "hello",
		".gitignore": "node_modules\n.env"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-f", "-A"}, {"-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "x"},
		{"config", "http.extraheader", "AUTHORIZATION: basic LEAK_HDR"}, {"stash", "list"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// Response files naming response files are read to a bound: one naming
// itself is refused, saying so, rather than read forever.
func TestResponseFilesAreBounded(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, "readonly", nil)
	os.WriteFile(filepath.Join(dir, "loop.rsp"), []byte("@loop.rsp main.go\n"), 0o644)
	res := r.Run(context.Background(), "strings @loop.rsp", runner.RunOptions{})
	if res.DeniedBy != "paths.deny" || !strings.Contains(res.Error, "strings names more than 32 response files (@FILE) for rein to check") {
		t.Errorf("%+v", res)
	}
}
