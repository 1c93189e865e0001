// Package store keeps rein's durable record in one SQLite database (pure
// Go, modernc.org/sqlite): sessions and every message of them as events,
// written as they happen, and every executed command with its decision.
package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"modernc.org/sqlite"
)

// Store is an open database.
type Store struct {
	db      *sql.DB
	path    string
	timeout time.Duration
}

// Options tune Open.
type Options struct {
	// BusyTimeout is how long a writer waits for another process's lock
	// (default 5s).
	BusyTimeout time.Duration
}

// Open opens (creating and migrating) the database at path. A corrupt or
// locked database is an error naming the file.
func Open(path string) (*Store, error) { return OpenOptions(path, Options{}) }

// OpenOptions is Open with options.
func OpenOptions(path string, opts Options) (*Store, error) {
	busyTimeout := opts.BusyTimeout
	if busyTimeout == 0 {
		busyTimeout = 5 * time.Second
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	// synchronous=NORMAL: in WAL mode a commit is written to the log at
	// once and synced at the next checkpoint, so a committed event survives
	// rein being killed (the kill tests hold it to that); only a power cut
	// may lose the last few. FULL synced every event: four syncs per tool
	// round trip, half the agent loop's own time.
	dsn := fmt.Sprintf("%s?_pragma=busy_timeout(%d)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(ON)&_txlock=immediate",
		fileURI(path), busyTimeout.Milliseconds())
	// Read before this process opens the database: closing a descriptor of
	// a file drops every POSIX lock the process holds on it, SQLite's too
	// (it takes none on the log, but this way none can be lost).
	long := walLong(path)
	base, err := sqlite.NewConnector(dsn)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", path, err)
	}
	db := sql.OpenDB(keepWAL{base})
	s := &Store{db: db, path: path, timeout: busyTimeout}
	if err := s.migrate(); err != nil {
		db.Close()
		return nil, s.dbError(err)
	}
	// A process that writes once (a hook's record) ends before SQLite's
	// automatic checkpoint could restart the log: the next write of the same
	// process would. So an open that finds the log long copies it, and its
	// own first write starts the log over. PASSIVE never waits: a busy
	// database just skips this.
	if long {
		db.Exec(`PRAGMA wal_checkpoint(PASSIVE)`)
	}
	return s, nil
}

// fileURI is path as an SQLite file URI. A name's "%", "?" and "#" are
// escaped: unescaped, SQLite reads them as an escape, the start of the
// parameters and of a fragment, and would open another file.
func fileURI(path string) string {
	return "file:" + strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(path)
}

// walFrames is how long the log may grow before a process that opens the
// database copies it in. rein exits without closing the database, and the
// next process re-reads the kept log when it opens it: its length is what
// each open reads. Copying the log at every open, as rein did, cost four
// syncs (the log, its folder, the database, the restarted log's header) on
// the way to each command's audit record, 1.6 ms of a rein exec here; a
// command writes four or five frames, so now about one in ten pays them.
// Within a process SQLite's own automatic checkpoint, at 1,000 frames,
// stays: at walFrames it cost the agent loop 0.15 ms a round trip.
const walFrames = 50

// walLong reports whether the log at path holds more than walFrames frames
// (https://sqlite.org/walformat.html): whether the frame after them carries
// the salts of the log's header. A log started over writes new salts, so
// the frames of an older, longer log past its end do not count. The log
// is only read (SQLite keeps no locks on it); a log that cannot be read
// counts as long, and is copied as before.
func walLong(path string) bool {
	f, err := os.Open(path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	defer f.Close()
	var header [32]byte
	if _, err := f.ReadAt(header[:], 0); err != nil {
		return !errors.Is(err, io.EOF) // an empty log is short
	}
	page := int64(binary.BigEndian.Uint32(header[8:12]))
	var frame [24]byte
	if _, err := f.ReadAt(frame[:], 32+walFrames*(24+page)); err != nil {
		return !errors.Is(err, io.EOF)
	}
	return bytes.Equal(frame[8:16], header[16:24])
}

// keepWAL opens connections that leave the write-ahead log and its index in
// place when the last one closes (SQLITE_FCNTL_PERSIST_WAL). SQLite otherwise
// deletes both at every close and makes them again at the next open; rein
// opens the database once per command it runs, and freeing and reallocating
// the log's blocks was most of an audit record's cost (over a millisecond on
// a filesystem mounted with discard). Durability is unchanged: every commit
// is still synced to the log, and the last close still checkpoints it.
type keepWAL struct{ driver.Connector }

func (k keepWAL) Connect(ctx context.Context) (driver.Conn, error) {
	c, err := k.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	if fc, ok := c.(sqlite.FileControl); ok {
		if _, err := fc.FileControlPersistWAL("main", 1); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Path is the database file.
func (s *Store) Path() string { return s.path }

// dbError says which file, and what to do, for the failures people hit.
func (s *Store) dbError(err error) error {
	path, busyTimeout := s.path, s.timeout
	msg := err.Error()
	switch {
	case strings.Contains(msg, "file is not a database") || strings.Contains(msg, "malformed"):
		return fmt.Errorf("database %s is corrupt (%w); move it aside to start a new one (your sessions are in that file)", path, err)
	case strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY"):
		return fmt.Errorf("database %s is locked by another process for more than %s (%w); try again when it finishes", path, busyTimeout, err)
	case strings.Contains(msg, "readonly database") || strings.Contains(msg, "read-only file system"):
		return fmt.Errorf("database %s cannot be written: its folder or disk is read-only (%w); make it writable, or point --db (or REIN_DB) elsewhere", path, err)
	case strings.Contains(msg, "disk is full") || strings.Contains(msg, "SQLITE_FULL"):
		return fmt.Errorf("database %s: the disk is full; nothing was written (%w)", path, err)
	}
	return fmt.Errorf("database %s: %w", path, err)
}

// migrations are applied in order; user_version records how many ran.
var migrations = []string{
	`CREATE TABLE sessions (
		id INTEGER PRIMARY KEY,
		name TEXT NOT NULL UNIQUE,
		workspace TEXT NOT NULL DEFAULT '',
		model TEXT NOT NULL DEFAULT '',
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL
	);
	CREATE TABLE events (
		id INTEGER PRIMARY KEY,
		session_id INTEGER NOT NULL REFERENCES sessions(id),
		seq INTEGER NOT NULL,
		kind TEXT NOT NULL,
		content TEXT NOT NULL DEFAULT '',
		data_json TEXT,
		created_at TEXT NOT NULL,
		UNIQUE (session_id, seq)
	);
	CREATE TABLE commands (
		id INTEGER PRIMARY KEY,
		session_id INTEGER REFERENCES sessions(id),
		source TEXT NOT NULL,
		workspace TEXT NOT NULL,
		command TEXT NOT NULL,
		verdict TEXT NOT NULL,
		rule TEXT NOT NULL DEFAULT '',
		reason TEXT NOT NULL DEFAULT '',
		exit_code INTEGER,
		timed_out INTEGER NOT NULL DEFAULT 0,
		duration_ms INTEGER NOT NULL DEFAULT 0,
		created_at TEXT NOT NULL
	);
	CREATE INDEX commands_time ON commands (created_at);
	CREATE INDEX commands_session ON commands (session_id);`,
	// A command is recorded "started" before it runs and "ended" after, so
	// one whose rein died shows as interrupted; pid is the rein that ran it.
	`ALTER TABLE commands ADD COLUMN state TEXT NOT NULL DEFAULT 'ended';
	ALTER TABLE commands ADD COLUMN pid INTEGER;`,
	// A command an agent's hook asked about (rein hook) carries the
	// agent's id for the tool call.
	`ALTER TABLE commands ADD COLUMN tool_use_id TEXT NOT NULL DEFAULT '';`,
	// rein sessions counts each session's questions and events: from this
	// index alone, without reading the events.
	`CREATE INDEX events_kind ON events (session_id, kind);`,
}

func (s *Store) migrate() error {
	// Most opens find the schema current: check without taking the write lock.
	var current int
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&current); err == nil && current == len(migrations) {
		return nil
	}
	return s.retry(context.Background(), func(tx *sql.Tx) error {
		var version int
		if err := tx.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
			return err
		}
		if version > len(migrations) {
			return fmt.Errorf("it was written by a newer rein (schema version %d, this rein knows %d); upgrade rein", version, len(migrations))
		}
		for i := version; i < len(migrations); i++ {
			if _, err := tx.Exec(migrations[i]); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		if version < len(migrations) {
			_, err := tx.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, len(migrations)))
			return err
		}
		return nil
	})
}

// retry runs fn in a write transaction, retrying while another process
// holds the lock (beyond SQLite's own busy timeout).
func (s *Store) retry(ctx context.Context, fn func(*sql.Tx) error) error {
	var err error
	for attempt := 0; attempt < 5; attempt++ {
		var tx *sql.Tx
		tx, err = s.db.BeginTx(ctx, nil)
		if err == nil {
			err = fn(tx)
			if err == nil {
				err = tx.Commit()
			} else {
				tx.Rollback()
			}
		}
		if err == nil || !isBusy(err) {
			return err
		}
		time.Sleep(time.Duration(attempt+1) * 50 * time.Millisecond)
	}
	return err
}

func isBusy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "database is locked") || strings.Contains(err.Error(), "SQLITE_BUSY"))
}

func now() string { return time.Now().UTC().Format(time.RFC3339Nano) }

var errNoSession = errors.New("no such session")

// Check runs SQLite's integrity check over the whole database: nil when it
// is sound, else an error naming the file and the first problems found.
func (s *Store) Check(ctx context.Context) error {
	rows, err := s.db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return s.dbError(err)
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return s.dbError(err)
		}
		if line != "ok" && len(problems) < 5 {
			problems = append(problems, line)
		}
	}
	if err := rows.Err(); err != nil {
		return s.dbError(err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("database %s failed its integrity check: %s; move it aside to start a new one", s.path, strings.Join(problems, "; "))
	}
	return nil
}
