package main

import (
	"context"
	"fmt"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/store"
)

type replayCmd struct {
	Name    []string `arg:"" optional:"" help:"A rein session's name; with --from, the transcripts to read (default: the agent's own for this repository)."`
	From    string   `enum:",claude-code,codex" default:"" help:"Re-vet an agent's own history instead of a rein session: claude-code (its transcripts in ~/.claude/projects) or codex (~/.codex/sessions)."`
	All     bool     `help:"With --from: every project's transcripts, not only this repository's."`
	Verbose bool     `short:"v" help:"With --from: every call and its decision."`
	JSON    bool     `help:"Print JSON (one object per command; with --from, the summary)."`
}

func (c *replayCmd) Help() string {
	return `Re-vets every command a past session ran (or tried) under the recipe that
--recipe / --preset / discovery selects, and prints the decisions that change.

Exit status: 1 when any decision would become more permissive (deny → ask or
allow, ask → allow), 0 otherwise.`
}

// replayChange is one command whose decision differs.
type replayChange struct {
	Command string         `json:"command"`
	Before  policy.Verdict `json:"before"`
	After   policy.Verdict `json:"after"`
	Rule    string         `json:"rule"`
	Reason  string         `json:"reason"`
	Looser  bool           `json:"more_permissive"`
}

func (c *replayCmd) Run(g *Globals, e *env) error {
	if c.From != "" {
		return c.history(g, e)
	}
	if len(c.Name) != 1 {
		return fmt.Errorf("give one session name (rein sessions lists them), or --from claude-code to re-vet an agent's own history")
	}
	name := c.Name[0]
	p, err := appOf(g).LoadPolicy("replay")
	if err != nil {
		return err
	}
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	rows, err := st.Audit(context.Background(), store.Filter{Session: name})
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		if _, err := st.Session(context.Background(), name, "", "", false); err != nil {
			return err
		}
	}
	looser, same := 0, 0
	for _, r := range rows {
		before := r.Verdict
		d := p.Check(r.Command)
		if d.Verdict == before {
			same++
			continue
		}
		ch := replayChange{Command: r.Command, Before: r.Verdict, After: d.Verdict, Rule: d.Rule, Reason: d.Reason, Looser: d.Verdict < before}
		if ch.Looser {
			looser++
		}
		if c.JSON {
			if err := writeJSON(e.stdout, ch, false); err != nil {
				return err
			}
			continue
		}
		mark := "stricter"
		if ch.Looser {
			mark = "LOOSER  "
		}
		fmt.Fprintf(e.stdout, "%s %s → %s  %s\n         rule %s: %s\n", mark, ch.Before, ch.After, report.Visible(ch.Command), ch.Rule, report.Visible(ch.Reason))
	}
	if !c.JSON {
		fmt.Fprintf(e.stdout, "%d commands re-vetted: %d unchanged, %d changed, %d more permissive\n", len(rows), same, len(rows)-same, looser)
	}
	if looser > 0 {
		return codeError(exitDeny)
	}
	return nil
}
