package policy_test

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/interp"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/recipe"
)

// The classes of commands a red team had allowed under readonly, each read
// now the way the program reads it (the program table), with the everyday
// commands of the same programs beside them.
func TestOptionsAsProgramsReadThem(t *testing.T) {
	wantRules(t, presetPolicy(t, "readonly"), []ruleCase{
		// 1. -- taken as an option's value: the options after it count.
		{"sort -T -- -o out.txt in.txt", policy.Deny, "options.writes"},
		{"sort -k -- --compress-program=sh f", policy.Deny, "options.runs"},
		{"find . -name -- -delete", policy.Deny, "options.writes"},
		{"find . -path -- -fprint out", policy.Deny, "options.writes"},
		{"rg -e -- --pre=sh x", policy.Deny, "options.runs"},
		{"git grep -e -- -O", policy.Deny, "options.runs"},
		{"awk -F -- -f prog.awk f", policy.Deny, "options.code"},
		{"sed -l -- -i s/a/b/ f", policy.Deny, "options.writes"},
		{"git log --decorate-refs -- --output=/tmp/x", policy.Deny, "options.writes"},
		{"git log --format -- --output=x", policy.Deny, "options.writes"},
		// 2. Options by list: what rein has not read is refused, named.
		{"env -a x rm -rf /", policy.Deny, "analysis.unknown_option"},
		{"ls --frobnicate", policy.Deny, "shell.unknown_option"},
		{"cat -Z x", policy.Deny, "shell.unknown_option"},
		{"sed -I s/a/b/ f", policy.Deny, "shell.unknown_option"},
		{"awk -d x '{print}' f", policy.Deny, "options.writes"},
		{"awk -o '{print}' f", policy.Deny, "options.writes"},
		{"gawk -D '{print}' f", policy.Deny, "options.input"},
		{"git log --frobnicate", policy.Deny, "shell.unknown_option"},
		// 3. Code fed where rein does not read it.
		{"jq -f filter.jq data.json", policy.Deny, "options.code"},
		{"echo HEAD | git log --stdin -p", policy.Deny, "options.input"},
		{"ls | xargs -p cat", policy.Deny, "options.input"},
		{"find . -ok cat {} ;", policy.Deny, "options.input"},
		// 7. awk read as awk: comparisons are not redirects.
		{"awk '$2 > 10' f", policy.Allow, "programs.awk"},
		{"awk '{print > \"out\"}' f", policy.Deny, "awk-no-side-effects"},
		// 11. Helpers the program starts by itself.
		{"git --paginate log", policy.Deny, "options.helper"},
		{"git -p log", policy.Deny, "options.helper"},
		{"git log -p --textconv", policy.Deny, "options.helper"},
		{"git show --text --ext-diff HEAD", policy.Deny, "programs.git.subcommands.show.deny_flags"},
		{"git cat-file --textconv HEAD:main.go", policy.Deny, "options.helper"},
		{"rg -z password .", policy.Deny, "options.helper"},
		{"rg --search-z password .", policy.Deny, "options.helper"},
		{"file -z x.gz", policy.Deny, "options.helper"},
		{"git branch --edit-description", policy.Deny, "options.helper"},
		{"git help -w log", policy.Deny, "options.helper"},
		// Everyday inspection stays allowed.
		{"git log -p -- src/", policy.Allow, "programs.git"},
		{"git log --no-textconv -p", policy.Allow, "programs.git"},
		{"git stash list", policy.Allow, "programs.git"},
		{"git reflog -n 10", policy.Allow, "programs.git"},
		{"sort -k2 -n f", policy.Allow, "programs.sort"},
		{"rg -n TODO src", policy.Allow, "programs.rg"},
		{"grep -rn --include='*.go' func .", policy.Allow, "commands: grep -rn <pattern> <path>"},
		{"grep -n --include='*.go' func .", policy.Allow, "programs.grep"},
		{"head -20 f", policy.Allow, "programs.head"},
		{"find . -type f -newermt 2024-01-01 -name '*.go'", policy.Allow, "programs.find"},
		{"git diff --stat HEAD~3", policy.Allow, "commands: git diff"},
		{"git branch --merged main", policy.Allow, "programs.git"},
		{"git blame -L 10,20 main.go", policy.Allow, "programs.git"},
		{"ls | xargs -0 -n1 -I{} echo {}", policy.Allow, "programs.ls, programs.xargs, programs.echo"},
	})
	// A recipe that writes asks about what rein has not read, and lets an
	// option write where the recipe lets commands write.
	wantRules(t, presetPolicy(t, "git"), []ruleCase{
		{"ls --frobnicate", policy.Ask, "shell.unknown_option"},
		{"git log --frobnicate", policy.Ask, "shell.unknown_option"},
		{"git --paginate log", policy.Deny, "options.helper"},
		{"sort -T -- --compress-program=sh f", policy.Deny, "options.runs"},
	})
}

// ruleCase is a command and the verdict and rule it must get.
type ruleCase struct {
	command string
	verdict policy.Verdict
	rule    string
}

// wantRules checks each command's verdict and the rule that made it.
func wantRules(t *testing.T, p *policy.Policy, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		if d := p.Check(c.command); d.Verdict != c.verdict || d.Rule != c.rule {
			t.Errorf("%s: %s by %s (%s), want %s by %s", c.command, d.Verdict, d.Rule, d.Reason, c.verdict, c.rule)
		}
	}
}

// The messages say which option, and what to do.
func TestUnknownOptionMessage(t *testing.T) {
	d := presetPolicy(t, "readonly").Check("sort --frob f")
	if !strings.Contains(d.Reason, "sort --frob is not an option rein knows sort to have") || !strings.Contains(d.Reason, "leave it out") {
		t.Errorf("%s", d.Reason)
	}
	d = presetPolicy(t, "readonly").Check("sort -o out f")
	if d.Rule != "programs.sort.deny_flags" && !strings.Contains(d.Reason, "writes the sorted lines to FILE") {
		t.Errorf("%s: %s", d.Rule, d.Reason)
	}
}

// Everyday inspection commands of our own (testdata/everyday.txt): the
// readonly preset must allow at least 97% of them.
func TestEverydayCommandsStayAllowed(t *testing.T) {
	f, err := os.Open("testdata/everyday.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p := presetPolicy(t, "readonly")
	var total, denied int
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		total++
		if d := p.Check(line); d.Verdict != policy.Allow {
			denied++
			t.Logf("denied: %s (%s: %s)", line, d.Rule, d.Reason)
		}
	}
	if total < 100 {
		t.Fatalf("only %d commands", total)
	}
	if rate := float64(denied) / float64(total); rate > 0.03 {
		t.Errorf("%d of %d everyday commands denied (%.1f%%, more than 3%%)", denied, total, 100*rate)
	}
	t.Logf("%d of %d everyday commands denied", denied, total)
}

// A .. goes up from where the links before it lead, as the kernel walks
// it: lnk/../key is secret/key when lnk leads to secret/sub, though its
// text cleans to key in the workspace.
func TestDotDotAfterALinkIsReadPhysically(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links")
	}
	top := t.TempDir()
	secret := filepath.Join(top, "secret")
	os.MkdirAll(filepath.Join(secret, "sub"), 0o755)
	os.WriteFile(filepath.Join(secret, "key"), []byte("k"), 0o600)
	ws := filepath.Join(top, "ws")
	os.MkdirAll(ws, 0o755)
	if err := os.Symlink(filepath.Join(secret, "sub"), filepath.Join(ws, "lnk")); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly + { paths+: { deny+: ['`+secret+`/**'] } }`), 0o644)
	r, err := recipe.Load(recipe.Options{Dir: ws, CacheDir: "-", UserFile: "-"})
	if err != nil {
		t.Fatal(err)
	}
	p, err := policy.New(r, policy.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"cat lnk/../key", "cat ./lnk/./../key", "grep -r x lnk/..", "cat " + ws + "/lnk/../key"} {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != "paths.deny" {
			t.Errorf("%s: %s by %s (%s)", cmd, d.Verdict, d.Rule, d.Reason)
		}
	}
	if d := p.Check("cat sub/../rein.jsonnet"); d.Verdict != policy.Allow {
		t.Errorf("a .. without links: %s by %s (%s)", d.Verdict, d.Rule, d.Reason)
	}
}

// Every secret place the recipe lists is refused by name through every
// reader readonly allows, however the reader takes it.
func TestEverySecretThroughEveryReader(t *testing.T) {
	p := presetPolicy(t, "readonly")
	readers := []string{"cat %s", "head -n 5 %s", "tail %s", "grep -n x %s", "sort %s", "wc -l %s", "od -c %s", "strings %s",
		"awk '{print}' %s", "sed -n p %s", "diff %s README.md", "cut -c1-5 %s", "file %s", "md5sum %s", "hexdump -C %s",
		"cat < %s", "jq . %s", "grep -r x %s", "ls -la %s", "git log -p -- %s", "grep -f %s README.md", "sort --files0-from=%s"}
	for _, glob := range recipe.SecretPaths {
		if strings.HasPrefix(glob, "/dev/") || strings.HasPrefix(glob, "/proc/") && !strings.HasSuffix(glob, "cmdline") {
			continue // devices and /proc have tests of their own
		}
		// A path the glob matches.
		path := strings.NewReplacer("/**", "/x/y", "**/", "sub/", "*", "a", "[0-9]", "1").Replace(glob)
		for _, reader := range readers {
			cmd := strings.ReplaceAll(reader, "%s", path)
			if d := p.Check(cmd); d.Verdict != policy.Deny {
				t.Errorf("%s (from %s): %s by %s (%s)", cmd, glob, d.Verdict, d.Rule, d.Reason)
			}
		}
	}
}

// A program readonly allows is one rein's program table knows, or a
// builtin of the embedded shell, which runs it itself: rein reads every
// option readonly lets a program take.
func TestReadonlyProgramsAreInTheTable(t *testing.T) {
	r, _ := presetRecipe(t, "readonly", "linux")
	for name := range r.Programs {
		if programs.Lookup(name) == nil && !interp.IsBuiltin(name) {
			t.Errorf("readonly allows %s, which neither the program table nor the shell's builtins know", name)
		}
	}
}

// Agents' and editors' configuration is protected: a redirect (or a file
// tool, which asks the same check) may not write it.
func TestAgentConfigIsProtected(t *testing.T) {
	p := presetPolicy(t, "git")
	for _, target := range []string{".claude/settings.json", ".mcp.json", ".cursor/mcp.json", ".gemini/settings.json", ".codex/config.toml",
		".vscode/tasks.json", ".vscode/settings.json", ".idea/workspace.xml", "sub/.claude/settings.local.json"} {
		if r := p.CheckOpen(target, true, ""); r.Verdict != policy.Deny || r.Rule != "paths.protect" {
			t.Errorf("writing %s: %s by %s (%s)", target, r.Verdict, r.Rule, r.Reason)
		}
		if r := p.CheckOpen(target, false, ""); r.Verdict == policy.Deny {
			t.Errorf("reading %s: %s by %s", target, r.Rule, r.Reason)
		}
	}
}

// An allow, ask or deny glob whose first word is a script's path matches
// the script run by that path, however the command writes it; it was
// denied with "rules for x.sh apply only to the program found on PATH".
func TestGlobsNameScriptsByPath(t *testing.T) {
	p := recipePolicy(t, `{ allow: ['./scripts/x.sh *', './scripts/x.sh'], ask: ['scripts/deploy.sh *'], deny: ['./scripts/x.sh --wipe*'] }`)
	wantRules(t, p, []ruleCase{
		{"./scripts/x.sh a", policy.Allow, "allow: ./scripts/x.sh *"},
		{"scripts/x.sh a", policy.Allow, "allow: ./scripts/x.sh *"},
		{"./scripts/x.sh", policy.Allow, "allow: ./scripts/x.sh"},
		{"./scripts/deploy.sh prod", policy.Ask, "ask: scripts/deploy.sh *"},
		{"./scripts/x.sh --wipe", policy.Deny, "deny: ./scripts/x.sh --wipe*"},
		{"./other/x.sh a", policy.Deny, "shell.unknown_program"},
	})
}
