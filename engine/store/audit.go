package store

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/reinsh/rein/engine/verdict"
	"os"
	"strings"
	"time"
)

// Command is one executed (or refused) command in the audit log.
type Command struct {
	Time    time.Time `json:"time"`
	Session string    `json:"session,omitempty"`
	Source  string    `json:"source"` // ask, exec, run, mcp, hook:AGENT, AGENT (a hook's rewritten run)
	// ToolUseID is the agent's id of the tool call a hook vetted.
	ToolUseID  string          `json:"tool_use_id,omitempty"`
	Workspace  string          `json:"workspace"`
	Command    string          `json:"command"`
	Verdict    verdict.Verdict `json:"verdict"`
	Rule       string          `json:"rule"`
	Reason     string          `json:"reason,omitempty"`
	ExitCode   *int            `json:"exit_code"`
	TimedOut   bool            `json:"timed_out,omitempty"`
	DurationMS int64           `json:"duration_ms"`
	// State is "ended" for a finished (or refused) command, "running" while
	// the rein that started it lives, and "interrupted" when that rein died
	// before the command ended: it may have run on unwatched.
	State string `json:"state"`
}

// Command states.
const (
	Ended       = "ended"
	Running     = "running"
	Interrupted = "interrupted"
)

// Start records a command about to run, before it runs, and returns its
// row for Finish. Should rein die while it runs, the row stays "started"
// and the audit shows the command as interrupted.
func (s *Store) Start(ctx context.Context, sess *Session, c Command) (int64, error) {
	var id int64
	err := s.retry(ctx, func(tx *sql.Tx) error {
		res, err := tx.Exec(`INSERT INTO commands (session_id, source, workspace, command, verdict, rule, reason, state, pid, tool_use_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 'started', ?, ?, ?)`,
			sessionID(sess), c.Source, c.Workspace, c.Command, c.Verdict, c.Rule, c.Reason, os.Getpid(), c.ToolUseID, now())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	return id, s.dbErrorOrNil(err)
}

// Finish completes a row Start made with the command's outcome.
func (s *Store) Finish(ctx context.Context, id int64, c Command) error {
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`UPDATE commands SET verdict = ?, rule = ?, reason = ?, exit_code = ?, timed_out = ?, duration_ms = ?, state = 'ended' WHERE id = ?`,
			c.Verdict, c.Rule, c.Reason, c.ExitCode, c.TimedOut, c.DurationMS, id)
		return err
	}))
}

// Record adds a command to the audit log; sess may be nil.
func (s *Store) Record(ctx context.Context, sess *Session, c Command) error {
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO commands (session_id, source, workspace, command, verdict, rule, reason, exit_code, timed_out, duration_ms, tool_use_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sessionID(sess), c.Source, c.Workspace, c.Command, c.Verdict, c.Rule, c.Reason, c.ExitCode, c.TimedOut, c.DurationMS, c.ToolUseID, now())
		return err
	}))
}

// sessionID is the row's session column: NULL for a command of no session.
func sessionID(sess *Session) any {
	if sess == nil {
		return nil
	}
	return sess.ID
}

// Filter selects audit rows.
type Filter struct {
	Since     time.Time
	Session   string
	Verdicts  []verdict.Verdict // only these (none: every verdict)
	Workspace string
	Limit     int
}

// Audit lists commands, oldest first.
func (s *Store) Audit(ctx context.Context, f Filter) ([]Command, error) {
	q := ` FROM commands c LEFT JOIN sessions s ON s.id = c.session_id`
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where, args = append(where, "c.created_at >= ?"), append(args, f.Since.UTC().Format(time.RFC3339Nano))
	}
	if f.Session != "" {
		where, args = append(where, "s.name = ?"), append(args, f.Session)
	}
	if len(f.Verdicts) > 0 {
		where = append(where, "c.verdict IN (?"+strings.Repeat(", ?", len(f.Verdicts)-1)+")")
		for _, v := range f.Verdicts {
			args = append(args, v.String())
		}
	}
	if f.Workspace != "" {
		where, args = append(where, "c.workspace = ?"), append(args, f.Workspace)
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	c, err := openRaw(s.path, s.timeout)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer c.close()
	// The rows are counted first (SQLite counts without reading them) so
	// that the list is made once at its size: growing it row by row was a
	// quarter of rein audit's time.
	n := 0
	err = c.query(ctx, "SELECT count(*)"+q, args, 1, func(r *rawRow) error {
		v, _ := r.int(0)
		n = int(v)
		return nil
	})
	if err != nil {
		return nil, s.dbError(err)
	}
	q += " ORDER BY c.id"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
		n = min(n, f.Limit)
	}
	out := make([]Command, 0, n)
	err = c.query(ctx, `SELECT c.created_at, COALESCE(s.name, ''), c.source, c.workspace, c.command, c.verdict, c.rule, c.reason, c.exit_code, c.timed_out, c.duration_ms, c.state, c.pid, c.tool_use_id`+q, args, 14, func(r *rawRow) error {
		var c Command
		var err error
		c.Time, _ = time.Parse(time.RFC3339Nano, r.text(0))
		c.Session, c.Source, c.Workspace, c.Command = r.text(1), r.text(2), r.text(3), r.text(4)
		if c.Verdict, err = verdict.Parse(r.text(5)); err != nil {
			return fmt.Errorf("the record of %q: %w", c.Command, err)
		}
		c.Rule, c.Reason = r.text(6), r.text(7)
		if v, ok := r.int(8); ok {
			e := int(v)
			c.ExitCode = &e
		}
		timedOut, _ := r.int(9)
		c.TimedOut = timedOut != 0
		c.DurationMS, _ = r.int(10)
		c.State = r.text(11)
		c.ToolUseID = r.text(13)
		if c.State != Ended {
			c.State = Interrupted
			if pid, ok := r.int(12); ok && processAlive(int(pid)) {
				c.State = Running
			}
		}
		out = append(out, c)
		return nil
	})
	return out, s.dbErrorOrNil(err)
}
