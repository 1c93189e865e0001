package runner_test

import (
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/sandbox"
)

// The oracle holds rein's reading of programs to the real programs. It
// generates commands from the program table (each known option with values
// of several kinds, -- after every option that takes a value, clusters,
// abbreviations, options rein does not know, words fed through xargs),
// vets each under the readonly preset, and runs every one that is allowed
// for real, in a throwaway workspace, under rein's sandbox with the network
// off. The sandbox is given the workspace to write (readonly's own would
// refuse every write): an allowed command that changes the workspace,
// prints a canary secret (planted in the workspace, its git history, a fake
// home and the environment) or starts the canary program is a failure
// that names the command.
//
// REIN_ORACLE_N sets how many commands run (default 600; `just oracle`
// runs more), REIN_ORACLE_SEED the generator's seed.
func TestOracle(t *testing.T) {
	if testing.Short() {
		t.Skip("the oracle runs real programs")
	}
	if st := sandbox.Probe(); !st.Available() || !st.Namespaces || !st.Network {
		t.Skip("the oracle runs generated commands only under an enforced sandbox (Landlock, namespaces, no network)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("needs git")
	}
	n := envInt("REIN_ORACLE_N", 600)
	if raceEnabled && os.Getenv("REIN_ORACLE_N") == "" {
		n = 150
	}
	seed := uint64(envInt("REIN_ORACLE_SEED", 1))

	o := newOracle(t)
	cmds := o.generate(rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)))
	vetted, allowed, ran := 0, 0, 0
	var failures []string
	for _, text := range cmds {
		if ran >= n {
			break
		}
		vetted++
		if d := o.policy.Check(text); d.Verdict != policy.Allow {
			continue
		}
		allowed++
		ran++
		if why := o.run(text); why != "" {
			failures = append(failures, fmt.Sprintf("%s\n    %s", text, why))
			o.reset()
		}
	}
	t.Logf("oracle (seed %d): %d commands generated, %d vetted, %d allowed and run, %d failed", seed, len(cmds), vetted, allowed, len(failures))
	if ran < min(n, 100) {
		t.Errorf("only %d commands ran: the generator or the table lost its way", ran)
	}
	for _, f := range failures {
		t.Errorf("allowed, and then:\n  %s", f)
	}
}

const canarySecret = "CANARY-7f3a91-SECRET"

type oracle struct {
	t        *testing.T
	ws, home string
	policy   *policy.Policy
	runner   *runner.Runner
	snapshot map[string]string
}

func newOracle(t *testing.T) *oracle {
	o := &oracle{t: t, home: t.TempDir(), ws: t.TempDir()}
	t.Setenv("HOME", o.home)
	for _, v := range []string{"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"} {
		t.Setenv(v, "")
	}
	for name, body := range map[string]string{
		".ssh/id_rsa":      canarySecret + "\n",
		".aws/credentials": "[default]\naws_secret_access_key = " + canarySecret + "\n",
		".gitconfig":       "[user]\n\tname = oracle\n\temail = oracle@example.invalid\n",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(o.home, name)), 0o700)
		os.WriteFile(filepath.Join(o.home, name), []byte(body), 0o600)
	}
	// The canary program: starting it is a failure, however it is named.
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "rein-canary-run"), []byte("#!/bin/sh\necho CANARY-RAN\necho CANARY-RAN >&2\n"), 0o755)
	o.fill()
	os.WriteFile(filepath.Join(o.ws, "rein.jsonnet"), []byte(`local rein = import 'rein.libsonnet'; rein.presets.readonly`), 0o644)
	r, p := policytest.Load(t, o.ws, "")
	cfg, _, err := app.Sandbox(r)
	if err != nil || cfg == nil {
		t.Fatalf("sandbox: %v", err)
	}
	cfg.Mode = "workspace-write" // to see the writes vetting let through
	o.policy = p
	o.runner = runner.New(p, runner.Options{Sandbox: cfg, Env: []string{
		"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + o.home,
		"AWS_SECRET_ACCESS_KEY=" + canarySecret, "GITHUB_TOKEN=" + canarySecret,
	}})
	o.snapshot = o.state()
	return o
}

// fill lays out the workspace: files, a secret, a repository whose history
// holds the secret.
func (o *oracle) fill() {
	files := map[string]string{
		"a.txt":       "banana\napple\ncherry\napple\n",
		"b.txt":       "apple\nbanana\n",
		"data.csv":    "name,count\nx,3\ny,10\n",
		"src/main.go": "package main\n\nfunc main() {}\n",
		"notes.md":    "# notes\nTODO: more\n",
		".env":        "TOKEN=" + canarySecret + "\n",
		"data.json":   `{"name": "oracle", "n": 1}` + "\n",
	}
	for name, body := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(o.ws, name)), 0o755)
		os.WriteFile(filepath.Join(o.ws, name), []byte(body), 0o644)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"add", "-f", ".env"}, {"commit", "-qm", "first"}, {"tag", "v1"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = o.ws
		cmd.Env = append(os.Environ(), "HOME="+o.home, "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+filepath.Join(o.home, ".gitconfig"))
		if out, err := cmd.CombinedOutput(); err != nil {
			o.t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
}

// reset lays the workspace out again after a command changed it.
func (o *oracle) reset() {
	entries, _ := os.ReadDir(o.ws)
	for _, e := range entries {
		if e.Name() != "rein.jsonnet" {
			os.RemoveAll(filepath.Join(o.ws, e.Name()))
		}
	}
	o.fill()
	o.snapshot = o.state()
}

// state is what a command must not change: every file's size, mode and
// modification time (git's index aside: git status refreshes it).
func (o *oracle) state() map[string]string {
	out := map[string]string{}
	filepath.WalkDir(o.ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(o.ws, p)
		if rel == ".git/index" || strings.HasSuffix(rel, ".lock") {
			return nil
		}
		if info, err := d.Info(); err == nil && !d.IsDir() {
			out[rel] = fmt.Sprintf("%d %v %d", info.Size(), info.Mode(), info.ModTime().UnixNano())
		} else if err == nil {
			out[rel] = "folder" // (its time changes as git writes its index)
		}
		return nil
	})
	return out
}

// run runs an allowed command and says what went wrong, or "".
func (o *oracle) run(text string) string {
	res := o.runner.Run(context.Background(), text, runner.RunOptions{Timeout: 5 * time.Second})
	out := res.Stdout + res.Stderr
	var why []string
	if strings.Contains(out, canarySecret) {
		why = append(why, "printed the canary secret")
	}
	if strings.Contains(out, "CANARY-RAN") {
		why = append(why, "started the canary program")
	}
	now := o.state()
	for name, was := range o.snapshot {
		if now[name] != was {
			why = append(why, "changed or removed "+name)
		}
	}
	for name := range now {
		if _, ok := o.snapshot[name]; !ok {
			why = append(why, "made "+name)
		}
	}
	slices.Sort(why)
	return strings.Join(why, "; ")
}

// The programs readonly allows that the oracle runs. date and hostname are
// left out: as root, a slip would set the machine's clock or name, which
// the sandbox does not confine.
var oraclePrograms = []string{"ls", "cat", "head", "tail", "wc", "grep", "sort", "uniq", "cut", "tr", "nl", "tac", "paste", "comm", "join",
	"fold", "diff", "cmp", "md5sum", "sha256sum", "cksum", "od", "stat", "du", "df", "basename", "dirname", "realpath", "readlink",
	"id", "uname", "nproc", "seq", "find", "file", "strings", "hexdump", "column", "jq", "awk", "sed", "rg", "tree", "xargs", "env", "timeout", "nice"}

var oracleGitSubs = []string{"log", "show", "diff", "status", "ls-files", "ls-tree", "cat-file", "grep", "branch", "tag", "config", "blame",
	"shortlog", "rev-parse", "rev-list", "describe", "for-each-ref", "show-ref", "stash", "reflog", "diff-tree", "whatchanged"}

// values are what generated options are given: a file to write, the
// canary program, a file and a folder of the workspace, a number, a --,
// the secret file, a revision.
var oracleValues = []string{"out.txt", "rein-canary-run", "a.txt", "src", "1", "--", ".env", "HEAD"}

// operands of the generated commands, by program.
func oracleOperands(prog string) []string {
	switch {
	case prog == "find":
		return []string{"."}
	case prog == "jq":
		return []string{".", "data.json"}
	case prog == "awk":
		return []string{"{print}", "a.txt"}
	case prog == "sed":
		return []string{"p", "a.txt"}
	case prog == "join" || prog == "comm" || prog == "diff" || prog == "cmp":
		return []string{"a.txt", "b.txt"}
	case prog == "xargs" || prog == "env" || prog == "nice":
		return []string{"cat", "a.txt"}
	case prog == "timeout":
		return []string{"5", "cat", "a.txt"}
	case prog == "grep" || prog == "rg":
		return []string{"apple", "a.txt"}
	case strings.HasPrefix(prog, "git "):
		return []string{"HEAD"}
	}
	return []string{"a.txt"}
}

// generate makes the commands, shuffled by r.
func (o *oracle) generate(r *rand.Rand) []string {
	var out []string
	add := func(words ...string) {
		var b strings.Builder
		for i, w := range words {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(quoteWord(w))
		}
		out = append(out, b.String())
	}
	progs := slices.Clone(oraclePrograms)
	for _, sub := range oracleGitSubs {
		progs = append(progs, "git "+sub)
	}
	for _, prog := range progs {
		name, sub, _ := strings.Cut(prog, " ")
		if _, err := exec.LookPath(name); err != nil {
			continue
		}
		spec := programs.Lookup(name)
		if spec == nil {
			continue
		}
		if sub != "" {
			spec = spec.Subcommand(sub)
			if spec == nil {
				continue
			}
		}
		head := strings.Fields(prog)
		ops := oracleOperands(prog)
		var effectful []string // options that write, run or take code, as words
		for _, opt := range spec.Options {
			if opt.Effect&^programs.Wraps != 0 {
				n := opt.Names[0]
				if opt.Arity == programs.Required {
					effectful = append(effectful, n, "rein-canary-run")
				} else {
					effectful = append(effectful, n)
				}
			}
		}
		for _, opt := range spec.Options {
			if opt.Effect&programs.Wraps != 0 {
				continue
			}
			for _, nm := range opt.Names {
				long := strings.HasPrefix(nm, "--") || len(nm) > 2
				switch opt.Arity {
				case programs.NoValue:
					add(slices.Concat(head, []string{nm}, ops)...)
				default:
					for _, v := range oracleValues {
						if opt.Arity == programs.Required {
							add(slices.Concat(head, []string{nm, v}, ops)...)
						}
						if long {
							add(slices.Concat(head, []string{nm + "=" + v}, ops)...)
						} else {
							add(slices.Concat(head, []string{nm + v}, ops)...)
						}
					}
					// -- as the value, and an effectful option after it.
					if opt.Arity == programs.Required && len(effectful) > 0 {
						k := r.IntN(len(effectful))
						add(slices.Concat(head, []string{nm, "--", effectful[k]}, ops)...)
					}
				}
				// Abbreviations of long options.
				if strings.HasPrefix(nm, "--") && len(nm) > 5 {
					add(slices.Concat(head, []string{nm[:len(nm)-2]}, ops)...)
				}
			}
		}
		// Clusters of two letters, the second maybe taking a value.
		var letters []*programs.Option
		for _, opt := range spec.Options {
			for _, nm := range opt.Names {
				if len(nm) == 2 && nm[0] == '-' && spec.Grammar != programs.Go && spec.Grammar != programs.Find {
					letters = append(letters, opt)
				}
			}
		}
		for range min(len(letters)*2, 40) {
			a, b := letters[r.IntN(len(letters))], letters[r.IntN(len(letters))]
			if a.Arity != programs.NoValue {
				continue
			}
			w := "-" + shortName(a) + shortName(b)
			if b.Arity == programs.Required {
				add(slices.Concat(head, []string{w, oracleValues[r.IntN(len(oracleValues))]}, ops)...)
			} else {
				add(slices.Concat(head, []string{w}, ops)...)
			}
		}
		// Options rein does not know.
		add(slices.Concat(head, []string{"--rein-oracle-unknown"}, ops)...)
		add(slices.Concat(head, []string{"-" + string(rune('A'+r.IntN(26)))}, ops)...)
		// Words fed through xargs become arguments.
		if len(effectful) > 0 && sub == "" {
			k := r.IntN(len(effectful))
			in := append([]string{effectful[k]}, ops...)
			out = append(out, "printf '%s\\n' "+joinQuoted(in)+" | xargs "+prog)
		}
	}
	r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func shortName(o *programs.Option) string {
	for _, n := range o.Names {
		if len(n) == 2 {
			return n[1:]
		}
	}
	return ""
}

func joinQuoted(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

// quoteWord quotes a word for the shell when it needs it.
func quoteWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=./,:+@%") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}
