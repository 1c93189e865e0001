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
		words      int // 0: not plain
	}{
		{"one word", "ls", 1},
		{"flags and paths", "ls -la src/cmd", 3},
		{"go packages", "go test ./...", 3},
		{"blanks around and between", " \tgit  log\t--oneline -5 ", 4},
		{"assignment-like operand", "dd if=a of=b", 3},
		{"punctuation", "git log --format=%h,%an@x:y +1", 4},
		{"empty", "", 0},
		{"only blanks", " \t ", 0},
		{"assignment first", "FOO=1 git push", 0},
		{"assignment alone", "x=1", 0},
		{"keyword", "if true", 0},
		{"time", "time ls", 0},
		{"coproc", "coproc ls", 0},
		{"declaration", "export PATH", 0},
		{"let", "let x", 0},
		{"function keyword", "function f", 0},
		{"keyword as operand is fine", "echo if then fi", 4},
		{"separator", "git status; rm x", 0},
		{"pipe", "ls | wc", 2},
		{"pipes without blanks", "git log|head -5|wc", 5},
		{"or", "ls || wc", 0},
		{"pipe at the end", "ls |", 0},
		{"pipe at the start", "| ls", 0},
		{"pipe of stderr", "ls |& wc", 0},
		{"keyword after a pipe", "ls | time wc", 0},
		{"assignment after a pipe", "ls | x=1 wc", 0},
		{"and", "ls&&rm", 0},
		{"background", "ls &", 0},
		{"redirect", "ls >out", 0},
		{"redirect by fd", "ls 2>out", 0},
		{"single quotes", "r''m x", 0},
		{"double quotes", `"rm" x`, 0},
		{"backslash", `\rm x`, 0},
		{"ansi-c quoting", `$'\x72m' x`, 0},
		{"parameter", "c=rm; $c x", 0},
		{"substitution", "echo `rm x`", 0},
		{"braces", "{rm,-rf,x}", 0},
		{"glob", "ls *.go", 0},
		{"class glob", "ls [ab]", 0},
		{"question glob", "ls a?", 0},
		{"tilde", "ls ~", 0},
		{"comment", "ls #x", 0},
		{"bang", "! ls", 0},
		{"extglob", "ls @(a|b)", 0},
		{"newline", "ls\nrm x", 0},
		{"carriage return", "ls\r", 0},
		{"non-ascii", "ls caf\u00e9", 0},
		{"nul", "ls\x00", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := 0
			if isPlain(c.text) {
				got = len(strings.FieldsFunc(c.text, func(r rune) bool { return r == ' ' || r == '\t' || r == '|' }))
			}
			if got != c.words {
				t.Errorf("isPlain(%q) with %d words; want %d words (0: not plain)", c.text, got, c.words)
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
		"time ls", "FOO=1 git push", "git -c core.pager=sh log", "echo if then", "ls\tfoo"}
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
// of calls without assignments or redirections, each word one literal.
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
	stmts, segments := piped(f.Stmts[0]), strings.Split(text, "|")
	if len(stmts) != len(segments) {
		t.Fatalf("%q is plain with %d commands, but parses to %d", text, len(segments), len(stmts))
	}
	for i, segment := range segments {
		st := stmts[i]
		fields := strings.Fields(segment)
		call, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(st.Redirs) > 0 || st.Negated || st.Background || st.Coprocess || len(call.Assigns) > 0 || len(call.Args) != len(fields) {
			t.Fatalf("%q is plain, but its command %d parses to %T, not one call of %d words", text, i, st.Cmd, len(fields))
		}
		for j, w := range call.Args {
			if lit := w.Lit(); lit != fields[j] || len(w.Parts) != 1 {
				t.Fatalf("%q is plain, but word %d of command %d parses to %d parts (%q), not the literal %q", text, j, i, len(w.Parts), lit, fields[j])
			}
		}
	}
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
