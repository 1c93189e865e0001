package main

import (
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/policy"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/store"
)

type sessionsCmd struct {
	JSON  bool `help:"Print one JSON object per session."`
	Prune bool `help:"Remove the sessions of folders that no longer exist, and those with no question asked."`
}

func (c *sessionsCmd) Run(g *Globals, e *env) error {
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	list, err := st.Sessions(context.Background())
	if err != nil {
		return err
	}
	if c.Prune {
		var kept []store.Session
		for _, s := range list {
			_, statErr := os.Stat(s.Workspace)
			if s.Workspace != "" && os.IsNotExist(statErr) || s.Turns == 0 && s.Commands == 0 {
				sess := s
				if err := st.Delete(context.Background(), &sess); err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "removed %s (%s)\n", s.Name, pruneReason(s, statErr))
				continue
			}
			kept = append(kept, s)
		}
		list = kept
	}
	if c.JSON {
		return writeJSONLines(e.stdout, list)
	}
	if len(list) == 0 {
		fmt.Fprintln(e.stderr, "no sessions yet in "+st.Path())
		return nil
	}
	var t table
	t.add("NAME", "LAST ACTIVITY", "QUESTIONS", "COMMANDS", "WORKSPACE")
	for _, s := range list {
		t.add(s.Name, s.Updated.Local().Format("2006-01-02 15:04"), strconv.Itoa(s.Turns), strconv.Itoa(s.Commands), s.Workspace)
	}
	return t.write(e.stdout)
}

type logCmd struct {
	Name string `arg:"" help:"Session name."`
	JSON bool   `help:"Print the stored events, one JSON object per line."`
}

func (c *logCmd) Run(g *Globals, e *env) error {
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	ctx := context.Background()
	sess, err := st.Session(ctx, c.Name, "", "", false)
	if err != nil {
		return err
	}
	events, err := st.Events(ctx, sess)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSONLines(e.stdout, events)
	}
	fmt.Fprintf(e.stdout, "session %s (%s, %s)\n", sess.Name, sess.Model, sess.Workspace)
	for _, ev := range events {
		m := message.Message{Kind: message.Kind(ev.Kind), Content: ev.Content, Data: ev.Data}
		when := ev.Created.Local().Format("15:04:05")
		switch m.Kind {
		case message.System:
		case message.User:
			fmt.Fprintf(e.stdout, "\n%s  you: %s\n", when, report.Visible(m.Content))
		case message.Assistant:
			fmt.Fprintf(e.stdout, "%s  model: %s\n", when, report.Visible(m.Content))
		case message.ToolCall:
			fmt.Fprintf(e.stdout, "%s  ▶ %s\n", when, report.Visible(m.Content))
		case message.ToolResult:
			fmt.Fprintf(e.stdout, "%s    %s\n", when, firstLine(m.Content))
		case "usage":
			fmt.Fprintf(e.stdout, "%s    tokens: %s\n", when, m.Content)
		}
	}
	return nil
}

// firstLine is the first line of a stored text, fit for a table row.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return report.Clip(s, 160)
}

type auditCmd struct {
	Since     string `help:"Only commands since this long ago (24h, 7d) or this date (2026-01-31)." placeholder:"WHEN"`
	Session   string `help:"Only commands of this session." placeholder:"NAME"`
	Verdict   string `help:"Only commands with this verdict (allow, ask, deny)." enum:",allow,ask,deny" default:""`
	Workspace string `help:"Only commands run in this workspace." placeholder:"DIR"`
	JSON      bool   `help:"Print one JSON object per line."`
}

func (c *auditCmd) Run(g *Globals, e *env) error {
	since, err := parseSince(c.Since)
	if err != nil {
		return err
	}
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	f := store.Filter{Since: since, Session: c.Session, Workspace: c.Workspace}
	if c.Verdict != "" {
		v, err := policy.ParseVerdict(c.Verdict)
		if err != nil {
			return err
		}
		f.Verdicts = []policy.Verdict{v}
	}
	rows, err := st.Audit(context.Background(), f)
	if err != nil {
		return err
	}
	if c.JSON {
		return writeJSONLines(e.stdout, rows)
	}
	t := table{rows: make([][]string, 0, len(rows)+1)}
	t.add("TIME", "SESSION", "SOURCE", "VERDICT", "RULE", "EXIT", "MS", "COMMAND", "WORKSPACE")
	// The times as one block of text, sliced: one allocation, not one a row.
	const layout = "2006-01-02 15:04:05"
	block, ends := make([]byte, 0, len(rows)*len(layout)), make([]int, len(rows)+1)
	for i, r := range rows {
		block = r.Time.Local().AppendFormat(block, layout)
		ends[i+1] = len(block)
	}
	times := string(block)
	for i, r := range rows {
		exit := "-"
		switch {
		case r.State != store.Ended:
			exit = r.State // still running, or its rein died: no exit to show
		case r.ExitCode != nil:
			exit = strconv.Itoa(*r.ExitCode)
		}
		t.add(times[ends[i]:ends[i+1]], r.Session, r.Source, r.Verdict.String(), r.Rule, exit,
			strconv.FormatInt(r.DurationMS, 10), firstLine(r.Command), r.Workspace)
	}
	return t.write(e.stdout)
}

func parseSince(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if strings.HasSuffix(s, "d") {
		var days int
		if _, err := fmt.Sscanf(s, "%dd", &days); err == nil {
			return time.Now().AddDate(0, 0, -days), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil {
		return time.Now().Add(-d), nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since %q: use a duration (24h, 7d) or a date (2026-01-31)", s)
}

// pruneReason says why a session was pruned.
func pruneReason(s store.Session, statErr error) string {
	if s.Workspace != "" && os.IsNotExist(statErr) {
		return "its folder " + s.Workspace + " is gone"
	}
	return "nothing was asked in it"
}
