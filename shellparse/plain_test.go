package shellparse

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

func TestPlain(t *testing.T) {
	for _, c := range []struct {
		name, text string
		argv       string // the commands' argv, quoted, "|" between; "" when not plain
	}{
		{"one word", "ls", "ls"},
		{"flags and paths", "ls -la src/cmd", "ls -la src/cmd"},
		{"go packages", "go test ./...", "go test ./..."},
		{"blanks around and between", " \tgit  log\t--oneline -5 ", "git log --oneline -5"},
		{"assignment-like operand", "dd if=a of=b", "dd if=a of=b"},
		{"punctuation", "git log --format=%h,%an@x:y +1", "git log --format=%h,%an@x:y +1"},
		{"single quotes", "grep -rn 'func main(' .", "grep -rn 'func main(' ."},
		{"double quotes", `git log --grep="fix: a | b; c"`, "git log '--grep=fix: a | b; c'"},
		{"quotes in quotes", `echo "it's" 'say "hi"'`, `echo 'it'\''s' 'say "hi"'`},
		{"quoted parts joined", `echo a'b c'"d"e`, "echo 'ab cde'"},
		{"empty quotes", `echo '' ""`, "echo '' ''"},
		{"quoted keyword", "'if' x", "if x"},
		{"quoted glob and tilde", `ls '*.go' "~"`, "ls '*.go' '~'"},
		{"find's words", `echo {} \; {} +`, "echo '{}' ';' '{}' +"},
		{"braces in a word", "echo a{}", ""},
		{"escaped semicolon in a word", `echo a\;`, ""},
		{"braces first", "{} x", ""},
		{"escaped semicolon first", `\; x`, ""},
		{"pipe", "ls | wc", "ls | wc"},
		{"pipes without blanks", "git log|head -5|wc", "git log | head -5 | wc"},
		{"empty", "", ""},
		{"only blanks", " \t ", ""},
		{"assignment first", "FOO=1 git push", ""},
		{"quoted assignment first", "'FOO=1' git push", ""},
		{"assignment alone", "x=1", ""},
		{"keyword", "if true", ""},
		{"time", "time ls", ""},
		{"coproc", "coproc ls", ""},
		{"declaration", "export PATH", ""},
		{"let", "let x", ""},
		{"function keyword", "function f", ""},
		{"keyword as operand is fine", "echo if then fi", "echo if then fi"},
		{"or", "ls || wc", ""},
		{"pipe at the end", "ls |", ""},
		{"pipe at the start", "| ls", ""},
		{"pipe of stderr", "ls |& wc", ""},
		{"keyword after a pipe", "ls | time wc", ""},
		{"assignment after a pipe", "ls | x=1 wc", ""},
		{"separator", "git status; rm x", ""},
		{"and", "ls&&rm", ""},
		{"background", "ls &", ""},
		{"redirect", "ls >out", ""},
		{"redirect by fd", "ls 2>out", ""},
		{"backslash", `\rm x`, ""},
		{"backslash in double quotes", `echo "a\"b"`, ""},
		{"unclosed quote", `echo 'a`, ""},
		{"ansi-c quoting", `$'\x72m' x`, ""},
		{"locale quoting", `$"rm" x`, ""},
		{"parameter", "c=rm; $c x", ""},
		{"parameter in double quotes", `echo "$HOME"`, ""},
		{"substitution in double quotes", "echo \"`rm x`\"", ""},
		{"braces", "{rm,-rf,x}", ""},
		{"glob", "ls *.go", ""},
		{"class glob", "ls [ab]", ""},
		{"question glob", "ls a?", ""},
		{"tilde", "ls ~", ""},
		{"comment", "ls #x", ""},
		{"bang", "! ls", ""},
		{"extglob", "ls @(a|b)", ""},
		{"newline", "ls\nrm x", ""},
		{"newline in quotes", "echo 'a\nb'", ""},
		{"carriage return", "ls\r", ""},
		{"non-ascii", "ls caf\u00e9", ""},
		{"non-ascii in quotes", "grep 'caf\u00e9' x", ""},
		{"nul", "ls\x00", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := ""
			if isPlain(c.text) {
				var cmds []string
				for _, cmd := range Analyze(c.text).Commands {
					cmds = append(cmds, JoinArgv(cmd.Argv))
				}
				got = strings.Join(cmds, " | ")
			}
			if got != c.argv {
				t.Errorf("%q: got %q, want %q (\"\": not plain)", c.text, got, c.argv)
			}
		})
	}
}

// TestPlainAgreesWithParser holds the shortcut to the parser: a text it
// takes is one simple command of literal words to the parser too, and
// every text (nested scripts take it as well: sh -c 'git status') gives
// the same Script either way.
func TestPlainAgreesWithParser(t *testing.T) {
	texts := []string{"git status", "ls -la", " go  test ./... ", "git log | head -5 | wc -l", "cd x | cat .env", "sh -c 'git status'", "bash -c 'rm -rf x'",
		"eval ls -la", "sudo rm -rf /", "env -C sub git status", "cd sub && cat .env", "xargs rm", "find . -exec rm {} ;",
		"time ls", "FOO=1 git push", "git -c core.pager=sh log", "echo if then", "ls\tfoo",
		"echo 'a\nb' | wc", "grep 'caf\u00e9' x | wc", "echo \"\r\" | wc", "echo \"a\x00b\"", "grep \"\xff\" | wc"}
	texts = append(texts, corpusLines(t)...)
	for _, text := range texts {
		checkPlainAgrees(t, text)
	}
}

func FuzzPlain(f *testing.F) {
	for _, s := range []string{"git status", "ls -la src", "x=1 ls", "if a", "sh -c 'ls -la'", "a\tb", "let x", "ls >x", "dd if=x", "a | b", "a|b|c", "a || b"} {
		f.Add(s)
	}
	f.Fuzz(checkPlainAgrees)
}

func checkPlainAgrees(t *testing.T, text string) {
	t.Helper()
	if isPlain(text) {
		checkParsesPlain(t, text)
	}
	if got, want := scriptFacts(t, AnalyzeLimits(text, DefaultLimits)), scriptFacts(t, analyzeParsed(text)); got != want {
		t.Fatalf("%q: the analysis differs from the parser's\nshortcut: %s\nparser:   %s", text, got, want)
	}
}

// checkParsesPlain fails unless the parser reads text as plain: a pipeline
// of calls without assignments or redirections, each word made of
// literal parts. (That it finds the same words checkPlainAgrees sees.)
func checkParsesPlain(t *testing.T, text string) {
	t.Helper()
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		t.Fatalf("%q is plain, but the parser fails: %v", text, err)
	}
	if len(f.Stmts) != 1 {
		t.Fatalf("%q is plain, but parses to %d statements", text, len(f.Stmts))
	}
	var piped func(*syntax.Stmt) []*syntax.Stmt
	piped = func(st *syntax.Stmt) []*syntax.Stmt {
		if pipe, ok := st.Cmd.(*syntax.BinaryCmd); ok && pipe.Op == syntax.Pipe && len(st.Redirs) == 0 && !st.Negated && !st.Background {
			return append(piped(pipe.X), piped(pipe.Y)...)
		}
		return []*syntax.Stmt{st}
	}
	for i, st := range piped(f.Stmts[0]) {
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || len(call.Assigns) > 0 {
			t.Fatalf("%q is plain, but its command %d parses to %T with redirections, assignments or operators", text, i, st.Cmd)
		}
		for j, w := range call.Args {
			for _, part := range w.Parts {
				if !literalPart(part) {
					t.Fatalf("%q is plain, but word %d of command %d has the part %T, not a literal", text, j, i, part)
				}
			}
		}
	}
}

// literalPart reports whether part means its own text: unquoted text
// without escapes, globs, braces or ~ (but find's {} and \;), or quotes
// without expansions.
func literalPart(part syntax.WordPart) bool {
	switch p := part.(type) {
	case *syntax.Lit:
		plain, _ := scanLiteral(p.Value)
		return plain || p.Value == "{}" || p.Value == `\;`
	case *syntax.SglQuoted:
		return !p.Dollar
	case *syntax.DblQuoted:
		for _, inner := range p.Parts {
			if lit, ok := inner.(*syntax.Lit); !ok || strings.ContainsRune(lit.Value, '\\') {
				return false
			}
		}
		return !p.Dollar
	}
	return false
}

// analyzeParsed analyses text without the plain-text shortcut.
func analyzeParsed(text string) *Script {
	var (
		a analyzer
		s Script
		m arena
	)
	a.script, a.mem, a.alwaysParse = &s, &m, true
	a.analyze(text, DefaultLimits)
	return &s
}

// scriptFacts renders what a Script tells its readers, including what
// only this package sees (word shapes, commands below an exec wrapper).
func scriptFacts(t *testing.T, s *Script) string {
	t.Helper()
	var private []string
	for _, c := range s.Commands {
		c.Split()
		shapes := make([]uint8, len(c.Words))
		for i, w := range c.Words {
			shapes[i] = w.shape
		}
		private = append(private, fmt.Sprintf("execd=%v shapes=%v", c.execd, shapes))
	}
	b, err := json.Marshal(struct {
		S *Script
		P []string
	}{s, private})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// corpusLines is the nl2bash corpus beside the repository (or at
// REIN_CORPUS); none when it is absent.
func corpusLines(t *testing.T) []string {
	path := os.Getenv("REIN_CORPUS")
	if path == "" {
		path = filepath.Join("..", "..", "shared", "corpus", "nl2bash.cm")
	}
	data, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		t.Logf("corpus not found (%v): checking the listed texts only", err)
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}
