package policy_test

import (
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/policy"
)

// macOS and Windows open .env as .ENV and ~/.ssh as ~/.SSH: there secret
// paths match whatever the case. (On Linux those are other files.)
func TestSecretsIgnoreCaseWhereFilesDo(t *testing.T) {
	p := anywherePolicy(t, "readonly")
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
	p := anywherePolicy(t, "readonly")
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
