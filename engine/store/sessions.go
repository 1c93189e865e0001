package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/reinsh/rein/engine/message"
)

// Session is one named conversation.
type Session struct {
	ID        int64     `json:"-"`
	Name      string    `json:"name"`
	Workspace string    `json:"workspace"`
	Model     string    `json:"model"`
	Created   time.Time `json:"created_at"`
	Updated   time.Time `json:"last_activity"`
	Turns     int       `json:"turns"`
	Commands  int       `json:"commands"`
	Events    int       `json:"events"`
}

// Session returns the named session, creating it when create is set.
func (s *Store) Session(ctx context.Context, name, workspace, model string, create bool) (*Session, error) {
	var sess *Session
	err := s.retry(ctx, func(tx *sql.Tx) error {
		var err error
		sess, err = getSession(tx, name)
		if errors.Is(err, errNoSession) && create {
			t := now()
			res, err := tx.Exec(`INSERT INTO sessions (name, workspace, model, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`, name, workspace, model, t, t)
			if err != nil {
				return err
			}
			id, _ := res.LastInsertId()
			ts, _ := time.Parse(time.RFC3339Nano, t)
			sess = &Session{ID: id, Name: name, Workspace: workspace, Model: model, Created: ts, Updated: ts}
			return nil
		}
		return err
	})
	if errors.Is(err, errNoSession) {
		return nil, fmt.Errorf("no session named %q (rein sessions lists them)", name)
	}
	if err != nil {
		return nil, s.dbError(err)
	}
	return sess, nil
}

func getSession(tx *sql.Tx, name string) (*Session, error) {
	var sess Session
	var created, updated string
	err := tx.QueryRow(`SELECT id, name, workspace, model, created_at, updated_at FROM sessions WHERE name = ?`, name).
		Scan(&sess.ID, &sess.Name, &sess.Workspace, &sess.Model, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, errNoSession
	}
	sess.Created, _ = time.Parse(time.RFC3339Nano, created)
	sess.Updated, _ = time.Parse(time.RFC3339Nano, updated)
	return &sess, err
}

// Reset removes a session's events, keeping its name (--new-session).
func (s *Store) Reset(ctx context.Context, sess *Session) error {
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`DELETE FROM events WHERE session_id = ?`, sess.ID)
		return err
	}))
}

// Delete removes a session and its events (a conversation that failed
// before the model said anything leaves none behind). Its commands stay in
// the audit log, no longer tied to it.
func (s *Store) Delete(ctx context.Context, sess *Session) error {
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		if _, err := tx.Exec(`UPDATE commands SET session_id = NULL WHERE session_id = ?`, sess.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(`DELETE FROM events WHERE session_id = ?`, sess.ID); err != nil {
			return err
		}
		_, err := tx.Exec(`DELETE FROM sessions WHERE id = ?`, sess.ID)
		return err
	}))
}

func (s *Store) dbErrorOrNil(err error) error {
	if err == nil {
		return nil
	}
	return s.dbError(err)
}

// Append writes one message as the session's next event and commits it
// durably before returning.
func (s *Store) Append(ctx context.Context, sess *Session, m message.Message) error {
	var data any
	if len(m.Data) > 0 {
		data = string(m.Data)
	}
	return s.dbErrorOrNil(s.retry(ctx, func(tx *sql.Tx) error {
		t := now()
		if _, err := tx.Exec(`INSERT INTO events (session_id, seq, kind, content, data_json, created_at)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE session_id = ?), ?, ?, ?, ?)`,
			sess.ID, sess.ID, string(m.Kind), m.Content, data, t); err != nil {
			return err
		}
		_, err := tx.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, t, sess.ID)
		return err
	}))
}

// Event is a stored message with its place in the session.
type Event struct {
	Seq     int             `json:"seq"`
	Kind    string          `json:"kind"`
	Content string          `json:"content"`
	Data    json.RawMessage `json:"data,omitempty"`
	Created time.Time       `json:"created_at"`
}

// Events returns a session's events in order.
func (s *Store) Events(ctx context.Context, sess *Session) ([]Event, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, kind, content, COALESCE(data_json, ''), created_at FROM events WHERE session_id = ? ORDER BY seq`, sess.ID)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		var data, created string
		if err := rows.Scan(&e.Seq, &e.Kind, &e.Content, &data, &created); err != nil {
			return nil, s.dbError(err)
		}
		if data != "" {
			e.Data = json.RawMessage(data)
		}
		e.Created, _ = time.Parse(time.RFC3339Nano, created)
		out = append(out, e)
	}
	return out, s.dbErrorOrNil(rows.Err())
}

// Messages restores a session's conversation, answering any tool call left
// without a result (a crash between the two) so providers accept it.
func (s *Store) Messages(ctx context.Context, sess *Session) ([]message.Message, error) {
	events, err := s.Events(ctx, sess)
	if err != nil {
		return nil, err
	}
	msgs := make([]message.Message, 0, len(events))
	for _, e := range events {
		if e.Kind == "usage" {
			continue
		}
		msgs = append(msgs, message.Message{Kind: message.Kind(e.Kind), Content: e.Content, Data: e.Data})
	}
	return message.Repair(msgs), nil
}

// Sessions lists sessions, most recent first, with their turns (questions)
// and commands.
func (s *Store) Sessions(ctx context.Context) ([]Session, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT s.id, s.name, s.workspace, s.model, s.created_at, s.updated_at,
		(SELECT COUNT(*) FROM events e WHERE e.session_id = s.id AND e.kind = 'user'),
		(SELECT COUNT(*) FROM commands c WHERE c.session_id = s.id),
		(SELECT COUNT(*) FROM events e WHERE e.session_id = s.id)
		FROM sessions s ORDER BY s.updated_at DESC`)
	if err != nil {
		return nil, s.dbError(err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var ss Session
		var created, updated string
		if err := rows.Scan(&ss.ID, &ss.Name, &ss.Workspace, &ss.Model, &created, &updated, &ss.Turns, &ss.Commands, &ss.Events); err != nil {
			return nil, s.dbError(err)
		}
		ss.Created, _ = time.Parse(time.RFC3339Nano, created)
		ss.Updated, _ = time.Parse(time.RFC3339Nano, updated)
		out = append(out, ss)
	}
	return out, s.dbErrorOrNil(rows.Err())
}
