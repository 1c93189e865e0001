package policy_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/recipes"
)

const customRecipe = `
local rein = import 'rein.libsonnet';
{
  commands: [
    rein.command('./scripts/analyze-logs.sh <log_file>', 'Analyze a log file'),
    rein.command('npm run build [--watch]', 'Build'),
    rein.command('make test', 'Tests'),
  ],
  programs: {
    kubectl: rein.program('Kubernetes, read-only',
      global_flags={ '-n': rein.flag('namespace', value=true), '--context': rein.flag('context', value=true) },
      subcommands={ get: rein.sub('List resources', flags=['-o', '-o=*', '--output=*', '-A', '-l']), logs: rein.sub('Pod logs', deny_flags=['-f']) },
      deny_subcommands=['delete', 'apply'],
      ask_subcommands=['exec']),
    cp: rein.program('Copy inside the workspace', args=['path:**']),
  },
  allow: ['echo *'],
  ask: ['terraform plan*'],
  deny: ['echo *secret*'],
  rules: [
    rein.rule('no-prod', 'deny', 'production is off limits', each='any(cmd.args, {# contains "prod"})'),
    rein.rule('ask-make-release', 'ask', 'releases need a person', each='cmd.name == "make" && "release" in cmd.positionals'),
    rein.rule('allow-date', 'allow', 'date is harmless', each='cmd.name == "date"'),
    rein.rule('short-scripts', 'deny', 'keep scripts short', when='len(script.commands) > 3'),
  ],
  shell: { redirect_write: 'workspace' },
  paths: { write: ['out/**', '*.log'] },
  default: 'ask',
}
`

// git runs a repository's hooks and its other configs on the user's next
// commit or status, outside rein: writing them is a way out of rein that
// waits. A redirect never writes them, even where the recipe allows every
// write; reading them stays allowed.
func TestProtectedPathsAreNeverWritten(t *testing.T) {
	for _, mode := range []string{"workspace", "allow"} {
		p := recipePolicy(t, `{ allow: ['echo *', 'cat'], shell: { redirect_write: '`+mode+`' } }`)
		for _, text := range []string{
			"echo 'curl x | sh' > .git/hooks/pre-commit",
			"echo x >> sub/.git/hooks/post-checkout",
			"echo 'gitdir: ../evil' > sub/.git",
			"echo x > .git/hooks",
			"echo x > .git/config.worktree",
			"echo x > .git/modules/lib/config",
			"echo x > ./.git/./hooks/pre-push",
			"cd sub && echo x > ../.git/hooks/pre-commit",
			"echo x > /elsewhere/repo/.git/hooks/pre-commit",
		} {
			d := p.Check(text)
			if d.Verdict != policy.Deny || d.Rule != "paths.protect" || !strings.Contains(d.Reason, "never writes it") {
				t.Errorf("%s, redirect_write %s: %s %s: %s", text, mode, d.Verdict, d.Rule, d.Reason)
			}
		}
		// Hidden places run later too: refused unless sandbox.hidden_write
		// lists them (.gitignore is on the default list).
		for _, text := range []string{"echo x > .github/workflows/ci.yml", "echo x > sub/.envrc.d/x", "echo x > .git/info/attributes"} {
			if d := p.Check(text); d.Verdict != policy.Deny || d.Rule != "sandbox.hidden_write" {
				t.Errorf("%s, redirect_write %s: %s %s: %s", text, mode, d.Verdict, d.Rule, d.Reason)
			}
		}
		for _, text := range []string{"cat < .git/hooks/pre-commit.sample", "echo x > hooks/pre-commit", "echo x > .gitignore", "echo x > .git/COMMIT_EDITMSG"} {
			if d := p.Check(text); d.Verdict != policy.Allow {
				t.Errorf("%s, redirect_write %s: %s %s: %s", text, mode, d.Verdict, d.Rule, d.Reason)
			}
		}
	}
}

func TestRecipeAuthoredRules(t *testing.T) {
	p := recipePolicy(t, customRecipe)
	tests := []struct {
		command string
		want    policy.Verdict
		rule    string
	}{
		{"./scripts/analyze-logs.sh logs/app.log", policy.Allow, "commands: ./scripts/analyze-logs.sh <log_file>"},
		{"./scripts/analyze-logs.sh", policy.Ask, "default"},
		{"npm run build", policy.Allow, "commands: npm run build [--watch]"},
		{"npm run build --watch", policy.Allow, "commands: npm run build [--watch]"},
		{"npm run lint", policy.Ask, "default"},
		{"make test -j4", policy.Allow, "commands: make test"},
		{"kubectl get pods -o wide", policy.Allow, "programs.kubectl"},
		{"kubectl -n kube-system get pods", policy.Allow, "programs.kubectl"},
		{"kubectl --context=dev get pods", policy.Allow, "programs.kubectl"},
		{"kubectl get pods --watch", policy.Ask, "default"},
		{"kubectl delete pod x", policy.Deny, "programs.kubectl.deny_subcommands"},
		{"kubectl -n x delete pod y", policy.Deny, "programs.kubectl.deny_subcommands"},
		{"kubectl logs -f pod", policy.Deny, "programs.kubectl.subcommands.logs.deny_flags"},
		{"kubectl exec -it pod -- sh", policy.Ask, "programs.kubectl.subcommands.exec"},
		{"kubectl --kubeconfig=/x get pods", policy.Ask, "default"},
		{"cp a.txt b.txt", policy.Allow, "programs.cp"},
		{"cp a.txt /etc/passwd", policy.Ask, "default"},
		{"cp ../x .", policy.Deny, "paths.scope"},
		{"echo hello", policy.Allow, "allow: echo *"},
		{"echo my secret", policy.Deny, "deny: echo *secret*"},
		{"terraform plan -out x", policy.Ask, "ask: terraform plan*"},
		{"kubectl get pods -n prod", policy.Deny, "no-prod"},
		{"make release", policy.Ask, "ask-make-release"},
		{"date", policy.Allow, "allow-date"},
		{"date; date; date; date", policy.Deny, "short-scripts"},
		{"echo hi > out/report.txt", policy.Allow, ""},
		{"echo hi > build.log", policy.Allow, ""},
		{"echo hi > src/main.go", policy.Deny, "shell.redirect_write"},
		{"echo hi > /tmp/x", policy.Deny, "shell.redirect_write"},
		{"echo hi > ../x", policy.Deny, "shell.redirect_write"},
		{"echo hi > $f", policy.Deny, "shell.redirect_write"},
		{"frobnicate", policy.Ask, "shell.unknown_program"},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			d := p.Check(tt.command)
			if d.Verdict != tt.want || tt.rule != "" && d.Rule != tt.rule {
				t.Errorf("got %s by %q (%s), want %s by %q", d.Verdict, d.Rule, d.Reason, tt.want, tt.rule)
			}
		})
	}
}

func TestRuleCompileErrors(t *testing.T) {
	tests := []struct {
		name, rule, want string
	}{
		{"unknown field", `rein.rule('typo', 'deny', 'x', each='cmd.nmae == "rm"')`, `rule "typo": each:1:`},
		{"not boolean", `rein.rule('nonbool', 'deny', 'x', each='cmd.name')`, `rule "nonbool": each:1:1`},
		{"syntax", `rein.rule('syntax', 'deny', 'x', when='len(script.commands >')`, `rule "syntax": when:1:`},
		{"wrong helper arity", `rein.rule('arity', 'deny', 'x', each='glob("a")')`, `rule "arity"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadRecipeText(t, "local rein = import 'rein.libsonnet';\n{ rules: [\n  "+tt.rule+",\n] }\n")
			if err == nil {
				t.Fatal("want an error")
			}
			var re *policy.RuleError
			if !errors.As(err, &re) {
				t.Fatalf("error %T %v is not a RuleError", err, err)
			}
			if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "rein.jsonnet:3:") {
				t.Errorf("error %q lacks %q or the rule's file:line:col", err, tt.want)
			}
		})
	}
}

func TestRuleHelpers(t *testing.T) {
	p := recipePolicy(t, `
local rein = import 'rein.libsonnet';
{
  allow: ['*'],
  rules: [
    rein.rule('glob', 'deny', 'g', each='len(cmd.positionals) > 0 && glob("*.tmp", cmd.positionals[0])'),
    rein.rule('flag', 'deny', 'f', each='hasFlag(cmd, "-x", "--extreme")'),
    rein.rule('inside', 'deny', 'i', each='cmd.name == "cat" && any(cmd.positionals, {isPath(#) && !inside(#, workspace)})'),
    rein.rule('via', 'deny', 'v', each='"xargs" in cmd.via'),
    rein.rule('tool', 'ask', 't', each='tool == "check" && cmd.name == "deploy"'),
    rein.rule('redirect', 'deny', 'r', when='any(script.redirects, {#.write && #.target endsWith ".lock"})'),
    rein.rule('output', 'deny', 'o', each='cmd.name == "sort" && any(flagValues(cmd, "-o", "--output"), {!mayWrite(cmd, #)})'),
    rein.rule('abspath', 'deny', 'a', each='cmd.name == "head" && any(cmd.positionals, {!inside(absPath(cmd, #), workspace)})'),
    rein.rule('script-abspath', 'deny', 's', when='any(script.commands, {let c = #; c.name == "tail" && any(c.positionals, {absPath(c, #) == "/etc/passwd"})})'),
  ],
  shell: { redirect_write: 'allow' },
  paths: { write: ['**'], scope: 'anywhere' },
}`)
	tests := []struct {
		command string
		want    policy.Verdict
		rule    string
	}{
		{"rm a.tmp", policy.Deny, "glob"},
		{"ls -lx", policy.Deny, "flag"},
		{"ls --extreme=1", policy.Deny, "flag"},
		{"cat /etc/hosts", policy.Deny, "inside"},
		{"ls | xargs echo", policy.Deny, "via"},
		{"deploy", policy.Ask, "tool"},
		{"echo > x.lock", policy.Deny, "redirect"},
		{"echo > x.txt", policy.Allow, ""},
		{"sort -o out.txt in.txt", policy.Allow, ""},
		{"sort -o sub/../out.txt in.txt", policy.Allow, ""},
		{"sort -uo /etc/motd in.txt", policy.Deny, "output"},
		{"sort --out=../elsewhere in.txt", policy.Deny, "output"},
		{"sort -o .git/hooks/pre-commit in.txt", policy.Deny, "output"},
		{"sort -o .env in.txt", policy.Deny, ""}, // a secret path, whatever the rules say
		{"sort -o ~/x in.txt", policy.Deny, "output"},
		{"cd /tmp && sort -o out.txt in.txt", policy.Deny, "output"},
		{"head README.md src/a.go", policy.Allow, ""},
		{"head ../x", policy.Deny, "abspath"},
		{"cd sub && head ../README.md", policy.Allow, ""},
		{"cd sub && head ../../x", policy.Deny, "abspath"},
		{"tail /etc/passwd", policy.Deny, "script-abspath"},
		{"cd /etc && tail passwd", policy.Deny, "script-abspath"},
		{"tail passwd", policy.Allow, ""},
	}
	for _, tt := range tests {
		d := p.Check(tt.command)
		if d.Verdict != tt.want || tt.rule != "" && d.Rule != tt.rule {
			t.Errorf("%q: got %s by %q, want %s by %q", tt.command, d.Verdict, d.Rule, tt.want, tt.rule)
		}
	}
}

func TestRuleFailingAtRunTimeDenies(t *testing.T) {
	p := recipePolicy(t, `
local rein = import 'rein.libsonnet';
{ allow: ['*'], rules: [rein.rule('fragile', 'ask', 'x', each='cmd.positionals[0] == "y"')] }`)
	d := p.Check("ls")
	if d.Verdict != policy.Deny || d.Rule != "fragile" || !strings.Contains(d.Reason, "rule failed at run time") {
		t.Errorf("got %s by %s: %s", d.Verdict, d.Rule, d.Reason)
	}
}

// With RulesChecked, rules compile when first needed; decisions are the
// same as with every rule compiled up front.
func TestLazyRulesDecideTheSame(t *testing.T) {
	r, err := recipe.Load(recipe.Options{Dir: recipeDir(t, customRecipe), CacheDir: "-", UserFile: "-", Verify: policy.CheckRules})
	if err != nil || !r.Verified {
		t.Fatalf("verified=%v %v", r != nil && r.Verified, err)
	}
	eager, err := policy.New(r, policy.Options{Home: "/home/dev"})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := policy.New(r, policy.Options{Home: "/home/dev", RulesChecked: true})
	if err != nil {
		t.Fatal(err)
	}
	commands := []string{"kubectl get pods -n prod", "make release", "date; date; date; date", "date", "echo hi > build.log", "ls", "true"}
	for _, c := range readonlyDenied {
		commands = append(commands, c.command)
	}
	for _, cmd := range commands {
		e, l := eager.Check(cmd), lazy.Check(cmd)
		if e.Verdict != l.Verdict || e.Rule != l.Rule {
			t.Errorf("%s: eager %s by %s, lazy %s by %s", cmd, e.Verdict, e.Rule, l.Verdict, l.Rule)
		}
	}
}

// A caller that claims the rules were checked when they were not gets a
// denial from the broken rule, never an allow.
func TestLazyBrokenRuleFailsClosed(t *testing.T) {
	text := "local rein = import 'rein.libsonnet';\n{ allow: ['*'], rules: [ rein.rule('typo', 'deny', 'x', each='cmd.name == \"rm\" && cmd.nmae == \"x\"') ] }\n"
	r, p := lazyPolicy(t, text)
	if err := policy.CheckRules(r); err == nil {
		t.Fatal("CheckRules passed a broken rule")
	}
	if d := p.Check("ls"); d.Verdict != policy.Allow {
		t.Errorf("ls (the rule does not apply): %s by %s", d.Verdict, d.Rule)
	}
	if d := p.Check("rm x"); d.Verdict != policy.Deny || d.Rule != "typo" || !strings.Contains(d.Reason, "does not compile") {
		t.Errorf("rm x: %s by %s (%s), want a denial by the broken rule", d.Verdict, d.Rule, d.Reason)
	}
}

// A rule's leading cmd.name test lets other commands skip it only when the
// whole rule needs it: after || or in a ternary it guards nothing.
func TestRuleGuardsRespectOr(t *testing.T) {
	p := recipePolicy(t, `
local rein = import 'rein.libsonnet';
{
  allow: ['*'],
  rules: [
    rein.rule('or', 'deny', 'o', each='cmd.name == "git" && cmd.sub == "push" || cmd.name == "curl"'),
    rein.rule('or-words', 'deny', 'w', each='cmd.name in ["scp"] and hasFlag(cmd, "-r") or cmd.name == "wget"'),
    rein.rule('ternary', 'deny', 't', each='cmd.name == "nc" ? true : cmd.name == "telnet"'),
    rein.rule('env-or', 'deny', 'e', each='len(cmd.env) > 0 && cmd.env["X"] == "1" || cmd.name == "ftp"'),
    rein.rule('and', 'deny', 'a', each='cmd.name == "rsync" && cmd.sub == "x"'),
    // A sequence is worth its last expression; a comment hides what it holds.
    rein.rule('seq', 'deny', 's', each='cmd.name == "x" && true; cmd.name == "rm"'),
    rein.rule('let', 'deny', 'l', each='let n = cmd.name; n == "shred"'),
    rein.rule('comment', 'deny', 'c', each='cmd.name == "dd" // && cmd.name == "x"'),
    rein.rule('block', 'deny', 'b', each='cmd.name == "mkfs" /* && cmd.name == "x" */'),
  ],
}`)
	for cmd, rule := range map[string]string{"git push": "or", "curl x": "or", "scp -r a b": "or-words", "wget x": "or-words",
		"nc x": "ternary", "telnet x": "ternary", "ftp x": "env-or", "X=1 ls": "env-or", "rsync x": "and",
		"rm x": "seq", "shred x": "let", "dd if=x": "comment", "mkfs x": "block"} {
		if d := p.Check(cmd); d.Verdict != policy.Deny || d.Rule != rule {
			t.Errorf("%q: %s by %q, want deny by %q", cmd, d.Verdict, d.Rule, rule)
		}
	}
	for _, cmd := range []string{"git status", "scp a b", "rsync y", "ls"} {
		if d := p.Check(cmd); d.Verdict != policy.Allow {
			t.Errorf("%q: %s by %q, want allow", cmd, d.Verdict, d.Rule)
		}
	}
}

// TestGuardsDecideAsRules: the name index and the guards run in Go must
// decide every corpus command exactly as running each rule in full, under
// every preset.
func TestGuardsDecideAsRules(t *testing.T) {
	lines := corpusOr(t, append(append([]string{"rm -rf /", "rm x", "uniq a b", "uniq a", "git config user.name x", "git config --get x",
		"X=1 ls", "LANG=C ls", "awk '{system(\"x\")}' f", "awk -f p f", "sed -i s/a/b/ f", "sed -n 1p f", "find . -delete",
		"git reset --hard", "git reset x", "git stash drop", "git stash list", "git checkout -f x", "git switch x", "git restore x",
		"git restore -S x", "git branch -D x", "git clean -f", "git status", "git -C . reset --hard", "git push -f", "git push"},
		readonlyAllowed...), deniedCommands()...))
	for _, preset := range recipes.Presets {
		r, p := presetRecipe(t, preset, "")
		u := p.Unguarded()
		// The preset's own tests exercise its rules.
		own := slices.Concat(r.Tests.Allow, r.Tests.Ask, r.Tests.Deny)
		for _, l := range slices.Concat(lines, own) {
			if got, want := decisionJSON(t, p.Check(l)), decisionJSON(t, u.Check(l)); got != want {
				t.Fatalf("%s: %q decides\n%s\nbut its rules in full give\n%s", preset, l, got, want)
			}
		}
	}
}

// cmd.sub is the first positional for a program whose rules name no
// subcommands (a rule on ruff format never fired: its sub was empty), and
// a program with only ask_subcommands asks for them (it allowed them).
func TestSubcommandsOfProgramsWithoutSubcommandRules(t *testing.T) {
	p := recipePolicy(t, `
local rein = import 'rein.libsonnet';
{
  programs: {
    fmt: rein.program('formatter'),
    tool: rein.program('a tool', ask_subcommands=['danger'], args=['*']),
    kit: rein.program('a kit', global_flags={ '-v': rein.flag('verbose') }, deny_subcommands=['nuke'], ask_subcommands=['danger']),
  },
  rules: [rein.rule('fmt-writes', 'ask', 'fmt format writes files', each='cmd.name == "fmt" && cmd.sub == "format"')],
}`)
	for text, want := range map[string]policy.Verdict{
		"fmt format .":      policy.Ask,
		"fmt -q format .":   policy.Ask,
		"fmt check .":       policy.Allow,
		"tool danger x":     policy.Ask,
		"tool safe x":       policy.Allow,
		"kit -v danger":     policy.Ask,
		"kit nuke":          policy.Deny,
		"kit -v other":      policy.Allow,
		"kit --bogus other": policy.Deny,
	} {
		if d := p.Check(text); d.Verdict != want {
			t.Errorf("%s: %s by %s (%s), want %s", text, d.Verdict, d.Rule, d.Reason, want)
		}
	}
}

// A name guard whose pattern does not compile lets every name through to
// its rule, whose compile error denies: no panic, no silent allow.
func TestLazyBrokenNamePatternFailsClosed(t *testing.T) {
	text := "local rein = import 'rein.libsonnet';\n{ allow: ['*'], rules: [ rein.rule('bad-re', 'ask', 'x', each='cmd.name matches \"^(rm\" && len(cmd.args) > 0') ] }\n"
	_, p := lazyPolicy(t, text)
	for _, c := range []string{"rm x", "ls"} {
		if d := p.Check(c); d.Verdict != policy.Deny || d.Rule != "bad-re" || !strings.Contains(d.Reason, "does not compile") {
			t.Errorf("%s: %s by %s (%s), want a denial by the broken rule", c, d.Verdict, d.Rule, d.Reason)
		}
	}
}

// A rule's mistyped field is answered with the one meant, and the list.
func TestRuleFieldTypo(t *testing.T) {
	_, err := loadRecipeText(t, `local rein = import 'rein.libsonnet'; { rules: [rein.rule('x', 'deny', 'y', each='cmd.arg == ""')] }`)
	if err == nil || !strings.Contains(err.Error(), "has no field arg; did you mean args?; the fields are name, path, argv, args") {
		t.Errorf("%v", err)
	}
}

// A recipe's tools.NAME: 'ask' and a run's --confirm-commands make every
// allowed command of that tool an ask, decided here with the rule that says
// so: the tool set only asks. execute_command follows run_command unless the
// recipe names it; the runner's own decisions (no tool) are not asked again.
func TestConfirmedTools(t *testing.T) {
	p := recipePolicy(t, `{ allow: ['ls*', 'rm*'], deny: ['rm*'], tools: { run_command: 'ask' } }`)
	for _, c := range []struct {
		tool, command string
		verdict       policy.Verdict
		rule          string
	}{
		{"run_command", "ls", policy.Ask, "tools.run_command"},
		{"run_command", "rm x", policy.Deny, "deny: rm*"},
		{"execute_command", "ls", policy.Ask, "tools.run_command"},
		{"", "ls", policy.Allow, "allow: ls*"},
	} {
		d := p.Decide(policy.Facts{Text: c.command, Tool: c.tool})
		if d.Verdict != c.verdict || d.Rule != c.rule {
			t.Errorf("%s %q: %s by %q, want %s by %q", c.tool, c.command, d.Verdict, d.Rule, c.verdict, c.rule)
		}
	}
}

// A recipe that confirms run_command but lets execute_command run says so.
func TestConfirmedToolsExecuteCommandOwnSetting(t *testing.T) {
	p := recipePolicy(t, `{ allow: ['ls*'], tools: { run_command: 'ask', execute_command: true } }`)
	if d := p.Decide(policy.Facts{Text: "ls", Tool: "execute_command"}); d.Verdict != policy.Allow {
		t.Errorf("execute_command set on its own: %s by %q", d.Verdict, d.Rule)
	}
}
