package store

import (
	"context"
	"database/sql"
	"strings"
	"time"
)

// Command is one executed (or refused) command in the audit log.
type Command struct {
	Time       time.Time `json:"time"`
	Session    string    `json:"session,omitempty"`
	Source     string    `json:"source"` // ask, exec, run, mcp
	Workspace  string    `json:"workspace"`
	Command    string    `json:"command"`
	Verdict    string    `json:"verdict"`
	Rule       string    `json:"rule"`
	Reason     string    `json:"reason,omitempty"`
	ExitCode   *int      `json:"exit_code"`
	TimedOut   bool      `json:"timed_out,omitempty"`
	DurationMS int64     `json:"duration_ms"`
}

// Record adds a command to the audit log; sess may be nil.
func (s *Store) Record(ctx context.Context, sess *Session, c Command) error {
	var sid any
	if sess != nil {
		sid = sess.ID
	}
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`INSERT INTO commands (session_id, source, workspace, command, verdict, rule, reason, exit_code, timed_out, duration_ms, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sid, c.Source, c.Workspace, c.Command, c.Verdict, c.Rule, c.Reason, c.ExitCode, c.TimedOut, c.DurationMS, now())
		return err
	}))
}

// Filter selects audit rows.
type Filter struct {
	Since     time.Time
	Session   string
	Verdict   string
	Workspace string
	Limit     int
}

// Audit lists commands, oldest first.
func (s *Store) Audit(ctx context.Context, f Filter) ([]Command, error) {
	q := `SELECT c.created_at, COALESCE(s.name, ''), c.source, c.workspace, c.command, c.verdict, c.rule, c.reason, c.exit_code, c.timed_out, c.duration_ms
		FROM commands c LEFT JOIN sessions s ON s.id = c.session_id`
	var where []string
	var args []any
	if !f.Since.IsZero() {
		where, args = append(where, "c.created_at >= ?"), append(args, f.Since.UTC().Format(time.RFC3339Nano))
	}
	if f.Session != "" {
		where, args = append(where, "s.name = ?"), append(args, f.Session)
	}
	if f.Verdict != "" {
		where, args = append(where, "c.verdict = ?"), append(args, f.Verdict)
	}
	if f.Workspace != "" {
		where, args = append(where, "c.workspace = ?"), append(args, f.Workspace)
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY c.id"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	var out []Command
	for rows.Next() {
		var c Command
		var t string
		var exit sql.NullInt64
		if err := rows.Scan(&t, &c.Session, &c.Source, &c.Workspace, &c.Command, &c.Verdict, &c.Rule, &c.Reason, &exit, &c.TimedOut, &c.DurationMS); err != nil {
			return nil, s.dbError(err)
		}
		c.Time, _ = time.Parse(time.RFC3339Nano, t)
		if exit.Valid {
			v := int(exit.Int64)
			c.ExitCode = &v
		}
		out = append(out, c)
	}
	return out, s.dbErrorOrNil(rows.Err())
}
