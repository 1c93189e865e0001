package main

import (
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/hook"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/session"
	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/trust"
)

// hookCmd is rein as the command gate inside coding agents.
type hookCmd struct {
	ClaudeCode hookClaude    `cmd:"" name:"claude-code" help:"Answer a Claude Code PreToolUse hook (the tool call on standard input)."`
	Codex      hookCodex     `cmd:"" name:"codex" help:"Answer a Codex PreToolUse hook."`
	Gemini     hookGemini    `cmd:"" name:"gemini" help:"Answer a Gemini CLI BeforeTool hook."`
	Install    hookInstall   `cmd:"" help:"Add rein's hook to an agent's settings (or --print the snippet)."`
	Uninstall  hookUninstall `cmd:"" help:"Remove the hook rein install added, and nothing else."`
}

func (c *hookCmd) Help() string {
	return `The agent runs the hook before each shell command and file access, with the
tool call on standard input. rein vets it under the recipe of the call's
folder and answers in the agent's format: a denied command is refused with
the rule and what is allowed instead (the model reads it); an asked one goes
to the person's prompt (Gemini CLI, which cannot ask, refuses it); an allowed
one is rewritten to run through 'rein exec' (the sandbox, the run-time
re-checks, the secret exclusions and the audit log apply) with its output and
exit status going back to the agent as bash's would. File tools get rein's
path policy: secrets unreadable, protected files unwritable. Other tools: no
opinion.

  rein hook install claude-code        # .claude/settings.json of this folder
  rein hook install codex --user       # ~/.codex/hooks.json
  rein hook install gemini --print     # show the snippet, change nothing

Malformed input, a broken recipe, a panic or a hook that runs too long
answer with a denial: nothing fails open.`
}

// hookAgent is what the three agents' commands share.
type hookAgent struct {
	CheckOnly bool `name:"check-only" help:"Vet only, without rewriting commands to run through rein; what is safe only when rein runs it is asked instead."`
	// db is the audit database the rewritten run records in: the hook's
	// own, whatever the agent's shell environment says.
	db string
	// selection is the recipe the hook decided with (--dir, --recipe,
	// --preset), as rein's flags: the rewritten run decides and runs under
	// the same one.
	selection []string
	// env is the process's (for closeStore).
	env *env
}

type hookClaude struct{ hookAgent }
type hookCodex struct{ hookAgent }
type hookGemini struct{ hookAgent }

func (h *hookClaude) Run(g *Globals, e *env) error { return h.answer(g, e, hook.ClaudeCode) }
func (h *hookCodex) Run(g *Globals, e *env) error  { return h.answer(g, e, hook.Codex) }
func (h *hookGemini) Run(g *Globals, e *env) error { return h.answer(g, e, hook.Gemini) }

// hookDeadline is how long rein takes at most to answer: the agents treat
// a hook that outlives their own timeout (60 s by default) as an error and
// run the tool anyway, so rein answers with a denial well before.
var hookDeadline = 20 * time.Second

// answer reads the call, decides, and writes the agent's answer. Every
// failure on the way is a denial saying what went wrong.
func (h *hookAgent) answer(g *Globals, e *env, agent hook.Agent) error {
	h.env = e
	type result struct {
		call *hook.Call
		a    hook.Answer
	}
	done := make(chan result, 1)
	go func() {
		var call *hook.Call
		defer func() {
			if r := recover(); r != nil {
				done <- result{call, hook.Answer{Decision: hook.Deny, Reason: fmt.Sprintf("rein failed while vetting this (%v), so it is refused; run rein doctor, and report it", r)}}
			}
		}()
		data, err := io.ReadAll(io.LimitReader(e.stdin, hook.MaxPayload+1))
		switch {
		case err != nil:
			done <- result{nil, refusal("rein could not read the hook's input: %v", err)}
			return
		case len(data) > hook.MaxPayload:
			done <- result{nil, refusal("the hook's input is over %d MiB, more than any tool call: refused", hook.MaxPayload>>20)}
			return
		}
		call, err = hook.Parse(agent, data)
		if err != nil {
			done <- result{nil, refusal("%v: refused", err)}
			return
		}
		done <- result{call, h.decide(g, call)}
	}()
	var r result
	select {
	case r = <-done:
	case <-time.After(hookDeadline):
		r.a = refusal("rein took longer than %s to vet this, so it is refused; try again, or run rein doctor", hookDeadline)
	}
	out, code := hook.Reply(agent, r.call, r.a)
	if _, err := e.stdout.Write(out); err != nil {
		return err
	}
	if code != 0 {
		return codeError(code)
	}
	return nil
}

func refusal(format string, args ...any) hook.Answer {
	return hook.Answer{Decision: hook.Deny, Reason: fmt.Sprintf(format, args...)}
}

// decide vets one call under the recipe of its folder.
func (h *hookAgent) decide(g *Globals, call *hook.Call) hook.Answer {
	access, err := call.Access()
	if err != nil {
		return refusal("%v: refused", err)
	}
	local := *g
	if local.Dir == "" {
		local.Dir = call.Cwd
	}
	if st, err := os.Stat(local.Dir); err != nil || !st.IsDir() {
		return refusal("the hook's working folder %s is not a folder rein can read: refused", local.Dir)
	}
	h.db = appOf(&local).DBPath()
	if abs, err := filepath.Abs(h.db); err == nil {
		h.db = abs
	}
	h.selection = []string{"--dir", local.Dir}
	if local.Recipe != "" {
		abs, err := filepath.Abs(local.Recipe)
		if err != nil {
			return refusal("rein cannot find the recipe %s: %v", local.Recipe, err)
		}
		h.selection = append(h.selection, "--recipe", abs)
	}
	if local.Preset != "" {
		h.selection = append(h.selection, "--preset", local.Preset)
	}
	db := appOf(&local).OpenStoreAsync()
	defer db.Discard()
	p, err := appOf(&local).LoadPolicy("hook:" + string(call.Agent))
	if err != nil {
		return refusal("rein could not load the recipe for %s, so it refuses everything there: %v (rein check shows the same error)", local.Dir, err)
	}
	if access.Kind == hook.Other {
		// No opinion, unless the recipe names the tool.
		v, ok := p.Recipe().Hook.Tools[call.Tool]
		if !ok {
			return hook.Answer{}
		}
		a := hook.Answer{Decision: hook.Decision(v), Rule: "hook.tools." + call.Tool, Reason: fmt.Sprintf("rein: the recipe's hook.tools says %s to %s", v, call.Tool)}
		h.record(db, p, call, access, a)
		return a
	}
	a := h.vet(p, call, access)
	if note := h.unapproved(p); note != "" && a.Decision != hook.Deny {
		a = hook.Answer{Decision: hook.Ask, Reason: note, Rule: "trust", Command: a.Command}
	}
	h.record(db, p, call, access, a)
	return a
}

// unapproved says why the repository's recipe is not approved yet, or "".
func (h *hookAgent) unapproved(p *policy.Policy) string {
	if app.CIApproves() {
		return ""
	}
	c, err := app.CheckApproval(p.Recipe())
	if err != nil {
		return fmt.Sprintf("rein cannot tell whether this repository's recipe is approved (%v); approve it with rein trust", err)
	}
	if c == nil || c.State == trust.Trusted {
		return ""
	}
	return fmt.Sprintf("rein: the recipe %s is not approved yet, so a person decides each call; read it (rein compile --summary), then run rein trust in %s", c.Path, filepath.Dir(c.Path))
}

// vet decides the access under the policy.
func (h *hookAgent) vet(p *policy.Policy, call *hook.Call, access hook.Access) hook.Answer {
	if access.Kind == hook.Shell {
		return h.vetShell(p, call, access)
	}
	write := access.Kind == hook.Write
	for _, path := range access.Paths {
		abs := path
		if strings.HasPrefix(path, "~") {
			home, _ := os.UserHomeDir()
			abs = filepath.Join(home, strings.TrimPrefix(path, "~"))
		}
		real, err := policy.ResolveExisting(abs)
		if err != nil {
			return refusal("rein cannot resolve %s: %v", path, err)
		}
		if res := p.CheckPath(real, write); res.Verdict != policy.Allow {
			return hook.Answer{Decision: verdictOf(res.Verdict), Rule: res.Rule, Reason: fmt.Sprintf("rein: %s %s is refused by rule %s: %s", call.Tool, path, res.Rule, res.Reason)}
		}
		if access.Walk {
			if secret := p.SecretInSearch(real, access.Glob); secret != "" {
				a := refusal("rein: %s would read %s, a secret file, while searching %s; narrow the path or the file pattern, or search with the shell's grep -r, which rein runs with the secrets left out", call.Tool, secret, path)
				a.Rule = "paths.deny"
				return a
			}
		}
	}
	rule := "paths.read"
	if write {
		rule = "paths.write"
	}
	return hook.Answer{Decision: hook.Allow, Rule: rule, Reason: "rein: " + call.Tool + " reaches only what the recipe allows"}
}

func verdictOf(v policy.Verdict) hook.Decision {
	switch v {
	case policy.Allow:
		return hook.Allow
	case policy.Ask:
		return hook.Ask
	}
	return hook.Deny
}

// vetShell decides a shell command: deny and ask as the policy says; an
// allowed (or asked) command is rewritten to run through rein exec.
func (h *hookAgent) vetShell(p *policy.Policy, call *hook.Call, access hook.Access) hook.Answer {
	dir := call.Cwd
	if access.Dir != "" {
		dir = access.Dir
	}
	d := p.Decide(policy.Facts{Text: access.Command, Dir: dir})
	reason := "rein: " + runner.Denied(d).Error
	switch {
	case d.Verdict == policy.Deny:
		return hook.Answer{Decision: hook.Deny, Rule: d.Rule, Reason: reason}
	case h.CheckOnly && d.Verdict == policy.Ask:
		return hook.Answer{Decision: hook.Ask, Rule: d.Rule, Reason: reason}
	case h.CheckOnly:
		if why := p.In(dir).NeedsRunner(d, access.Command); why != "" {
			return hook.Answer{Decision: hook.Ask, Rule: "--check-only", Reason: "rein allows this only when rein runs it (" + why + "), and with --check-only the agent's shell runs it as written: a person decides"}
		}
		return hook.Answer{Decision: hook.Allow, Rule: d.Rule, Reason: fmt.Sprintf("rein: allowed by rule %s", d.Rule)}
	}
	command, err := rewrite(call, access, h.selection, dir, h.db, d.Verdict == policy.Ask)
	if err != nil {
		return refusal("rein cannot hand this command to itself: %v", err)
	}
	if d.Verdict == policy.Ask {
		return hook.Answer{Decision: hook.Ask, Rule: d.Rule, Reason: reason, Command: command}
	}
	return hook.Answer{Decision: hook.Allow, Rule: d.Rule, Reason: fmt.Sprintf("rein: allowed by rule %s; it runs through rein exec", d.Rule), Command: command}
}

// rewrite is the command line that runs text through rein exec under the
// same recipe, folder and timeout: rein's path and every argument single-
// quoted, so that no shell reads anything in them.
func rewrite(call *hook.Call, access hook.Access, selection []string, dir, db string, approved bool) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", err
	}
	words := append(append([]string{exe}, selection...), "--db", db, "exec", "--cwd", dir, "--hook", string(call.Agent))
	if call.SessionID != "" {
		words = append(words, "--hook-session", call.SessionID)
	}
	if call.ToolUseID != "" {
		words = append(words, "--tool-use-id", call.ToolUseID)
	}
	if access.Timeout > 0 {
		words = append(words, "--timeout", fmt.Sprintf("%ds", access.Timeout))
	}
	if approved {
		words = append(words, "--yes") // the person approved it in the agent's prompt
	}
	words = append(words, "--", access.Command)
	quoted := make([]string, len(words))
	for i, w := range words {
		if quoted[i], err = hook.Quote(w); err != nil {
			return "", err
		}
	}
	return strings.Join(quoted, " "), nil
}

// agentSession is the rein session an agent's session is recorded under
// (rein audit --session, rein replay).
func agentSession(st *store.Store, agent, id, workspace string) *store.Session {
	if id == "" {
		return nil
	}
	sess, err := st.Session(context.Background(), agent+"-"+id, workspace, agent, true)
	if err != nil {
		return nil
	}
	return sess
}

// record writes the hook's decision to the audit log (a rewritten
// command's run is recorded by the rein exec it runs through).
func (h *hookAgent) record(db *app.PendingStore, p *policy.Policy, call *hook.Call, access hook.Access, a hook.Answer) {
	st, err := db.Take()
	if err != nil {
		return // the decision stands; the agent's own log keeps the call
	}
	defer h.env.closeStore(st)
	text := access.Command
	if access.Kind != hook.Shell {
		text = call.Tool + " " + strings.Join(access.Paths, " ")
	}
	v, err := policy.ParseVerdict(string(a.Decision))
	if err != nil {
		return // no opinion: nothing was decided
	}
	c := store.Command{Source: "hook:" + string(call.Agent), Workspace: p.Recipe().Workspace, Command: text, Verdict: v, Rule: a.Rule, Reason: a.Reason, ToolUseID: call.ToolUseID}
	session.FinishCall(st, 0, agentSession(st, string(call.Agent), call.SessionID, p.Recipe().Workspace), c, nil)
}
