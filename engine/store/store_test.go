package store

import (
	"context"
	"database/sql"
	"fmt"
	"github.com/reinsh/rein/engine/verdict"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/message"
)

// TestMain lets the test binary act as a second rein process writing to
// the same database (REIN_STORE_HELPER=append DB SESSION N).
func TestMain(m *testing.M) {
	if os.Getenv("REIN_STORE_HELPER") == "append" {
		n, _ := strconv.Atoi(os.Args[len(os.Args)-1])
		if err := appendMany(os.Args[len(os.Args)-3], os.Args[len(os.Args)-2], n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func appendMany(path, session string, n int) error {
	s, err := Open(path)
	if err != nil {
		return err
	}
	defer s.Close()
	ctx := context.Background()
	sess, err := s.Session(ctx, session, "/w", "m", true)
	if err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		if err := s.Append(ctx, sess, message.Text(message.User, fmt.Sprintf("%d", i))); err != nil {
			return err
		}
		if err := s.Record(ctx, sess, Command{Source: "ask", Workspace: "/w", Command: "ls", Verdict: verdict.Allow}); err != nil {
			return err
		}
	}
	return nil
}

func open(t testing.TB) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "rein.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestRoundTripAndRepair(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	sess, err := s.Session(ctx, "demo", "/work", "openai:x", true)
	if err != nil {
		t.Fatal(err)
	}
	msgs := []message.Message{
		message.Text(message.System, "sys"),
		message.Text(message.User, "why?"),
		message.NewCall(message.Call{ID: "c1", Name: "run_command", Arguments: `{"command":"ls"}`}),
	}
	for _, m := range msgs {
		if err := s.Append(ctx, sess, m); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Messages(ctx, sess)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || got[3].Kind != message.ToolResult {
		t.Fatalf("restored %d messages; a dangling call must get a synthetic result: %+v", len(got), got)
	}
	if r, _ := got[3].Result(); r.ToolCallID != "c1" || !strings.Contains(r.Output, "interrupted") {
		t.Errorf("synthetic result %+v", r)
	}
	if _, err := s.Session(ctx, "nope", "", "", false); err == nil || !strings.Contains(err.Error(), `no session named "nope"`) {
		t.Errorf("missing session: %v", err)
	}
	list, _ := s.Sessions(ctx)
	if len(list) != 1 || list[0].Turns != 1 || list[0].Events != 3 {
		t.Errorf("sessions %+v", list)
	}
	exit := 2
	s.Record(ctx, sess, Command{Source: "ask", Workspace: "/work", Command: "go build", Verdict: verdict.Allow, Rule: "r", ExitCode: &exit, DurationMS: 5})
	s.Record(ctx, nil, Command{Source: "exec", Workspace: "/other", Command: "rm x", Verdict: verdict.Deny, Rule: "d"})
	for _, tt := range []struct {
		f    Filter
		want int
	}{{Filter{}, 2}, {Filter{Session: "demo"}, 1}, {Filter{Verdicts: []verdict.Verdict{verdict.Deny}}, 1}, {Filter{Workspace: "/other"}, 1}, {Filter{Since: time.Now().Add(time.Hour)}, 0}} {
		rows, err := s.Audit(ctx, tt.f)
		if err != nil || len(rows) != tt.want {
			t.Errorf("audit %+v: %d rows %v", tt.f, len(rows), err)
		}
	}
	if err := s.Reset(ctx, sess); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Messages(ctx, sess); len(got) != 0 {
		t.Errorf("reset left %d messages", len(got))
	}
}

// Audit reads every field back as it was written, under each filter, from
// a database whose folder name holds what a URI gives a meaning to: the
// listing's own connection and the writer's open the same file.
func TestAuditReadsRowsWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a?b#c%41 d", "rein.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not where it was asked for: %v", err)
	}
	ctx := context.Background()
	sess, err := s.Session(ctx, "demo", "/work", "openai:x", true)
	if err != nil {
		t.Fatal(err)
	}
	one, two := 1, 0
	want := []Command{
		{Session: "demo", Source: "ask", ToolUseID: "call_1", Workspace: "/work", Command: "go test ./...\necho é ✓", Verdict: verdict.Allow,
			Rule: "commands: go test", ExitCode: &one, TimedOut: true, DurationMS: 1234, State: Ended},
		{Source: "exec", Workspace: "/other", Command: "rm -rf /", Verdict: verdict.Deny, Rule: "deny[0]", Reason: "never", State: Ended},
		{Source: "hook:claude", Workspace: "/work", Command: "git push", Verdict: verdict.Ask, Rule: "ask[1]", Reason: "pushes", ExitCode: &two, State: Ended},
	}
	for i, c := range want {
		var in *Session
		if c.Session != "" {
			in = sess
		}
		if err := s.Record(ctx, in, c); err != nil {
			t.Fatal(err)
		}
		want[i].Time = time.Now()
	}
	for _, tt := range []struct {
		f    Filter
		want []int
	}{
		{Filter{}, []int{0, 1, 2}},
		{Filter{Session: "demo"}, []int{0}},
		{Filter{Verdicts: []verdict.Verdict{verdict.Deny, verdict.Ask}}, []int{1, 2}},
		{Filter{Workspace: "/work"}, []int{0, 2}},
		{Filter{Workspace: "/work", Limit: 1}, []int{0}},
		{Filter{Limit: 5}, []int{0, 1, 2}},
		{Filter{Since: time.Now().Add(-time.Hour)}, []int{0, 1, 2}},
		{Filter{Since: time.Now().Add(time.Hour)}, nil},
		{Filter{Session: "none"}, nil},
	} {
		rows, err := s.Audit(ctx, tt.f)
		if err != nil {
			t.Fatalf("audit %+v: %v", tt.f, err)
		}
		if len(rows) != len(tt.want) {
			t.Errorf("audit %+v: %d rows, want %d", tt.f, len(rows), len(tt.want))
			continue
		}
		for i, r := range rows {
			w := want[tt.want[i]]
			if d := w.Time.Sub(r.Time); d < 0 || d > time.Minute {
				t.Errorf("audit %+v row %d: time %v, written at %v", tt.f, i, r.Time, w.Time)
			}
			rexit, wexit := exitOf(r), exitOf(w)
			r.Time, w.Time, r.ExitCode, w.ExitCode = time.Time{}, time.Time{}, nil, nil
			if got, wanted := fmt.Sprintf("%+v exit %v", r, rexit), fmt.Sprintf("%+v exit %v", w, wexit); got != wanted {
				t.Errorf("audit %+v row %d:\n got %s\nwant %s", tt.f, i, got, wanted)
			}
		}
	}
}

// A record whose verdict is no verdict (a damaged database) fails the
// listing, naming the file and the record, rather than showing as one.
func TestAuditRefusesAnUnknownVerdict(t *testing.T) {
	s := open(t)
	if _, err := s.db.Exec(`INSERT INTO commands (source, workspace, command, verdict, rule, created_at) VALUES ('exec', '/w', 'ls', 'maybe', 'r', '2026-11-26T06:00:00Z')`); err != nil {
		t.Fatal(err)
	}
	_, err := s.Audit(context.Background(), Filter{})
	if err == nil || !strings.Contains(err.Error(), s.Path()) || !strings.Contains(err.Error(), `"ls"`) || !strings.Contains(err.Error(), "unknown decision") {
		t.Errorf("audit: %v", err)
	}
}

func exitOf(c Command) any {
	if c.ExitCode == nil {
		return nil
	}
	return *c.ExitCode
}

func TestCorruptDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	os.WriteFile(path, []byte(strings.Repeat("this is not sqlite\n", 500)), 0o644)
	_, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("corrupt: %v", err)
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "this is not sqlite") {
		t.Error("the corrupt file was modified")
	}
}

// A database from a newer rein is left alone, with a message that names the
// file and says to upgrade.
func TestNewerSchemaRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	future := len(migrations) + 1
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, future)); err != nil {
		t.Fatal(err)
	}
	s.Close()
	_, err = Open(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "newer rein") || !strings.Contains(err.Error(), "upgrade rein") {
		t.Fatalf("newer schema: %v", err)
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var version int
	if err := db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil || version != future {
		t.Errorf("user_version %d (%v), want %d untouched", version, err, future)
	}
}

func TestLockedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	s, err := OpenOptions(path, Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	sess, _ := s.Session(ctx, "x", "", "", true)
	holder, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	conn, _ := holder.Conn(ctx)
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	err = s.Append(ctx, sess, message.Text(message.User, "blocked"))
	conn.ExecContext(ctx, "ROLLBACK")
	conn.Close()
	if err == nil || !strings.Contains(err.Error(), "locked") || !strings.Contains(err.Error(), path) {
		t.Fatalf("locked: %v", err)
	}
	if got, _ := s.Messages(ctx, sess); len(got) != 0 {
		t.Errorf("a half-written event: %+v", got)
	}
	if err := s.Append(ctx, sess, message.Text(message.User, "later")); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}

// Two rein processes appending to one session at once: nothing lost,
// sequence numbers unique.
func TestConcurrentProcesses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	s, err := Open(path) // create the schema first
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cmd := exec.Command(os.Args[0], "-test.run=^$", path, "shared", strconv.Itoa(n))
			cmd.Env = append(os.Environ(), "REIN_STORE_HELPER=append")
			if out, err := cmd.CombinedOutput(); err != nil {
				errs[i] = fmt.Errorf("%v: %s", err, out)
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	sess, err := s.Session(ctx, "shared", "", "", false)
	if err != nil {
		t.Fatal(err)
	}
	events, _ := s.Events(ctx, sess)
	if len(events) != 2*n {
		t.Fatalf("%d events, want %d", len(events), 2*n)
	}
	for i, e := range events {
		if e.Seq != i+1 {
			t.Fatalf("event %d has seq %d", i, e.Seq)
		}
	}
	if rows, _ := s.Audit(ctx, Filter{Session: "shared"}); len(rows) != 2*n {
		t.Errorf("%d audit rows, want %d", len(rows), 2*n)
	}
}

// Events appended per second, each committed (synchronous=NORMAL in WAL mode).
func BenchmarkAppend(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	sess, _ := s.Session(ctx, "bench", "", "", true)
	m := message.NewResult(message.Result{ToolCallID: "c", Output: strings.Repeat(`{"stdout":"x"}`, 20), Success: true}, "exit 0")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := s.Append(ctx, sess, m); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}

// Restoring a 10,000-event session (target ≤ 100 ms).
func BenchmarkRestore10k(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	sess, _ := s.Session(ctx, "big", "", "", true)
	tx, _ := s.db.Begin()
	for i := 1; i <= 10000; i++ {
		m := message.NewCall(message.Call{ID: fmt.Sprintf("c%d", i), Name: "run_command", Arguments: `{"command":"git log --oneline -5","reason":"x"}`})
		if i%2 == 0 {
			m = message.NewResult(message.Result{ToolCallID: fmt.Sprintf("c%d", i-1), Output: `{"stdout":"abc\ndef\n","exit_code":0}`, Success: true}, "exit 0")
		}
		tx.Exec(`INSERT INTO events (session_id, seq, kind, content, data_json, created_at) VALUES (?, ?, ?, ?, ?, ?)`, sess.ID, i, string(m.Kind), m.Content, string(m.Data), now())
	}
	tx.Commit()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		msgs, err := s.Messages(ctx, sess)
		if err != nil || len(msgs) != 10000 {
			b.Fatalf("%d %v", len(msgs), err)
		}
	}
}

// BenchmarkOpenRecordClose is one audit record the way `rein exec` writes
// it: a fresh open, one durable insert, close.
func BenchmarkOpenRecordClose(b *testing.B) {
	path := filepath.Join(b.TempDir(), "rein.db")
	for i := 0; i < b.N; i++ {
		s, err := Open(path)
		if err != nil {
			b.Fatal(err)
		}
		code := 0
		if err := s.Record(context.Background(), nil, Command{Source: "exec", Command: "true", Verdict: verdict.Allow, Rule: "r", ExitCode: &code}); err != nil {
			b.Fatal(err)
		}
		s.Close()
	}
}

// walLong tells a log past walFrames frames from one started over since,
// whose older frames are still in the file past its end.
func TestWALLong(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	if walLong(path) {
		t.Fatal("no log is a long log")
	}
	record := func(i int) {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if err := s.Record(context.Background(), nil, Command{Source: "exec", Command: fmt.Sprintf("echo %d", i), Verdict: verdict.Allow, Rule: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	i := 0
	for ; !walLong(path); i++ {
		if i > 4*walFrames {
			t.Fatalf("after %d records the log is still short", i)
		}
		record(i)
	}
	st, _ := os.Stat(path + "-wal")
	if min := int64(walFrames) * (4096 + 24); st.Size() < min {
		t.Fatalf("a long log of %d bytes, under %d frames", st.Size(), walFrames)
	}
	record(i) // its open copies the log, its write starts it over
	if walLong(path) {
		t.Error("the log started over is still long")
	}
	if st2, _ := os.Stat(path + "-wal"); st2.Size() != st.Size() {
		t.Errorf("the kept log went from %d to %d bytes; it should be written over in place", st.Size(), st2.Size())
	}
}

// Each rein process opens the database, writes and closes it. The log is kept
// between processes (no delete and re-create per command); it must not grow
// with the number of processes, or every open would re-read more of it.
func TestKeptLogStaysSmall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "rein.db")
	const runs = 200
	for i := 0; i < runs; i++ {
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		code := i
		if err := s.Record(context.Background(), nil, Command{Source: "exec", Command: fmt.Sprintf("echo %d", i), Verdict: verdict.Allow, Rule: "r", ExitCode: &code}); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	st, err := os.Stat(path + "-wal")
	if err != nil {
		t.Fatalf("the log was not kept: %v", err)
	}
	// The log is copied into the database once it holds walFrames pages,
	// and restarted by the next write: it never holds many more (a frame is
	// a page and a 24-byte header; the first transaction past the mark adds
	// a few).
	if limit := int64(walFrames+16) * (4096 + 24); st.Size() > limit {
		t.Errorf("after %d processes the log is %d bytes, over %d; it should be reused, not grown", runs, st.Size(), limit)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, err := s.Audit(context.Background(), Filter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != runs || got[runs-1].Command != fmt.Sprintf("echo %d", runs-1) {
		t.Errorf("want %d records ending with echo %d, got %d", runs, runs-1, len(got))
	}
}

// A command recorded before it runs reads as running while its rein lives,
// as interrupted once that rein is gone, and as ended with its exit once
// finished.
func TestStartedCommands(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	c := Command{Source: "exec", Workspace: "/w", Command: "sleep 20", Verdict: verdict.Allow, Rule: "allow[0]"}
	live, err := s.Start(ctx, nil, c)
	if err != nil {
		t.Fatal(err)
	}
	dead, err := s.Start(ctx, nil, Command{Source: "exec", Workspace: "/w", Command: "sleep 30", Verdict: verdict.Allow})
	if err != nil {
		t.Fatal(err)
	}
	// A rein that died: a process id no process has.
	if _, err := s.db.Exec(`UPDATE commands SET pid = ? WHERE id = ?`, 1<<30, dead); err != nil {
		t.Fatal(err)
	}
	states := func() []string {
		rows, err := s.Audit(ctx, Filter{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			exit := "-"
			if r.ExitCode != nil {
				exit = fmt.Sprint(*r.ExitCode)
			}
			out = append(out, r.Command+" "+r.State+" "+exit)
		}
		return out
	}
	if got, want := strings.Join(states(), "; "), "sleep 20 running -; sleep 30 interrupted -"; got != want {
		t.Errorf("before: %s, want %s", got, want)
	}
	code := 0
	c.ExitCode, c.DurationMS = &code, 12
	if err := s.Finish(ctx, live, c); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(states(), "; "), "sleep 20 ended 0; sleep 30 interrupted -"; got != want {
		t.Errorf("after: %s, want %s", got, want)
	}
}

// Listing sessions (rein sessions) over 40 sessions of 500 events each:
// the counts of questions come from an index, not from reading each event.
func BenchmarkSessions(b *testing.B) {
	s := open(b)
	ctx := context.Background()
	q, a := message.Text(message.User, "why?"), message.Text(message.Assistant, strings.Repeat("because ", 40))
	for i := range 40 {
		sess, _ := s.Session(ctx, fmt.Sprintf("s%d", i), "/w", "m", true)
		tx, _ := s.db.Begin()
		for k := range 500 {
			m := a
			if k%10 == 0 {
				m = q
			}
			tx.Exec(`INSERT INTO events (session_id, seq, kind, content, created_at) VALUES (?, ?, ?, ?, ?)`, sess.ID, k+1, m.Kind, m.Content, now())
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		list, err := s.Sessions(ctx)
		if err != nil || len(list) != 40 || list[0].Turns != 50 {
			b.Fatalf("%v: %d sessions, %+v", err, len(list), list)
		}
	}
}

// BenchmarkAudit10k lists 10,000 audit records, as rein audit does.
func BenchmarkAudit10k(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "rein.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	tx, _ := s.db.Begin()
	for i := range 10000 {
		code := 0
		tx.Exec(`INSERT INTO commands (session_id, source, workspace, command, verdict, rule, reason, exit_code, timed_out, duration_ms, created_at, state, pid, tool_use_id)
			VALUES (NULL, 'exec', '/work/repo', ?, 'allow', 'commands: git log', '', ?, 0, 3, '2026-11-26T06:00:00Z', 'ended', 0, '')`, fmt.Sprintf("git log --oneline -n %d", i), code)
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rows, err := s.Audit(ctx, Filter{})
		if err != nil || len(rows) != 10000 {
			b.Fatalf("%d rows, %v", len(rows), err)
		}
	}
}
