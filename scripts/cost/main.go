// Command cost measures what a user waits for around each command rein
// vets or runs, as whole processes against baselines started in the same
// run, and prints each figure as a ratio of medians with its target.
//
//	go run ./scripts/cost            # every figure, 40 interleaved rounds
//	go run ./scripts/cost -n 100 -json
//	go run ./scripts/cost -run exec -bench=false  # the figures named exec
//
// The baselines: bash, a Go hello-world built here, Codex CLI's own
// sandbox and exec policy (the npm package in testdata/agents, or codex on
// PATH; those figures are skipped without it), and a bare mvdan.cc/sh
// parse of the same lines (this program, run as "cost parse"). The agent
// loop's figure comes from go test -bench (BenchmarkAskRoundTrip).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/verdict"
	"mvdan.cc/sh/v3/syntax"
)

// figure is one line of the report: a command against its baseline.
type figure struct {
	Name     string   `json:"name"`
	Command  []string `json:"command"`
	Baseline []string `json:"baseline"`
	// Target is the ratio to stay at or under; 0 reports the figure only.
	Target float64 `json:"target,omitempty"`
	// Input is fed to both commands' standard input (a file's path), or
	// to the command's alone when BaselineInput is set.
	Input, BaselineInput string `json:"-"`
	// Env is added to the command's environment (not the baseline's).
	Env []string `json:"-"`

	Median     float64 `json:"median_ms"`
	BaseMedian float64 `json:"baseline_median_ms"`
	Ratio      float64 `json:"ratio,omitempty"`
	// Absolute figures hold Median to Target milliseconds, not a ratio.
	Absolute bool   `json:"absolute,omitempty"`
	Met      bool   `json:"met"`
	Skipped  string `json:"skipped,omitempty"`

	// times are the command's and the baseline's runs, in milliseconds.
	times [2][]float64
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == "parse" {
		os.Exit(bareParse(os.Stdin))
	}
	rounds := flag.Int("n", 40, "interleaved rounds per figure")
	asJSON := flag.Bool("json", false, "print the figures as JSON")
	bench := flag.Bool("bench", true, "also run the agent loop's go test benchmark")
	only := flag.String("run", "", "measure only the figures whose name matches this regular expression")
	flag.Parse()
	pick, err := regexp.Compile(*only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "cost: -run:", err)
		os.Exit(2)
	}
	if err := measure(*rounds, *asJSON, *bench, pick); err != nil {
		fmt.Fprintln(os.Stderr, "cost:", err)
		os.Exit(1)
	}
}

func measure(rounds int, asJSON, bench bool, pick *regexp.Regexp) error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "rein-cost")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	rein := filepath.Join(tmp, "rein")
	hello := filepath.Join(tmp, "hello")
	// rein and its small sandbox helper side by side, stamped with the
	// commit as go install stamps a release: rein uses rein-sandbox only
	// then (a working tree with changes is its own helper).
	if err := build(root, tmp+string(filepath.Separator), "./cmd/rein", "./cmd/rein-sandbox"); err != nil {
		return err
	}
	helper := helperInUse(rein)
	fi, err := os.Stat(rein)
	if err != nil {
		return err
	}
	size := fi.Size()
	os.WriteFile(filepath.Join(tmp, "hello.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644)
	if err := build(tmp, hello, "./hello.go"); err != nil {
		return err
	}
	self, _ := os.Executable()

	// rein's state goes to the throwaway folder: a fresh database, cache
	// and configuration, so the figures do not depend on the user's.
	db := filepath.Join(tmp, "rein.db")
	os.Setenv("REIN_DB", db)
	os.Setenv("REIN_CACHE_DIR", filepath.Join(tmp, "cache"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(tmp, "config"))
	if err := auditRecords(filepath.Join(tmp, "audit.db"), 10000); err != nil {
		return err
	}
	corpus := filepath.Join(root, "..", "shared", "corpus", "nl2bash.cm")
	codex := findCodex(root)
	rules := filepath.Join(tmp, "codex.rules")
	os.WriteFile(rules, []byte(`prefix_rule(pattern=["git", "status"], decision="allow")`+"\n"), 0o644)

	hookPayload, err := hookInput(root, tmp)
	if err != nil {
		return err
	}
	figs := []*figure{
		{Name: "rein exec /usr/bin/true vs codex sandbox true", Target: 0.45,
			Command: []string{rein, "exec", "--preset", "readonly", "/usr/bin/true"}, Baseline: []string{codex, "sandbox", "true"}},
		{Name: "rein exec /usr/bin/true vs bash -c /usr/bin/true",
			Command: []string{rein, "exec", "--preset", "readonly", "/usr/bin/true"}, Baseline: []string{"bash", "-c", "/usr/bin/true"}},
		{Name: "rein check 'git status' vs codex execpolicy check", Target: 0.5,
			Command: []string{rein, "check", "--preset", "readonly", "git status"}, Baseline: []string{codex, "execpolicy", "check", "--rules", rules, "git", "status"}},
		{Name: "rein check 'git status' vs a Go hello-world", Target: 3,
			Command: []string{rein, "check", "--preset", "readonly", "git status"}, Baseline: []string{hello}},
		{Name: "rein hook claude-code (Bash) vs rein check of it", Target: 1.3, Input: hookPayload, BaselineInput: os.DevNull,
			Command: []string{rein, "--preset", "readonly", "hook", "claude-code"}, Baseline: []string{rein, "check", "--preset", "readonly", hookCommand}},
		{Name: "rein-sandbox's start vs rein's (rein version)",
			Command: []string{filepath.Join(tmp, "rein-sandbox")}, Baseline: []string{rein, "version"}},
		{Name: "rein audit over 10,000 records vs rein version", Target: 6,
			Env: []string{"REIN_DB=" + filepath.Join(tmp, "audit.db")}, Command: []string{rein, "audit"}, Baseline: []string{rein, "version"}},
		{Name: "bulk rein check --json over nl2bash vs a bare parse", Target: 2, Input: corpus,
			Command: []string{rein, "check", "--preset", "readonly", "--json"}, Baseline: []string{self, "parse"}},
	}
	figs = slices.DeleteFunc(figs, func(f *figure) bool { return !pick.MatchString(f.Name) })
	for _, f := range figs {
		switch {
		case f.Baseline[0] == "":
			f.Skipped = "Codex CLI not installed (npm ci in testdata/agents)"
		case f.Input != "" && !exists(f.Input):
			f.Skipped = "no input at " + f.Input
		}
	}
	// Each round runs the figures, and each figure's command and baseline,
	// in an order of its own: what ran just before (a cache it warmed, a
	// namespace the kernel is still tearing down) falls on each alike.
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for r := 0; r < rounds+1; r++ {
		for _, i := range rng.Perm(len(figs)) {
			f := figs[i]
			if f.Skipped != "" {
				continue
			}
			var a, b time.Duration
			var err error
			if rng.IntN(2) == 0 {
				if a, err = timed(root, f.Command, f.Input, f.Env); err == nil {
					b, err = timed(root, f.Baseline, f.baselineInput(), nil)
				}
			} else if b, err = timed(root, f.Baseline, f.baselineInput(), nil); err == nil {
				a, err = timed(root, f.Command, f.Input, f.Env)
			}
			if err != nil {
				return err
			}
			if r > 0 { // the first round warms caches
				f.sample(a, b)
			}
		}
	}
	var loop *figure
	if bench {
		loop, err = loopFigure(root)
		if err != nil {
			return err
		}
	}
	for _, f := range figs {
		f.finish()
	}
	if loop != nil {
		figs = append(figs, loop)
	}
	if asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(map[string]any{"go": runtime.Version(), "cpus": runtime.NumCPU(), "rounds": rounds, "helper": helper, "binary_bytes": size, "figures": figs})
	}
	fmt.Printf("%d interleaved rounds, medians; %s, %d CPUs; sandbox helper: %s\n", rounds, runtime.Version(), runtime.NumCPU(), helper)
	fmt.Printf("rein's binary: %.1f MB (static, %s/%s, as go install builds it)\n\n", float64(size)/1e6, runtime.GOOS, runtime.GOARCH)
	fmt.Printf("%-56s %9s %9s %7s %7s\n", "figure", "rein ms", "base ms", "ratio", "target")
	for _, f := range figs {
		if f.Skipped != "" {
			fmt.Printf("%-56s skipped: %s\n", f.Name, f.Skipped)
			continue
		}
		mark := "met"
		switch {
		case f.Target == 0:
			fmt.Printf("%-56s %9.2f %9.3f %6.2f×\n", f.Name, f.Median, f.BaseMedian, f.Ratio)
			continue
		case !f.Met:
			mark = "NOT met"
		}
		if f.Absolute {
			fmt.Printf("%-56s %9.2f %9.3f %6.2f× %5.1fms %s\n", f.Name, f.Median, f.BaseMedian, f.Ratio, f.Target, mark)
			continue
		}
		fmt.Printf("%-56s %9.2f %9.3f %6.2f× %6.2f× %s\n", f.Name, f.Median, f.BaseMedian, f.Ratio, f.Target, mark)
	}
	return nil
}

// sample adds one round: the command took a, the baseline b.
func (f *figure) sample(a, b time.Duration) {
	f.times[0] = append(f.times[0], float64(a.Microseconds())/1000)
	f.times[1] = append(f.times[1], float64(b.Microseconds())/1000)
}

// finish works out the medians and their ratio.
func (f *figure) finish() {
	if f.Skipped != "" || len(f.times[0]) == 0 {
		return
	}
	f.Median, f.BaseMedian = median(f.times[0]), median(f.times[1])
	f.Ratio = f.Median / f.BaseMedian
	f.Met = f.Target == 0 || f.Ratio <= f.Target
}

func (f *figure) baselineInput() string {
	if f.BaselineInput != "" {
		return f.BaselineInput
	}
	return f.Input
}

// hookCommand is the Bash command of the recorded Claude Code payload the
// hook figure sends (hookInput).
const hookCommand = "git status --short"

// hookInput writes the PreToolUse payload Claude Code sent for a Bash call
// of hookCommand (shared/fixtures), its folder set to root, and returns its
// path: the hook vets it in this repository as rein check does.
func hookInput(root, tmp string) (string, error) {
	fixture := filepath.Join(root, "..", "shared", "fixtures", "hooks", "claude-code-2.1.197.json")
	b, err := os.ReadFile(fixture)
	if err != nil {
		return fixture, nil // the figure is skipped: no such file
	}
	var rec struct {
		Payloads []map[string]any `json:"payloads"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		return "", fmt.Errorf("%s: %v", fixture, err)
	}
	for _, p := range rec.Payloads {
		if in, _ := p["tool_input"].(map[string]any); p["tool_name"] == "Bash" && in["command"] == hookCommand {
			p["cwd"] = root
			out, _ := json.Marshal(p)
			path := filepath.Join(tmp, "hook.json")
			return path, os.WriteFile(path, out, 0o644)
		}
	}
	return "", fmt.Errorf("%s: no Bash payload of %q", fixture, hookCommand)
}

func median(v []float64) float64 {
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2]
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2
}

// timed runs argv in dir and returns how long it took; a failure is an
// error with its output.
func timed(dir string, argv []string, input string, env []string) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	if input != "" {
		f, err := os.Open(input)
		if err != nil {
			return 0, err
		}
		defer f.Close()
		cmd.Stdin = f
	}
	var errOut strings.Builder
	cmd.Stdout, cmd.Stderr = io.Discard, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	if err != nil && !isExit(err) {
		return 0, fmt.Errorf("%s: %v\n%s", strings.Join(argv, " "), err, errOut.String())
	}
	return took, nil
}

// isExit reports a program that ran and exited non-zero: rein check of a
// corpus line it refuses is still a measured run.
func isExit(err error) bool {
	_, ok := err.(*exec.ExitError)
	return ok
}

// loopFigure runs the agent loop's benchmark against a bare client's
// request to the same scripted server.
func loopFigure(root string) (*figure, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "^(BenchmarkAskRoundTrip|BenchmarkBareModelRequest)$", "-benchtime", "10x", "-count", "5", "./cmd/rein")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench: %v\n%s", err, out)
	}
	turn := regexp.MustCompile(`^(Benchmark\w+)-\d+\s+\d+\s+[\d.]+ ns/op\s+([\d.]+) ns/turn`)
	got := map[string][]float64{}
	for _, line := range strings.Split(string(out), "\n") {
		if m := turn.FindStringSubmatch(line); m != nil {
			ns, _ := strconv.ParseFloat(m[2], 64)
			got[m[1]] = append(got[m[1]], ns/1e6)
		}
	}
	loop, bare := got["BenchmarkAskRoundTrip"], got["BenchmarkBareModelRequest"]
	if len(loop) == 0 || len(bare) == 0 {
		return nil, fmt.Errorf("go test -bench printed no ns/turn:\n%s", out)
	}
	f := &figure{Name: "agent loop per tool round trip (target in ms)", Target: 1.5, Absolute: true,
		Command: []string{"BenchmarkAskRoundTrip"}, Baseline: []string{"BenchmarkBareModelRequest"}}
	f.Median, f.BaseMedian = median(loop), median(bare)
	f.Ratio = f.Median / f.BaseMedian
	f.Met = f.Median <= f.Target
	return f, nil
}

// auditRecords fills a database with n audit records, in one process.
func auditRecords(path string, n int) error {
	st, err := store.Open(path)
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	code := 0
	for i := range n {
		c := store.Command{Source: "exec", Workspace: "/work/repo", Command: fmt.Sprintf("git log --oneline -n %d", i),
			Verdict: verdict.Allow, Rule: "commands: git log", ExitCode: &code, DurationMS: 3}
		if err := st.Record(ctx, nil, c); err != nil {
			return err
		}
	}
	return nil
}

// bareParse parses each line with mvdan.cc/sh and writes one short JSON
// line per command: the floor of bulk checking.
func bareParse(in io.Reader) int {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	for sc.Scan() {
		_, err := p.Parse(strings.NewReader(sc.Text()), "")
		fmt.Fprintf(w, "{\"ok\":%t}\n", err == nil)
	}
	return 0
}

// build builds as the justfile does (CGO_ENABLED=0: a static binary).
func build(dir, out string, pkgs ...string) error {
	cmd := exec.Command("go", append([]string{"build", "-buildvcs=true", "-o", out}, pkgs...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, b)
	}
	return nil
}

// helperInUse says which sandbox helper the built rein starts: rein-sandbox
// when the build carries a release or commit, else rein itself.
func helperInUse(rein string) string {
	out, err := exec.Command("go", "version", "-m", rein).Output()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "mod" {
			if v := f[2]; v == "(devel)" || strings.HasSuffix(v, "+dirty") {
				return "rein itself (the working tree has changes; commit them to measure rein-sandbox)"
			}
			return "rein-sandbox (" + f[2] + ")"
		}
	}
	return "rein itself"
}

// findCodex returns Codex CLI's native binary from the pinned npm package
// (its node wrapper would add Node's start to the baseline), else codex on
// PATH, else "".
func findCodex(root string) string {
	matches, _ := filepath.Glob(filepath.Join(root, "testdata", "agents", "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	if len(matches) > 0 {
		return matches[0]
	}
	p, _ := exec.LookPath("codex")
	return p
}

func repoRoot() (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}").Output()
	if err != nil {
		return "", fmt.Errorf("run it from rein's repository: %v", err)
	}
	return strings.TrimSpace(string(out)), nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }
