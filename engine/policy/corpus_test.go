package policy_test

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/recipes"
	"github.com/reinsh/rein/shellparse"
)

// corpus returns the nl2bash one-liners from ../shared, or skips.
func corpus(tb testing.TB) []string {
	tb.Helper()
	lines, err := loadCorpus()
	if errors.Is(err, errNoCorpus) {
		tb.Skipf("%v; set REIN_CORPUS or place ../shared beside the repository", err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	return lines
}

var errNoCorpus = errors.New("corpus not available")

// corpusOr is the corpus and the given commands, or only those when the
// corpus is not available.
func corpusOr(tb testing.TB, commands []string) []string {
	tb.Helper()
	lines, err := loadCorpus()
	if err != nil && !errors.Is(err, errNoCorpus) {
		tb.Fatal(err)
	}
	return append(lines, commands...)
}

func loadCorpus() ([]string, error) {
	path := os.Getenv("REIN_CORPUS")
	if path == "" {
		dir, _ := os.Getwd()
		for ; ; dir = filepath.Dir(dir) {
			if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
				break
			}
			if filepath.Dir(dir) == dir {
				return nil, fmt.Errorf("%w: module root not found", errNoCorpus)
			}
		}
		path = filepath.Join(dir, "..", "shared", "corpus", "nl2bash.cm")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", errNoCorpus, err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

func TestCorpus(t *testing.T) {
	lines := corpus(t)
	p := presetPolicy(t, "readonly")
	counts := map[string]int{}
	rules := map[string]int{}
	parseFailures := 0
	for _, line := range lines {
		s := shellparse.Analyze(line)
		if s.ParseError != nil {
			parseFailures++
		}
		d := p.DecideScript(s)
		counts[d.Verdict.String()]++
		if d.Verdict != policy.Allow {
			rules[strings.SplitN(d.Rule, ":", 2)[0]]++
		}
	}
	rate := float64(parseFailures) / float64(len(lines))
	t.Logf("corpus: %d commands, %d parse failures (%.2f%%)", len(lines), parseFailures, 100*rate)
	t.Logf("verdicts under readonly: allow %d, ask %d, deny %d", counts["allow"], counts["ask"], counts["deny"])
	type kv struct {
		k string
		v int
	}
	var top []kv
	for k, v := range rules {
		top = append(top, kv{k, v})
	}
	sort.Slice(top, func(i, j int) bool { return top[i].v > top[j].v })
	for i, e := range top {
		if i == 10 {
			break
		}
		t.Logf("  deciding rule %-40s %d", e.k, e.v)
	}
	if rate > 0.01 {
		t.Errorf("parse failures %.2f%% > 1%%", 100*rate)
	}
	if counts["allow"] == 0 || counts["deny"] == 0 {
		t.Errorf("implausible verdict counts %v", counts)
	}
}

// BenchmarkParse is the baseline: a bare syntax parse and walk of every
// corpus command.
func BenchmarkParse(b *testing.B) {
	lines := corpus(b)
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range lines {
			f, err := parser.Parse(strings.NewReader(line), "")
			if err != nil {
				continue
			}
			syntax.Walk(f, func(syntax.Node) bool { return true })
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/command")
}

// BenchmarkVet is parse + resolve + unwrap + policy under readonly.
func BenchmarkVet(b *testing.B) {
	lines := corpus(b)
	p := presetPolicy(b, "readonly")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range lines {
			p.Check(line)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/command")
}

// BenchmarkVetOverParse reports vetting's cost as a multiple of parsing's
// (the target is 2 or less). Separate BenchmarkParse and BenchmarkVet runs
// are seconds apart on a shared machine whose speed drifts by more than the
// margin; here each iteration times a parse pass and a vet pass close
// together and the median ratio of the pairs is reported. Each timed pass
// follows an untimed pass of the same kind, so that, as in the separate
// benchmarks, neither runs with the caches the other left.
func BenchmarkVetOverParse(b *testing.B) {
	lines := corpus(b)
	parser := syntax.NewParser(syntax.Variant(syntax.LangBash))
	p := presetPolicy(b, "readonly")
	parsePass := func() {
		for _, line := range lines {
			f, err := parser.Parse(strings.NewReader(line), "")
			if err != nil {
				continue
			}
			syntax.Walk(f, func(syntax.Node) bool { return true })
		}
	}
	vetPass := func() {
		for _, line := range lines {
			p.Check(line)
		}
	}
	timed := func(pass func()) time.Duration {
		pass()
		start := time.Now()
		pass()
		return time.Since(start)
	}
	var ratios, parses []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		parse := timed(parsePass)
		vet := timed(vetPass)
		ratios = append(ratios, float64(vet)/float64(parse))
		parses = append(parses, float64(parse.Nanoseconds())/float64(len(lines)))
	}
	slices.Sort(ratios)
	slices.Sort(parses)
	b.ReportMetric(ratios[len(ratios)/2], "vet/parse")
	b.ReportMetric(parses[len(parses)/2], "parse-ns/command")
}

// BenchmarkAnalyze is parse + resolve + unwrap, without policy.
func BenchmarkAnalyze(b *testing.B) {
	lines := corpus(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, line := range lines {
			shellparse.Analyze(line)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(lines)), "ns/command")
}

func FuzzVet(f *testing.F) {
	for _, c := range readonlyDenied {
		f.Add(c.command)
	}
	for _, c := range readonlyAllowed {
		f.Add(c)
	}
	for _, c := range []string{"$((", "${x:-$(", "<<EOF", "a[$(b)]=1", "case x in (a) ;; esac", "coproc { ls; }", "function f { :; }", "x=(a b); ${x[@]}", "time -p ls", "echo {1..3}", "env -S", "find -exec", "xargs -I", "git -c", "ssh -o", "git -C", "timeout", "env -S x", "sudo -u", "chrt", "flock -c", "watch -n", "parallel -j"} {
		f.Add(c)
	}
	p := presetPolicy(f, "readonly")
	f.Fuzz(func(t *testing.T, text string) {
		start := time.Now()
		d := p.Check(text)
		if elapsed := time.Since(start); elapsed > time.Second {
			t.Fatalf("vetting took %v (bounded time is part of the contract)", elapsed)
		}
		if d == nil {
			t.Fatal("nil decision")
		}
		// Check reuses analysis memory from call to call; it must decide
		// exactly as a fresh analysis does.
		if got, want := decisionJSON(t, d), decisionJSON(t, p.DecideScript(shellparse.Analyze(text))); got != want {
			t.Fatalf("Check and a fresh analysis differ:\n%s\n%s", got, want)
		}
		if d.Verdict == policy.Allow {
			for _, c := range d.Commands {
				if c.Verdict != policy.Allow {
					t.Fatalf("allowed script with a %s command %q", c.Verdict, c.Text)
				}
			}
		}
		// The run-time exclusions only ever add words (following links
		// aside: -R, -L, --follow are rewritten): what was asked for still
		// runs, in its order.
		if strings.ContainsAny(text, "RL") || strings.Contains(text, "follow") {
			return
		}
		fields := strings.Fields(text)
		for _, argv := range [][]string{fields, append([]string{"find"}, fields...), append([]string{"grep", "-r"}, fields...),
			append([]string{"git", "grep"}, fields...), append([]string{"git", "log", "-p"}, fields...), append([]string{"timeout", "5", "git", "diff"}, fields...), append([]string{"xargs", "find"}, fields...), append([]string{"tar"}, fields...), append([]string{"find", ".", "-exec", "env", "grep", "-r"}, fields...)} {
			guarded, err := p.GuardSearch(argv, nil)
			if err != nil {
				continue // refused: nothing runs
			}
			rest := guarded
			for _, a := range argv {
				i := slices.Index(rest, a)
				if j := slices.Index(rest, "-"+a); j >= 0 && (i < 0 || j < i) && !strings.HasPrefix(a, "-") {
					i = j // tar's old bundle (cvf), given its dash
				}
				if written, _, _ := strings.Cut(a, "="); strings.HasPrefix(a, "--") {
					// An abbreviation, written out (--incl=x: --include=x),
					// which may come before the same word as an operand
					// (grep -r --ve -- --ve).
					if k := slices.IndexFunc(rest, func(r string) bool { return strings.HasPrefix(r, written) }); k >= 0 && (i < 0 || k < i) {
						i = k
					}
				}
				if i < 0 {
					t.Fatalf("GuardSearch(%q) = %q lost %q", argv, guarded, a)
				}
				rest = rest[i+1:]
			}
		}
	})
}

// BenchmarkNew is compiling the readonly preset into a policy: paid by every
// rein process before its first check.
func BenchmarkNew(b *testing.B) {
	r, err := recipe.Load(recipe.Options{Preset: "readonly", CacheDir: "-", UserFile: "-", Dir: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := policy.New(r, policy.Options{Home: "/home/dev"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck is vetting one command a model typically proposes, with a
// policy and its Checker warm, as rein mcp and rein ask do.
func BenchmarkCheck(b *testing.B) {
	p := presetPolicy(b, "readonly")
	for _, text := range []string{"git status", "ls -la src", "go test ./...", "git log --oneline -5", "grep -rn TODO . | wc -l"} {
		b.Run(text, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				p.Check(text)
			}
		})
	}
}

// BenchmarkCheckPresets measures a command of each language preset and one
// it does not concern under every preset: a preset's rules should cost the
// commands they are about, not every other (a rule that leads with a name
// test is skipped without running; one that does not runs on every
// command).
func BenchmarkCheckPresets(b *testing.B) {
	own := map[string]string{"go": "go test -coverprofile=c.out ./...", "node": "node scripts/x.js", "python": "pytest -x tests/",
		"rust": "cargo build --target-dir target/x", "make": "make -C docs html", "git": "git log --oneline -5"}
	for _, preset := range recipes.Presets {
		p := presetPolicy(b, preset)
		commands := []string{"git status"}
		if c, ok := own[preset]; ok {
			commands = append(commands, c)
		}
		for _, c := range commands {
			b.Run(preset+"/"+c, func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					p.Check(c)
				}
			})
		}
	}
}
