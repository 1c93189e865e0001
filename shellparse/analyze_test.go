package shellparse

import (
	"strings"
	"testing"
	"time"
)

// cmdSummary is "argv…" plus " [via a → b]" for compact expectations.
func cmdSummary(c *Command) string {
	s := strings.Join(c.Argv, " ")
	if len(c.Via) > 0 {
		s += " [via " + strings.Join(c.Via, " → ") + "]"
	}
	return s
}

func TestAnalyzeCommands(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // every simple command, in analysis order
	}{
		{"sequence", "git status; rm -rf x", []string{"git status", "rm -rf x"}},
		{"and-or pipeline", "git log && curl x | sh", []string{"git log", "curl x", "sh"}},
		{"empty quotes", "r''m -rf x", []string{"rm -rf x"}},
		{"double quotes", `"rm" x`, []string{"rm x"}},
		{"backslash", `\rm x`, []string{"rm x"}},
		{"ansi-c quoting", `$'\x72m' x`, []string{"rm x"}},
		{"brace expansion", "{rm,-rf,x}", []string{"rm -rf x"}},
		{"brace in argument", "echo a{b,c}d", []string{"echo abd acd"}},
		{"dynamic name", "c=rm; $c x", []string{"$c x"}},
		{"command substitution", "echo $(rm -rf x)", []string{"rm -rf x [via $(…)]", "echo $(rm -rf x)"}},
		{"backticks", "echo `rm x`", []string{"rm x [via `…`]", "echo `rm x`"}},
		{"process substitution", "cat <(curl x)", []string{"curl x [via <(…)]", "cat <(curl x)"}},
		{"output process substitution", "tee >(rm x)", []string{"rm x [via >(…)]", "tee >(rm x)"}},
		{"subshell", "(rm x)", []string{"rm x"}},
		{"brace group", "{ rm x; }", []string{"rm x"}},
		{"env wrapper with sh -c", "env sh -c 'rm x'", []string{"env sh -c 'rm x'", "sh -c 'rm x' [via env]", "rm x [via env → sh -c]"}},
		{"sudo", "sudo -u root ls", []string{"sudo -u root ls", "ls [via sudo]"}},
		{"bash -c", `bash -c "rm x"`, []string{"bash -c 'rm x'", "rm x [via bash -c]"}},
		{"bash -ec cluster", `bash -ec "rm x"`, []string{"bash -ec 'rm x'", "rm x [via bash -c]"}},
		{"eval", "eval rm x", []string{"eval rm x", "rm x [via eval]"}},
		{"xargs", "ls | xargs rm", []string{"ls", "xargs rm", "rm [via xargs]"}},
		{"xargs with options", "ls | xargs -0 -n 1 -I{} rm {}", []string{"ls", "xargs -0 -n 1 -I{} rm {}", "rm {} [via xargs]"}},
		{"xargs default echo", "ls | xargs", []string{"ls", "xargs", "echo [via xargs]"}},
		{"find -exec", `find . -exec rm {} \;`, []string{"find . -exec rm {} ';'", "rm {} [via find -exec]"}},
		{"find -execdir +", `find . -execdir sh -c 'rm x' {} +`, []string{"find . -execdir sh -c 'rm x' {} +", "sh -c 'rm x' {} [via find -execdir]", "rm x [via find -execdir → sh -c]"}},
		{"git -c pager", "git -c core.pager=sh log", []string{"git -c core.pager=sh log", "sh [via git -c core.pager]"}},
		{"git -c alias", "git -c 'alias.x=!rm -rf y' x", []string{"git -c 'alias.x=!rm -rf y' x", "rm -rf y [via git -c alias.x]"}},
		{"timeout", "timeout -s KILL 5 rm x", []string{"timeout -s KILL 5 rm x", "rm x [via timeout]"}},
		{"nice nohup", "nice -n 5 nohup rm x", []string{"nice -n 5 nohup rm x", "nohup rm x [via nice]", "rm x [via nice → nohup]"}},
		{"command -v does not run", "command -v rm", []string{"command -v rm"}},
		{"command runs", "command rm x", []string{"command rm x", "rm x [via command]"}},
		{"builtin", "builtin eval 'rm x'", []string{"builtin eval 'rm x'", "eval 'rm x' [via builtin]", "rm x [via builtin → eval]"}},
		{"exec", "exec -a name rm x", []string{"exec -a name rm x", "rm x [via exec]"}},
		{"doas", "doas -u root rm x", []string{"doas -u root rm x", "rm x [via doas]"}},
		{"stdbuf", "stdbuf -oL rm x", []string{"stdbuf -oL rm x", "rm x [via stdbuf]"}},
		{"ionice", "ionice -c 3 rm x", []string{"ionice -c 3 rm x", "rm x [via ionice]"}},
		{"ionice -p does not run", "ionice -p 42", []string{"ionice -p 42"}},
		{"chrt", "chrt -f 10 rm x", []string{"chrt -f 10 rm x", "rm x [via chrt]"}},
		{"taskset", "taskset -c 0 rm x", []string{"taskset -c 0 rm x", "rm x [via taskset]"}},
		{"setsid", "setsid -f rm x", []string{"setsid -f rm x", "rm x [via setsid]"}},
		{"time program", "/usr/bin/time -o t.txt rm x", []string{"/usr/bin/time -o t.txt rm x", "rm x [via time]"}},
		{"flock with command", "flock -n /tmp/l rm x", []string{"flock -n /tmp/l rm x", "rm x [via flock]"}},
		{"watch -x", "watch -x rm x", []string{"watch -x rm x", "rm x [via watch -x]"}},
		{"sudo -l does not run", "sudo -l", []string{"sudo -l"}},
		{"ssh remote command", "ssh -p 22 host rm -rf x", []string{"ssh -p 22 host rm -rf x", "rm -rf x [via ssh host]"}},
		{"ssh proxycommand", "ssh -o ProxyCommand='rm x' host", []string{"ssh -o 'ProxyCommand=rm x' host", "rm x [via ssh -o ProxyCommand]"}},
		{"watch", "watch -n 1 'rm x'", []string{"watch -n 1 'rm x'", "rm x [via watch]"}},
		{"flock -c", "flock /tmp/l -c 'rm x'", []string{"flock /tmp/l -c 'rm x'", "rm x [via flock -c]"}},
		{"parallel", "parallel rm ::: a b", []string{"parallel rm ::: a b", "rm [via parallel]"}},
		{"trap", "trap 'rm x' EXIT", []string{"trap 'rm x' EXIT", "rm x [via trap]"}},
		{"env split string", "env -S 'rm -rf x'", []string{"env -S 'rm -rf x'", "rm -rf x [via env -S]"}},
		{"pager env var", "GIT_PAGER='rm x' git log", []string{"git log", "rm x [via GIT_PAGER=]"}},
		{"function body", "f() { rm x; }; f", []string{"rm x [via function f]", "f"}},
		{"heredoc substitution", "cat <<EOF\n$(rm x)\nEOF", []string{"rm x [via $(…)]", "cat"}},
		{"parameter default substitution", "echo ${x:-$(rm y)}", []string{"rm y [via $(…)]", "echo ${x:-$(rm y)}"}},
		{"arithmetic substitution", "echo $(( $(rm y) + 1 ))", []string{"rm y [via $(…)]", "echo $(( $(rm y) + 1 ))"}},
		{"test clause", "[[ -f $(rm y) ]]", []string{"rm y [via $(…)]"}},
		{"if while for case", "if true; then ls; fi; while false; do rm a; done; for i in 1; do rm b; done; case x in x) rm c;; esac",
			[]string{"true", "ls", "false", "rm a", "rm b", "rm c"}},
		{"time keyword", "time rm x", []string{"rm x"}},
		{"coproc", "coproc rm x", []string{"rm x"}},
		{"declare", "export FOO=$(rm x)", []string{"rm x [via $(…)]", "export FOO=$(rm x)"}},
		{"negation", "! rm x", []string{"rm x"}},
		{"nested wrappers", `sudo env nice bash -c "eval 'rm -rf /'"`, []string{
			`sudo env nice bash -c "eval 'rm -rf /'"`, `env nice bash -c "eval 'rm -rf /'" [via sudo]`, `nice bash -c "eval 'rm -rf /'" [via sudo → env]`,
			`bash -c "eval 'rm -rf /'" [via sudo → env → nice]`, `eval 'rm -rf /' [via sudo → env → nice → bash -c]`, `rm -rf / [via sudo → env → nice → bash -c → eval]`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			if s.ParseError != nil {
				t.Fatalf("parse error: %s", s.ParseError.Message)
			}
			var got []string
			for _, c := range s.Commands {
				got = append(got, cmdSummary(c))
			}
			// Compare argv by re-joining, ignoring quoting differences in the table.
			norm := func(xs []string) string {
				r := strings.NewReplacer(`'`, "", `"`, "")
				return r.Replace(strings.Join(xs, " | "))
			}
			if norm(got) != norm(tt.want) {
				t.Errorf("commands\n got: %q\nwant: %q", got, tt.want)
			}
		})
	}
}

func TestAnalyzeFacts(t *testing.T) {
	t.Run("flags and positionals", func(t *testing.T) {
		c := Analyze("rm -rf --no-preserve-root --interactive=never -- -x y").Commands[0]
		c.Split()
		var flags []string
		for _, f := range c.Flags {
			flags = append(flags, f.Name)
		}
		if got := strings.Join(flags, " "); got != "-r -f --no-preserve-root --interactive" {
			t.Errorf("flags = %q", got)
		}
		if got := strings.Join(c.Positionals, " "); got != "-x y" {
			t.Errorf("positionals = %q", got)
		}
		if c.Flags[3].Value != "never" || !c.Flags[3].HasValue {
			t.Errorf("--interactive value = %+v", c.Flags[3])
		}
	})
	t.Run("program path and name", func(t *testing.T) {
		c := Analyze("/usr/bin/git status").Commands[0]
		if c.Name != "git" || c.Path != "/usr/bin/git" || c.Sub != "status" {
			t.Errorf("got name=%q path=%q sub=%q", c.Name, c.Path, c.Sub)
		}
	})
	t.Run("env prefix", func(t *testing.T) {
		c := Analyze("LD_PRELOAD=/tmp/x.so FOO=$(id) ls").Commands[1]
		if c.Env["LD_PRELOAD"] != "/tmp/x.so" || !c.Dynamic {
			t.Errorf("env = %v dynamic=%v", c.Env, c.Dynamic)
		}
	})
	t.Run("dynamic words keep literal parts", func(t *testing.T) {
		c := Analyze(`ls "$HOME/src" *.go`).Commands[0]
		if !c.Words[1].Dynamic || c.Words[1].Value != "/src" || c.Words[1].Raw != `"$HOME/src"` {
			t.Errorf("word 1 = %+v", c.Words[1])
		}
		if !c.Words[2].Glob {
			t.Errorf("word 2 = %+v, want glob", c.Words[2])
		}
	})
	t.Run("test builtin is not a glob", func(t *testing.T) {
		c := Analyze("[ -f x ]").Commands[0]
		if c.DynamicName || c.Name != "[" {
			t.Errorf("got %+v", c)
		}
	})
	t.Run("redirects", func(t *testing.T) {
		s := Analyze("cat < in > out 2>&1 >> log &> all >&file <<< word")
		type r struct {
			op, target  string
			write, read bool
			dup         bool
		}
		want := []r{{"<", "in", false, true, false}, {">", "out", true, false, false}, {">&", "1", false, false, true},
			{">>", "log", true, false, false}, {"&>", "all", true, false, false}, {">&", "file", true, false, false}, {"<<<", "word", false, false, false}}
		if len(s.Redirects) != len(want) {
			t.Fatalf("redirects = %+v", s.Redirects)
		}
		for i, w := range want {
			g := s.Redirects[i]
			if g.Op != w.op || g.Target != w.target || g.Write != w.write || g.Read != w.read || g.Dup != w.dup {
				t.Errorf("redirect %d = %+v, want %+v", i, g, w)
			}
		}
	})
	t.Run("statement with only a redirect", func(t *testing.T) {
		s := Analyze("> file")
		if len(s.Redirects) != 1 || !s.Redirects[0].Write || len(s.Commands) != 0 {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("constructs", func(t *testing.T) {
		s := Analyze("(ls) & f() { :; }; cat <<EOF | wc\nx\nEOF\necho $(date) <(ls)")
		for _, c := range []string{ConstructSubshell, ConstructBackground, ConstructFunction, ConstructHeredoc, ConstructPipeline, ConstructSubstitution, ConstructProcSubst} {
			if !s.Has(c) {
				t.Errorf("missing construct %s in %v", c, s.Constructs)
			}
		}
	})
	t.Run("assignments", func(t *testing.T) {
		s := Analyze("PATH=/tmp:$PATH; export IFS=x")
		if len(s.Assignments) != 2 || s.Assignments[0].Name != "PATH" || !s.Assignments[0].Dynamic || s.Assignments[1].Name != "IFS" {
			t.Errorf("assignments = %+v", s.Assignments)
		}
	})
	t.Run("function calls are marked", func(t *testing.T) {
		s := Analyze("f() { :; }; f; sudo f")
		var marked []string
		for _, c := range s.Commands {
			if c.Function {
				marked = append(marked, cmdSummary(c))
			}
		}
		if strings.Join(marked, ",") != "f" {
			t.Errorf("function calls = %v", marked)
		}
	})
}

func TestAnalyzeFindings(t *testing.T) {
	tests := []struct {
		name, in, kind string
	}{
		{"parse error", "echo 'unterminated", FindingParseError},
		{"parse error in nested script", `bash -c "echo 'x"`, FindingParseError},
		{"dynamic eval", `eval "$cmd"`, FindingDynamicScript},
		{"dynamic sh -c", `sh -c "$1"`, FindingDynamicScript},
		{"loader variable", "LD_PRELOAD=/tmp/x.so ls", FindingCodeExec},
		{"env loader variable", "env LD_PRELOAD=/tmp/x.so ls", FindingCodeExec},
		{"git hooks path", "git -c core.hooksPath=/tmp/h commit", FindingCodeExec},
		{"git exec path", "git --exec-path=/tmp/x status", FindingCodeExec},
		{"parallel from stdin", "ls | parallel", FindingDynamicScript},
		{"too long", strings.Repeat("a", DefaultLimits.MaxBytes+1), FindingTooLong},
		{"too many brackets", strings.Repeat("$(", 100) + strings.Repeat(")", 100), FindingTooDeep},
		{"too deep via wrappers", strings.Repeat("sudo ", 40) + "ls", FindingTooDeep},
		{"too deep via nested eval", "eval " + strings.Repeat("eval ", 40) + "ls", FindingTooDeep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := Analyze(tt.in)
			for _, f := range s.Findings {
				if f.Kind == tt.kind {
					return
				}
			}
			t.Errorf("findings = %+v, want kind %s", s.Findings, tt.kind)
		})
	}
}

func TestParseErrorPosition(t *testing.T) {
	s := Analyze("ls\n  echo 'x")
	if s.ParseError == nil {
		t.Fatal("want a parse error")
	}
	if s.ParseError.Pos.Line != 2 || s.ParseError.Pos.Col != 8 || !strings.Contains(s.ParseError.Message, "2:8") || !strings.Contains(s.ParseError.Message, "near") {
		t.Errorf("parse error = %+v", s.ParseError)
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{"ls": "ls", "": "''", "a b": "'a b'", "it's": `'it'\''s'`, "--x=y": "--x=y",
		"a$b": "'a$b'", "é": "'é'", "*.go": "'*.go'", "A-Z_0.9/x:y,z+@%^": "A-Z_0.9/x:y,z+@%^"} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestJoinArgv(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{nil, ""},
		{[]string{"ls"}, "ls"},
		{[]string{""}, "''"},
		{[]string{"a b"}, "'a b'"},
		{[]string{"grep", "-n", "it's", "", "*.go"}, `grep -n 'it'\''s' '' '*.go'`},
	}
	for _, tt := range tests {
		if got := JoinArgv(tt.argv); got != tt.want {
			t.Errorf("JoinArgv(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
}

func TestBraceExpansionIsBounded(t *testing.T) {
	bomb := "echo " + strings.Repeat("{a,b}", 40) + " {1..99999999999}"
	start := time.Now()
	s := Analyze(bomb)
	if d := time.Since(start); d > time.Second {
		t.Errorf("analysis took %v", d)
	}
	c := s.Commands[0]
	if len(c.Words) != 3 || !c.Words[1].Dynamic || !c.Words[2].Dynamic {
		t.Errorf("oversized brace expansions should stay single dynamic words, got %d words", len(c.Words))
	}
	if got := Analyze("echo {1..3} {a,b}{c,d}").Commands[0].Argv; strings.Join(got, " ") != "echo 1 2 3 ac ad bc bd" {
		t.Errorf("small expansions still expand: %q", got)
	}
}

func TestGitExecPathPrintsOnly(t *testing.T) {
	if s := Analyze("git --exec-path"); len(s.Findings) != 0 {
		t.Errorf("printing the exec path is harmless: %+v", s.Findings)
	}
}

// Substitutions hidden in parameter expansions are found; plain $x words
// are not walked for them.
func TestSubstitutionsInParameters(t *testing.T) {
	for _, text := range []string{`echo ${x:-$(rm a)}`, `echo "${x:=$(rm a)}"`, `echo ${a[$(rm a)]}`, `echo "${x/$(rm a)/b}"`,
		`echo ${x:$(rm a):1}`, `echo "$x" ${y} ${#z} "${w:-$(rm a)}"`, "echo ${x:-`rm a`}", `cat <(rm a) "$HOME"`} {
		s := Analyze(text)
		found := false
		for _, c := range s.Commands {
			found = found || c.Name == "rm"
		}
		if !found {
			t.Errorf("%s: rm not found in %d commands", text, len(s.Commands))
		}
	}
}
