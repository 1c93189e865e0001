package policy

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/parser"

	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/shellparse"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		pattern, s string
		want       bool
	}{
		{"git status*", "git status", true},
		{"git status*", "git status --short", true},
		{"rm *", "rm -rf /", true},
		{"rm *", "rmdir x", false},
		{"*", "", true},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"[ab]x", "bx", true},
		{"[!ab]x", "bx", false},
		{"[a-c]x", "cx", true},
		{`\*`, "*", true},
		{`\*`, "x", false},
		{"*.go", "dir/x.go", true},
		{"*a*b*c", "xaybzc", true},
		{"*a*b*c", "xaybz", false},
		{"[", "[", true},
	}
	for _, tt := range tests {
		if got := Glob(tt.pattern, tt.s); got != tt.want {
			t.Errorf("Glob(%q, %q) = %v, want %v", tt.pattern, tt.s, got, tt.want)
		}
	}
}

func TestPathSet(t *testing.T) {
	ps := newPathSet([]string{"~/.ssh/**", "**/.env", "**/*.pem", "/etc/shadow", "out/**", "docs/*.md"}, "/work/repo", "/home/dev")
	tests := []struct {
		arg, cwd string
		want     string
	}{
		{"~/.ssh/id_rsa", "/work/repo", "~/.ssh/**"},
		{"~/.ssh", "/work/repo", "~/.ssh/**"},
		{"~/.sshx", "/work/repo", ""},
		{"/home/dev/.ssh/config", "/", "~/.ssh/**"},
		{"../../home/dev/.ssh/x", "/work/repo", "~/.ssh/**"},
		{".env", "/work/repo", "**/.env"},
		{"/elsewhere/a/.env", "/", "**/.env"},
		{"certs/server.pem", "/work/repo", "**/*.pem"},
		{"/etc/shadow", "/", "/etc/shadow"},
		{"out/a/b.txt", "/work/repo", "out/**"},
		{"docs/a.md", "/work/repo", "docs/*.md"},
		{"docs/x/a.md", "/work/repo", ""},
		{"README.md", "/work/repo", ""},
		{".environment", "/work/repo", ""},
	}
	for _, tt := range tests {
		got, _ := ps.match(ps.resolve(tt.arg, tt.cwd))
		if got != tt.want {
			t.Errorf("match(%q from %s) = %q, want %q", tt.arg, tt.cwd, got, tt.want)
		}
	}
}

func TestInsideAndIsPath(t *testing.T) {
	if !Inside("/a/b/c", "/a/b") || Inside("/a/bc", "/a/b") || !Inside("/a/b", "/a/b/") {
		t.Error("Inside")
	}
	for s, want := range map[string]bool{"a/b": true, "./x": true, "~": true, "x.txt": true, "-f": false, "word": false, ".env": true, "a b/c": false} {
		if IsPath(s) != want {
			t.Errorf("IsPath(%q) = %v", s, !want)
		}
	}
}

func TestAnyOver(t *testing.T) {
	for src, want := range map[string]scriptFields{
		`any(script.assignments, {#.name == "PATH"})`:            fieldAssignments,
		` any(script.commands, {#.name in ["a", ")"]}) `:         fieldCommands,
		`any(script.assignments, {#.name == "x"}) || true`:       0,
		`any(script.assignments, {#.name == "x"}) && len(x) > 0`: 0,
		`len(script.commands) > 3`:                               0,
		`any(script.text, {# == "x"})`:                           0,
		`all(script.commands, {#.name == "x"})`:                  0,
	} {
		tree, err := parser.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := anyOver(tree.Node); got != want {
			t.Errorf("anyOver(%q) = %v, want %v", src, got, want)
		}
	}
}

func TestScriptFieldsOf(t *testing.T) {
	for src, want := range map[string]scriptFields{
		`any(script.commands, {#.name == "x"})`:          fieldCommands,
		`len(script.redirects) > 0 && script.text != ""`: fieldRedirects | fieldScalars,
		`cmd.name == "script.commands"`:                  0,
		`script["commands"] != nil`:                      fieldCommands,
		`script[name] != nil`:                            allScriptFields,
		`let s = script; len(s.commands) > 0`:            allScriptFields,
		`any(script.assignments, {#.name == "PATH"})`:    fieldAssignments,
		`script.unknown == 1`:                            allScriptFields,
	} {
		tree, err := parser.Parse(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := scriptFieldsOf(tree.Node); got != want {
			t.Errorf("scriptFieldsOf(%q) = %b, want %b", src, got, want)
		}
	}
}

func TestClearBelow(t *testing.T) {
	ps := newPathSet([]string{"~/.ssh/**", "**/.env", "/etc/shadow", "/home/*/.aws/**", "/proc/**/environ", "/srv/[ab]/key", "**/.git/config"}, "/home/dev/proj", "/home/dev")
	for dir, want := range map[string]bool{"/home/dev/proj": true, "/home/dev": false, "/": false, "/home/dev/.ssh/x": false, "/tmp": true,
		"/home/dev/proj/.git": false, "/home/dev/proj/.git/hooks": true, "/home/dev/proj/x.git": true,
		"/home": false, "/home/alice": false, "/home/alice/.aws": false, "/home/alice/src": true, "/etc": false, "/etc/shadow": false,
		"/etc/ssh": true, "/proc/1": false, "/srv/a": false, "/srv/c": true, "/srv/a/key/x": true, "/srv/a/other": true} {
		if got := ps.clearBelow(dir); got != want {
			t.Errorf("clearBelow(%s) = %v, want %v", dir, got, want)
		}
	}
}

// TestMayNameNeverHidesAMatch checks the byte filter in front of the base
// name globs against trying every glob, for every kind of name glob.
func TestMayNameNeverHidesAMatch(t *testing.T) {
	globs := [][]string{
		{"**/.env", "**/.env.*", "**/*.pem", "**/id_rsa*"},
		{"**/secret[0-9].txt"},
		{"**/*"},
		{"**/a?c", "**/x"},
		{"**/*.jks", "**/*.tfstate.backup", "**/*s", "**/*.p12"},
		manyNameGlobs(70), // past the 64 the candidate bits can hold
	}
	names := []string{"", ".env", ".env.local", ".environment", "a.pem", "pem", "id_rsa", "id_rsa.pub", "xid_rsa",
		"secret1.txt", "secretx.txt", "abc", "x", "README.md", "-", ".", "m", "i", "a.jks", "jks", "ks", "s",
		"x.tfstate.backup", "backup", "a.p12", "12", "2", "a.JKS", "\xffks", "files"}
	for _, gs := range globs {
		ps := newPathSet(gs, "/w", "/h")
		for _, name := range names {
			want := ""
			for _, g := range ps.names {
				if g.name.match(name) {
					want = g.raw
					break
				}
			}
			if got, _ := ps.matchName(name); got != want {
				t.Errorf("globs %q: matchName(%q) = %q, want %q", gs, name, got, want)
			}
			if got, _ := ps.match("/w/d/" + name); want != "" && got != want {
				t.Errorf("globs %q: match(/w/d/%s) = %q, want %q", gs, name, got, want)
			}
		}
	}
}

// TestBareNameShortcut: for a bare name, secretArg asks only the base-name
// globs; SecretWord, which resolves the word in full, must agree.
func TestBareNameShortcut(t *testing.T) {
	p := &Policy{secret: newPathSet([]string{"~/.ssh/**", "**/.env", "**/.env.*", "**/*.pem", "/etc/shadow", "**/id_rsa*"}, "/w", "/h"), cwd: "/w/sub"}
	p.cwdClear = p.secret.clearBelow(p.cwd)
	if !p.cwdClear {
		t.Fatal("test set-up: /w/sub should hold no anchored secret")
	}
	words := []string{".env", ".env.prod", "a.pem", "id_rsa", "id_rsa.pub", "README.md", "x", "..", "a..b", ".", "...",
		"-", "e", ".envx", "pem", "x.pem.txt", "shadow", ".ssh", "a b", "émoji.pem"}
	for _, w := range words {
		if !shellparse.IsBareName(w) {
			continue
		}
		short, _ := p.secret.matchName(w)
		full, _ := p.SecretWord(w)
		if short != full {
			t.Errorf("%q: base-name globs say %q, SecretWord %q", w, short, full)
		}
	}
	for _, w := range []string{"", "../.env", "~/.ssh", "a/.env", `a\.env`, "HEAD:.env", "..", "a..b"} {
		if shellparse.IsBareName(w) {
			t.Errorf("IsBareName(%q) = true", w)
		}
	}
}

func TestFlagSet(t *testing.T) {
	f := newFlagSet([]string{"-l", "-a", "--color", "-n*", "--format=*"})
	allows := map[string]bool{
		"-l": true, "-la": true, "-al": true, "-lx": false, "-x": false, "-n5": true, "-ln": true,
		"--color": true, "--color=auto": true, "--colour": false, "--format=x": true, "--format": false,
	}
	for tok, want := range allows {
		if got := f.allows(tok); got != want {
			t.Errorf("allows(%q) = %v, want %v", tok, got, want)
		}
	}
	d := newFlagSet([]string{"-f", "--force", "-i*"})
	denies := map[string]string{"-f": "-f", "-rf": "-f", "-r": "", "--force": "--force", "--force=yes": "--force", "--forced": "", "-i.bak": "-i*"}
	for tok, want := range denies {
		if got, _ := d.denies(tok); got != want {
			t.Errorf("denies(%q) = %q, want %q", tok, got, want)
		}
	}
	var none *flagSet
	if !none.allows("-anything") {
		t.Error("a nil set allows every flag")
	}
}

// scanAll is match without the top-folder index: every glob, in order.
func (ps *pathSet) scanAll(abs string) string {
	split := strings.Split(abs, "/")
	for _, g := range ps.globs {
		switch {
		case g.base != "":
			if g.name.match(path.Base(abs)) {
				return g.raw
			}
		case g.anywhere != nil:
			for i := range split {
				if matchSegments(g.anywhere, split[i:]) {
					return g.raw
				}
			}
		case matchSegments(g.segs, split):
			return g.raw
		}
	}
	return ""
}

func TestPathSetTopIndex(t *testing.T) {
	globs := append([]string{"out/**", "docs/*.md", "/*/secret", "/etc", "**/a/b", "C:/Users/*/x"}, recipe.SecretPaths...)
	ps := newPathSet(globs, "/work/repo", "/home/dev")
	paths := []string{"/", "/etc", "/etc/shadow", "/etc/ssh/ssh_host_rsa_key", "/etc/passwd", "/home/dev/.ssh/id_rsa",
		"/home/dev/.ssh", "/home/alice/.aws/credentials", "/home/dev/src/a.go", "/work/repo/out/x/y", "/work/repo/docs/a.md",
		"/work/repo/.env", "/x/secret", "/proc/1/environ", "/proc/self/root/etc/x", "/proc/self/cwd/../.aws/credentials",
		"/dev/mem", "/tmp/a/b", "/Users/bob/.ssh/config", "C:/Users/bob/x", "/root/.ssh/authorized_keys",
		"/home/dev/.local/state/rein/rein.db", "/usr/share/key.pem", "/srv/id_rsa.pub"}
	for _, p := range paths {
		got, _ := ps.match(p)
		if want := ps.scanAll(p); got != want {
			t.Errorf("match(%q) = %q, every glob in order gives %q", p, got, want)
		}
	}
}

func TestParseGuards(t *testing.T) {
	tests := []struct {
		src   string
		names string // sorted, comma-joined
		sub   string
		flags int
		pos   int
		env   bool
	}{
		{`cmd.name == "git" && cmd.sub == "config" && !hasFlag(cmd, "--get")`, "git", "config", 0, -1, false},
		{`cmd.name in ["awk", "gawk"] && (hasFlag(cmd, "-f") || any(cmd.positionals, {# contains "x"}))`, "awk,gawk", "", 0, -1, false},
		{`cmd.name == "rm" && hasFlag(cmd, "-r", "-R") && any(cmd.positionals, {# in ["/"]})`, "rm", "", 1, -1, false},
		{`cmd.name == "uniq" and len(cmd.positionals) > 1`, "uniq", "", 0, 1, false},
		{`len(cmd.env) > 0 && any(keys(cmd.env), {# startsWith "LD_"})`, "", "", 0, -1, true},
		{`cmd.name == "git" && cmd.sub == "push" || cmd.name == "curl"`, "", "", 0, -1, false},
		{`cmd.name == "nc" ? true : false`, "", "", 0, -1, false},
		{`cmd.name == "x" && cmd.args | any(# == "y")`, "", "", 0, -1, false},
		{`cmd.name == "x" && cmd.sub ?? "y" == "z"`, "", "", 0, -1, false},
		{`cmd.name in ["a", other] && true`, "", "", 0, -1, false},
		{`any(cmd.args, {# == "a" || # == "b"}) && cmd.name == "x"`, "", "", 0, -1, false},
		{`cmd.name == "a&&b" && cmd.sub == "c||d"`, "a&&b", "c||d", 0, -1, false},
		{`cmd?.name == "x"`, "", "", 0, -1, false},
		{`operator == "x" && cmd.name == "y"`, "", "", 0, -1, false},
		{`cmd.name=="x"&&cmd.sub=="y"`, "x", "y", 0, -1, false},
		{`cmd.names == "x"`, "", "", 0, -1, false},
		{`cmd.name == "x" && len(cmd.env) >= 0`, "x", "", 0, -1, false},
		{`cmd.name == "x" && hasFlag(cmd) && y`, "x", "", 0, -1, false},
		{`cmd.name == "x" && len(cmd.positionals) > 1000000`, "x", "", 0, 1000000, false},
		{`cmd.name == "x\"y"`, `x"y`, "", 0, -1, false},
		{`cmd.name inside ["x"]`, "", "", 0, -1, false},
		{`cmd.name in ["x",]`, "x", "", 0, -1, false},
		{`"git" == cmd.name && "config" == cmd.sub`, "git", "config", 0, -1, false},
		// Shapes a reading of the text could get wrong; expr's tree does not.
		{`cmd.name == "x" && true; cmd.name == "rm"`, "", "", 0, -1, false},
		{`cmd.name == "rm" // && cmd.name == "x"`, "rm", "", 0, -1, false},
		{`cmd.name == "a" && any(cmd.args, {let y = #; y == "b"}) && cmd.sub == "c"`, "a", "", 0, -1, false},
		{"cmd.name == `a&&b` && cmd.sub == \"x\"", "a&&b", "x", 0, -1, false},
		{`(cmd.name == "a" || cmd.name == "b") && cmd.sub == "c"`, "", "", 0, -1, false},
		{`cmd.name == "a" ?? false`, "", "", 0, -1, false},
		{`cmd.name == "a" && cmd.sub == "b" | len() > 0`, "", "", 0, -1, false},
	}
	for _, tt := range tests {
		g := parseGuards(tt.src)
		var names []string
		for n := range g.names {
			names = append(names, n)
		}
		slices.Sort(names)
		if strings.Join(names, ",") != tt.names || g.sub != tt.sub || len(g.flags) != tt.flags || g.positionals != tt.pos || g.env != tt.env {
			t.Errorf("parseGuards(%s) = names %v sub %q flags %v positionals %d env %v", tt.src, names, g.sub, g.flags, g.positionals, g.env)
		}
	}
	// What is left for the VM once the guards pass.
	for src, rest := range map[string]string{
		`cmd.name == "git" && cmd.sub == "config" && !hasFlag(cmd, "--get")`: `(!hasFlag(cmd, "--get"))`,
		`cmd.name == "date"`:                                                         "",
		`cmd.name == "uniq" and len(cmd.positionals) > 1`:                            "",
		`len(cmd.env) > 0 && any(keys(cmd.env), {# == "A"}) && cmd.name == "x"`:      `(any(keys(cmd.env), # == "A")) && (cmd.name == "x")`,
		`cmd.name == "x" && (cmd.sub == "a" || cmd.sub == "b") && len(cmd.args) > 2`: `(cmd.sub == "a" || cmd.sub == "b") && (len(cmd.args) > 2)`,
		`any(cmd.args, {# == "a" && # == "b"}) && cmd.name == "x"`:                   "",
		`cmd.name == "git" && cmd.sub == "push" || cmd.name == "curl"`:               "",
	} {
		g := parseGuards(src)
		if g.rest != rest {
			t.Errorf("parseGuards(%s).rest = %q, want %q", src, g.rest, rest)
		}
		// What the guards leave must compile alone, as the VM runs it.
		if g.rest != "" {
			if _, err := expr.Compile(g.rest, exprOptions...); err != nil {
				t.Errorf("parseGuards(%s).rest does not compile: %v", src, err)
			}
		}
	}
}

// manyNameGlobs are n base-name globs, the last ones matching names the
// test tries.
func manyNameGlobs(n int) []string {
	out := make([]string, 0, n)
	for i := 0; i < n-3; i++ {
		out = append(out, fmt.Sprintf("**/name%d", i))
	}
	return append(out, "**/*.pem", "**/id_rsa*", "**/x")
}

// The subcommands a rule's first unguarded conjunct can hold for: only
// where every way it can be true names them.
func TestSubsGuard(t *testing.T) {
	for src, want := range map[string]string{
		`cmd.name == "git" && (cmd.sub == "reset" && hasFlag(cmd, "--hard") || cmd.sub in ["checkout", "switch"] && x || cmd.sub == "stash" && y)`: "checkout,reset,stash,switch",
		`cmd.name == "git" && (cmd.sub == "a" or (cmd.sub == "b" && x) or (y && cmd.sub in ["c"]))`:                                                "a,b,c",
		`cmd.name == "git" && (cmd.sub == "reset" || hasFlag(cmd, "-f"))`:                                                                          "",
		`cmd.name == "git" && (cmd.sub == "reset" || cmd.name == "x")`:                                                                             "",
		`cmd.name == "git" && (cmd.sub != "reset" || cmd.sub == "x")`:                                                                              "",
		`cmd.name == "git" && !(cmd.sub == "reset" || cmd.sub == "x")`:                                                                             "",
		`cmd.name == "git" && cmd.sub in [other, "x"] && y`:                                                                                        "",
		`cmd.name == "git" && cmd.sub == "push" && (x || y)`:                                                                                       "",
	} {
		g := parseGuards(src)
		subs := slices.Sorted(maps.Keys(g.subs))
		if got := strings.Join(subs, ","); got != want {
			t.Errorf("parseGuards(%s).subs = %q, want %q", src, got, want)
		}
	}
}
