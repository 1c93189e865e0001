package policy_test

import (
	"encoding/json"
	"sync"
	"testing"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// reuseTexts mix what the reused analysis memory must survive: many
// commands, nested and unwrapped ones, findings, parse errors, brace fields.
func reuseTexts() []string {
	texts := []string{
		"ls", "git status; git log --oneline -5 | head; wc -l a b c d e f g h i j k l m n o p",
		"sudo env FOO=1 xargs -0 sh -c 'cat a; rm -rf b' _ x y z",
		"find . -name '*.go' -exec grep -n TODO {} + -o -exec rm {} \\;",
		"echo $(ls $(pwd)) `date` <(cat x) > /dev/null", "cat {a,b,c}{1,2,3}.txt", "x=$(rm y) cat", "eval 'git $CMD'",
		"for f in *; do echo \"$f\"; done", "if true; then (cd x && ls); fi", "echo 'unterminated", "bash -c 'echo \"",
		"", ";;", "cat ~/.ssh/id_rsa .env", "git show HEAD:.env",
	}
	for _, c := range readonlyDenied {
		texts = append(texts, c.command)
	}
	return append(texts, readonlyAllowed...)
}

func decisionJSON(t *testing.T, d *policy.Decision) string {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckKeepsNothingOfTheAnalysis: Check reuses one analysis's memory
// for the next, so a Decision must share none of it. Every Decision must
// still read as a fresh, unshared analysis gives, after every other Check.
func TestCheckKeepsNothingOfTheAnalysis(t *testing.T) {
	p := presetPolicy(t, "readonly")
	texts := reuseTexts()
	want := make([]string, len(texts))
	for i, text := range texts {
		want[i] = decisionJSON(t, p.DecideScript(shellparse.Analyze(text)))
	}
	kept := make([]*policy.Decision, len(texts))
	for round := 0; round < 3; round++ {
		for i, text := range texts {
			kept[i] = p.Check(text)
		}
		// Reversed, so that each text's memory is reused by others.
		for i := len(texts) - 1; i >= 0; i-- {
			p.Check(texts[i])
		}
		for i, d := range kept {
			if got := decisionJSON(t, d); got != want[i] {
				t.Fatalf("%q: after other checks the decision reads\n%s\nwant\n%s", texts[i], got, want[i])
			}
		}
	}
}

// TestCheckConcurrent runs Check from many goroutines (run with -race in CI),
// half of which Release each decision once read: its memory serves the next
// Check, which must read as a fresh one all the same.
func TestCheckConcurrent(t *testing.T) {
	p := presetPolicy(t, "readonly")
	texts := reuseTexts()
	want := make([]string, len(texts))
	for i, text := range texts {
		want[i] = decisionJSON(t, p.Check(text))
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 4 * len(texts) {
				i := (k*7 + g) % len(texts)
				d := p.Check(texts[i])
				if got := decisionJSON(t, d); got != want[i] {
					t.Errorf("%q: concurrent decision differs\n%s\nwant\n%s", texts[i], got, want[i])
					return
				}
				if g%2 == 1 {
					p.Release(d)
				}
			}
		}()
	}
	wg.Wait()
}
