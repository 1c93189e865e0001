package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/reinsh/rein/shellparse"
	"golang.org/x/term"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/reinsh/rein/engine/hook"
	"github.com/reinsh/rein/engine/policy"
)

// What rein would have done with an agent's real history: every shell
// command and file access in its transcripts, vetted as rein hook would
// have vetted it, counted.

// historyTally is the summary of a replayed history.
type historyTally struct {
	Files     int `json:"files"`
	Lines     int `json:"lines"`
	Malformed int `json:"malformed"`
	Calls     int `json:"calls"`
	Other     int `json:"other_tools"`
	Allowed   int `json:"allowed"`
	Asked     int `json:"asked"`
	Denied    int `json:"denied"`
	// DeniedBy groups the denials by rule, with one example each.
	DeniedBy []ruleCount `json:"denied_by"`
	// AskedMost are the asked calls, most frequent first.
	AskedMost []callCount `json:"asked_most"`

	denied map[string]*ruleCount
	asked  map[string]*callCount
}

type ruleCount struct {
	Rule    string `json:"rule"`
	Count   int    `json:"count"`
	Example string `json:"example"`
	Reason  string `json:"reason"`
}

type callCount struct {
	Call  string `json:"call"`
	Count int    `json:"count"`
}

// claudeLine is a line of a Claude Code transcript, as far as replay reads
// it: an assistant message's tool_use blocks and where it ran.
type claudeLine struct {
	Type      string `json:"type"`
	Cwd       string `json:"cwd"`
	SessionID string `json:"sessionId"`
	Message   struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type  string                     `json:"type"`
	ID    string                     `json:"id"`
	Name  string                     `json:"name"`
	Input map[string]json.RawMessage `json:"input"`
}

// history replays the agent transcripts c names (or the agent's own for
// this repository).
func (c *replayCmd) history(g *Globals, e *env) error {
	p, err := appOf(g).LoadPolicy("replay")
	if err != nil {
		return err
	}
	files, err := c.transcripts(p.Recipe().Workspace)
	if err != nil {
		return err
	}
	t := &historyTally{denied: map[string]*ruleCount{}, asked: map[string]*callCount{}}
	h := &hookAgent{} // as rein hook answers by default
	// A progress line on a terminal, for a long history.
	progress := func() {}
	if f, ok := e.stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) && !c.Verbose {
		progress = func() {
			if t.Calls%20000 == 0 {
				fmt.Fprintf(e.stderr, "\rreplayed %d calls…", t.Calls)
			}
		}
		defer fmt.Fprint(e.stderr, "\r\033[K")
	}
	for _, f := range files {
		if err := t.replayFile(c.From, f, p, h, func(line string) {
			progress()
			if c.Verbose && !c.JSON {
				fmt.Fprintln(e.stdout, line)
			}
		}); err != nil {
			fmt.Fprintf(e.stderr, "rein: %s: %v (skipped)\n", f, err)
			continue
		}
		t.Files++
	}
	t.finish()
	if c.JSON {
		return writeJSON(e.stdout, t, true)
	}
	t.print(e.stdout)
	return nil
}

// transcripts are the files to read: those given, else the agent's own
// for the workspace (Claude Code: ~/.claude/projects/<the folder, / as
// ->/*.jsonl; Codex: ~/.codex/sessions/**/rollout-*.jsonl whose session ran
// there), or all of them with --all.
func (c *replayCmd) transcripts(workspace string) ([]string, error) {
	if len(c.Name) > 0 {
		return c.Name, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	if c.From == "codex" {
		root := filepath.Join(home, ".codex", "sessions")
		if d := os.Getenv("CODEX_HOME"); d != "" {
			root = filepath.Join(d, "sessions")
		}
		var files []string
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") && (c.All || codexRanIn(path, workspace)) {
				files = append(files, path)
			}
			return nil
		})
		if len(files) == 0 {
			return nil, fmt.Errorf("no Codex sessions under %s ran in %s; name the files, or use --all", root, workspace)
		}
		sort.Strings(files)
		return files, nil
	}
	root := filepath.Join(home, ".claude", "projects")
	pattern := filepath.Join(root, strings.NewReplacer("/", "-", ".", "-").Replace(workspace), "*.jsonl")
	if c.All {
		pattern = filepath.Join(root, "*", "*.jsonl")
	}
	files, _ := filepath.Glob(pattern)
	if len(files) == 0 {
		return nil, fmt.Errorf("no Claude Code transcripts match %s; name the files, or use --all", pattern)
	}
	return files, nil
}

// replayFile streams one transcript: a line at a time, the lines that
// carry no tool call skipped unread, a malformed one counted.
func (t *historyTally) replayFile(agent, path string, p *policy.Policy, h *hookAgent, show func(string)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	// Only the lines that can hold a call are decoded.
	marks := [][]byte{[]byte(`"tool_use"`)}
	var cwd, session string
	if agent == "codex" {
		marks = [][]byte{[]byte(`"function_call"`), []byte(`"local_shell_call"`), []byte(`"session_meta"`), []byte(`"turn_context"`)}
	}
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line (a big tool result): read it whole, then look.
			rest, err2 := r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		if len(bytes.TrimSpace(line)) > 0 {
			t.Lines++
			for _, m := range marks {
				if bytes.Contains(line, m) {
					if agent == "codex" {
						t.replayCodexLine(line, p, h, &cwd, &session, show)
					} else {
						t.replayLine(line, p, h, show)
					}
					break
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// codexRanIn reports whether a Codex rollout's session (its first line,
// session_meta) ran in the workspace.
func codexRanIn(path, workspace string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	line, _ := bufio.NewReaderSize(f, 64<<10).ReadSlice('\n')
	var meta codexLine
	if json.Unmarshal(line, &meta) != nil || meta.Type != "session_meta" {
		return false
	}
	return policy.Inside(meta.Payload.Cwd, workspace)
}

// codexLine is a line of a Codex rollout, as far as replay reads it: the
// session's folder (session_meta, turn_context) and the function calls
// the model made (response_item).
type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type      string `json:"type"`
		ID        string `json:"id"`
		Cwd       string `json:"cwd"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
	} `json:"payload"`
}

// codexCommand is the command line of a Codex shell call: exec_command's
// cmd, or the older shell tool's argv (bash -lc TEXT is TEXT).
func codexCommand(name, arguments string) (string, bool) {
	var args struct {
		Cmd     string   `json:"cmd"`
		Command []string `json:"command"`
	}
	if json.Unmarshal([]byte(arguments), &args) != nil {
		return "", false
	}
	switch name {
	case "exec_command":
		return args.Cmd, args.Cmd != ""
	case "shell", "container.exec", "local_shell":
		if n := len(args.Command); n == 3 && (args.Command[0] == "bash" || args.Command[0] == "sh" || args.Command[0] == "zsh") && (args.Command[1] == "-lc" || args.Command[1] == "-c") {
			return args.Command[2], true
		}
		if len(args.Command) > 0 {
			return shellparse.JoinArgv(args.Command), true
		}
	}
	return "", false
}

// replayCodexLine vets a Codex rollout line's shell call; cwd carries the
// session's folder from line to line.
func (t *historyTally) replayCodexLine(line []byte, p *policy.Policy, h *hookAgent, cwd *string, session *string, show func(string)) {
	var l codexLine
	if json.Unmarshal(line, &l) != nil {
		t.Malformed++
		return
	}
	switch {
	case l.Type == "session_meta":
		*session = l.Payload.ID
		fallthrough
	case l.Type == "turn_context":
		if filepath.IsAbs(l.Payload.Cwd) {
			*cwd = l.Payload.Cwd
		}
		return
	case l.Type != "response_item" || l.Payload.Type != "function_call" && l.Payload.Type != "local_shell_call":
		return
	}
	command, ok := codexCommand(l.Payload.Name, l.Payload.Arguments)
	if !ok {
		t.Other++
		return
	}
	dir := *cwd
	if dir == "" {
		dir = p.Recipe().Workspace
	}
	input, _ := json.Marshal(command)
	call := &hook.Call{Agent: hook.Codex, SessionID: *session, ToolUseID: l.Payload.CallID, Cwd: dir, Tool: "Bash", Input: map[string]json.RawMessage{"command": input}}
	t.tally(call, p, h, show)
}

func (t *historyTally) replayLine(line []byte, p *policy.Policy, h *hookAgent, show func(string)) {
	var l claudeLine
	if json.Unmarshal(line, &l) != nil {
		t.Malformed++
		return
	}
	if l.Type != "assistant" {
		return
	}
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return // a text-only message
	}
	for _, b := range blocks {
		if b.Type != "tool_use" {
			continue
		}
		cwd := l.Cwd
		if !filepath.IsAbs(cwd) {
			cwd = p.Recipe().Workspace
		}
		t.tally(&hook.Call{Agent: hook.ClaudeCode, SessionID: l.SessionID, ToolUseID: b.ID, Cwd: cwd, Tool: b.Name, Input: b.Input}, p, h, show)
	}
}

// tally vets one call as rein hook would and counts its answer.
func (t *historyTally) tally(call *hook.Call, p *policy.Policy, h *hookAgent, show func(string)) {
	access, err := call.Access()
	var a hook.Answer
	switch {
	case err != nil:
		a = refusal("%v", err)
	case access.Kind == hook.Other:
		t.Other++
		return
	default:
		a = h.vet(p, call, access)
	}
	t.Calls++
	what := call.Tool + " " + access.Command + strings.Join(access.Paths, " ")
	if access.Kind == hook.Shell {
		what = access.Command
	}
	switch a.Decision {
	case hook.Allow:
		t.Allowed++
	case hook.Ask:
		t.Asked++
		if t.asked[what] == nil {
			t.asked[what] = &callCount{Call: what}
		}
		t.asked[what].Count++
	default:
		t.Denied++
		rule := a.Rule
		if rule == "" {
			rule = "(input)"
		}
		if t.denied[rule] == nil {
			t.denied[rule] = &ruleCount{Rule: rule, Example: what, Reason: a.Reason}
		}
		t.denied[rule].Count++
	}
	show(fmt.Sprintf("%-5s %s   # %s", a.Decision, what, a.Rule))
}

// finish orders the groups: the most denials, the most frequent asks first.
func (t *historyTally) finish() {
	t.DeniedBy = mostFirst(t.denied, func(r ruleCount) (int, string) { return r.Count, r.Rule })
	t.AskedMost = mostFirst(t.asked, func(c callCount) (int, string) { return c.Count, c.Call })
}

// mostFirst lists a tally's groups, the largest count first, then by name.
func mostFirst[T any](groups map[string]*T, key func(T) (int, string)) []T {
	out := make([]T, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	sort.Slice(out, func(i, j int) bool {
		ci, ni := key(out[i])
		cj, nj := key(out[j])
		if ci != cj {
			return ci > cj
		}
		return ni < nj
	})
	return out
}

func (t *historyTally) print(w io.Writer) {
	pct := func(n int) string {
		if t.Calls == 0 {
			return "0%"
		}
		return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(t.Calls))
	}
	fmt.Fprintf(w, "%d calls in %d transcripts: %d allowed (%s), %d asked (%s), %d denied (%s)",
		t.Calls, t.Files, t.Allowed, pct(t.Allowed), t.Asked, pct(t.Asked), t.Denied, pct(t.Denied))
	if t.Other > 0 || t.Malformed > 0 {
		fmt.Fprintf(w, "; %d calls of other tools, %d unreadable lines skipped", t.Other, t.Malformed)
	}
	fmt.Fprintln(w)
	if len(t.DeniedBy) > 0 {
		fmt.Fprintln(w, "\ndenied, by rule:")
		for _, r := range t.DeniedBy {
			fmt.Fprintf(w, "  %4d  %s   e.g. %s\n", r.Count, r.Rule, clip(r.Example, 80))
		}
	}
	if len(t.AskedMost) > 0 {
		fmt.Fprintln(w, "\nasked, most frequent first (rein allow 'CMD' adds one to the recipe):")
		for i, c := range t.AskedMost {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more\n", len(t.AskedMost)-10)
				break
			}
			fmt.Fprintf(w, "  %4d  %s\n", c.Count, clip(c.Call, 100))
		}
	}
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// minProposed is how often an agent must have run a command for rein init
// --from-history to propose it.
const minProposed = 2

// fromHistory proposes catalog entries for the commands the agent ran here
// that the recipe asks about only because no entry names them: the
// everyday commands of this repository. Never one a rule asks about or
// refuses by name (a named danger, a secret): those stay asked.
func (c *initCmd) fromHistory(g *Globals, e *env) error {
	rc := &replayCmd{From: c.FromHistory}
	p, err := appOf(g).LoadPolicy("init")
	if err != nil {
		return err
	}
	if _, ok := p.Recipe().Repository(); !ok {
		return fmt.Errorf("there is no %s here to add to: run rein init first, then rein init --from-history %s", "rein.jsonnet", c.FromHistory)
	}
	files, err := rc.transcripts(p.Recipe().Workspace)
	if err != nil {
		return err
	}
	t := &historyTally{denied: map[string]*ruleCount{}, asked: map[string]*callCount{}}
	h := &hookAgent{}
	for _, f := range files {
		if t.replayFile(c.FromHistory, f, p, h, func(string) {}) == nil {
			t.Files++
		}
	}
	t.finish()
	var proposed []string
	for _, a := range t.AskedMost {
		if a.Count < minProposed || strings.ContainsAny(a.Call, "\n\x00") {
			continue
		}
		if d := p.Check(a.Call); d.Verdict == policy.Ask && askable(d) {
			proposed = append(proposed, a.Call)
		}
	}
	if len(proposed) == 0 {
		fmt.Fprintf(e.stdout, "nothing to propose: of %d calls in %d transcripts, none the recipe asks about only for want of an entry was run %d times or more\n", t.Calls, t.Files, minProposed)
		return nil
	}
	fmt.Fprintf(e.stdout, "From %d calls in %d transcripts, these commands were asked about only because no catalog entry names them:\n\n", t.Calls, t.Files)
	for _, cmd := range proposed {
		fmt.Fprintf(e.stdout, "+ %s\n", allowEntryLine(cmd))
	}
	if !c.Write {
		fmt.Fprintln(e.stdout, "\nrein init --from-history "+c.FromHistory+" --write adds them, each with a test; rein allow 'CMD' adds one.")
		return nil
	}
	for _, cmd := range proposed {
		msg, err := addToRecipe(g, cmd, "run by your agent here", false)
		if err != nil {
			fmt.Fprintf(e.stderr, "rein: %s: %v\n", cmd, err)
			continue
		}
		fmt.Fprint(e.stdout, msg)
	}
	return nil
}

// allowEntryLine is a proposed catalog entry as one line.
func allowEntryLine(command string) string {
	return fmt.Sprintf("commands+: [{ command: %q }], tests+: { allow+: [%q] }", command, command)
}
