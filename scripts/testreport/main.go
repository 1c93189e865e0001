// Command testreport reads `go test -json` and reports the run as people
// read it: each package's result, the output of every failed test, every
// skipped test with its reason, and a closing count. It fails the run on a
// failed test and on a skip the expected list does not name, so that a
// test that cannot run where CI runs is seen, not passed over.
//
//	go test -json ./... | go run ./scripts/testreport -expect .ci/expected-skips
//
// The expected list holds one skip a line: the test's name (a path.Match
// pattern over Package.Test, e.g. "*/cmd/rein.TestX/*"), a tab, and why it
// is expected here. Blank lines and # comments are ignored.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// expectation is one line of the expected list.
type expectation struct {
	pattern, why string
	seen         bool
}

func main() {
	expectFile := flag.String("expect", "", "file of expected skips (none expected without it)")
	flag.Parse()
	var expected []*expectation
	if *expectFile != "" {
		var err error
		if expected, err = readExpected(*expectFile); err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
	}
	os.Exit(report(os.Stdin, os.Stdout, expected))
}

func readExpected(file string) ([]*expectation, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var out []*expectation
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		pattern, why, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(why) == "" {
			return nil, fmt.Errorf("%s:%d: want a test pattern, a tab and why it is skipped here: %q", file, i+1, line)
		}
		if _, err := path.Match(pattern, ""); err != nil {
			return nil, fmt.Errorf("%s:%d: bad pattern %q: %v", file, i+1, pattern, err)
		}
		out = append(out, &expectation{pattern: pattern, why: strings.TrimSpace(why)})
	}
	return out, nil
}

// report reads the events from in and writes the report to out; it returns
// the exit status: 1 for a failed test or package, or an unexpected skip.
func report(in io.Reader, out io.Writer, expected []*expectation) int {
	outputs := map[string][]string{} // by package and test
	var passed, failed int
	var skips, unexpected, failures []string
	var brokenPackages []string
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			// go test writes build errors as plain text.
			fmt.Fprintln(out, sc.Text())
			continue
		}
		key := e.Package + "." + e.Test
		switch e.Action {
		case "output":
			outputs[key] = append(outputs[key], e.Output)
			if e.Test == "" && (strings.HasPrefix(e.Output, "ok ") || strings.HasPrefix(e.Output, "FAIL") || strings.HasPrefix(e.Output, "?")) {
				fmt.Fprint(out, e.Output)
			}
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(outputs, key)
		case "fail":
			if e.Test == "" {
				if len(outputs[key]) > 0 && !strings.Contains(strings.Join(outputs[key], ""), "--- FAIL") {
					brokenPackages = append(brokenPackages, e.Package+":\n"+strings.Join(outputs[key], ""))
				}
				continue
			}
			failed++
			failures = append(failures, "--- "+key+"\n"+strings.Join(outputs[key], ""))
		case "skip":
			if e.Test == "" {
				continue // a package without tests
			}
			line := key + " (" + skipReason(outputs[key]) + ")"
			skips = append(skips, line)
			if !expect(expected, key) {
				unexpected = append(unexpected, line)
			}
			delete(outputs, key)
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(out, "testreport: reading go test's output:", err)
		return 1
	}
	for _, f := range failures {
		fmt.Fprintf(out, "\nFAILED %s", f)
	}
	for _, b := range brokenPackages {
		fmt.Fprintf(out, "\nFAILED package %s", b)
	}
	sort.Strings(skips)
	fmt.Fprintf(out, "\nskipped tests (%d):\n", len(skips))
	for _, s := range skips {
		fmt.Fprintln(out, "  "+s)
	}
	code := 0
	if len(unexpected) > 0 {
		fmt.Fprintf(out, "\n%d skips the expected list does not name (a skip there hides what the test checks; fix what it needs, or add it with why):\n", len(unexpected))
		for _, s := range unexpected {
			fmt.Fprintln(out, "  "+s)
		}
		code = 1
	}
	for _, e := range expected {
		if !e.seen {
			fmt.Fprintf(out, "note: expected skip %s did not happen (%s)\n", e.pattern, e.why)
		}
	}
	if failed > 0 || len(brokenPackages) > 0 {
		code = 1
	}
	fmt.Fprintf(out, "\n%d passed, %d failed, %d skipped\n", passed, failed+len(brokenPackages), len(skips))
	return code
}

// expect reports whether an expected skip names key, and marks it seen.
func expect(expected []*expectation, key string) bool {
	for _, e := range expected {
		if ok, _ := path.Match(e.pattern, key); ok {
			e.seen = true
			return true
		}
	}
	return false
}

// skipReason is the message a skipped test gave: its last line of output
// other than go test's own.
func skipReason(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "=== ") || strings.HasPrefix(l, "--- SKIP") {
			continue
		}
		return l
	}
	return "no reason given"
}
