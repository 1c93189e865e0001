package main

import (
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	run := func(a, test, extra string) string {
		return `{"Action":"` + a + `","Package":"p/q","Test":"` + test + `"` + extra + `}`
	}
	out := func(test, text string) string { return run("output", test, `,"Output":"`+text+`\n"`) }
	stream := strings.Join([]string{
		run("run", "TestA", ""), run("pass", "TestA", ""),
		run("run", "TestB", ""), out("TestB", "=== RUN   TestB"), out("TestB", "    b_test.go:9: no frobnicator here"), out("TestB", "--- SKIP: TestB (0.00s)"), run("skip", "TestB", ""),
		run("run", "TestC/sub", ""), out("TestC/sub", "    c_test.go:3: cannot start rein"), run("skip", "TestC/sub", ""),
		`{"Action":"output","Package":"p/q","Output":"ok  \tp/q\t0.1s\n"}`,
	}, "\n")
	for _, c := range []struct {
		expected []*expectation
		code     int
		want     []string
	}{
		{nil, 1, []string{"p/q.TestB (b_test.go:9: no frobnicator here)", "2 skips the expected list does not name", "1 passed, 0 failed, 2 skipped", "ok  \tp/q"}},
		{[]*expectation{{pattern: "p/q.TestB", why: "x"}, {pattern: "p/q.TestC/*", why: "y"}}, 0, []string{"1 passed, 0 failed, 2 skipped"}},
		{[]*expectation{{pattern: "p/q.Test*", why: "x"}}, 1, []string{"1 skips the expected list does not name", "p/q.TestC/sub (c_test.go:3: cannot start rein)"}},
	} {
		var b strings.Builder
		code := report(strings.NewReader(stream), &b, c.expected)
		if code != c.code {
			t.Errorf("exit %d, want %d:\n%s", code, c.code, b.String())
		}
		for _, w := range c.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("report lacks %q:\n%s", w, b.String())
			}
		}
	}
	var b strings.Builder
	failing := run("run", "TestF", "") + "\n" + out("TestF", "    f_test.go:1: boom") + "\n" + run("fail", "TestF", "")
	if code := report(strings.NewReader(failing), &b, nil); code != 1 || !strings.Contains(b.String(), "boom") || !strings.Contains(b.String(), "0 passed, 1 failed") {
		t.Errorf("a failed test: exit %d\n%s", code, b.String())
	}
}
