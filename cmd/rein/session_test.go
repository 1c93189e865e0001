package main

import (
	"context"
	"encoding/json"
	"github.com/reinsh/rein/engine/policy"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/store"
)

// A rein killed with SIGKILL between a tool call and its result loses no
// event already written; the session restores (the call answered with a
// synthetic error) and continues.
func TestSessionSurvivesSIGKILL(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("SIGKILL")
	}
	dir := t.TempDir()
	db := filepath.Join(t.TempDir(), "rein.db")
	srv, _ := modelServer(t, sseCall("run_command", `{"command":"sleep 30","reason":"wait for it"}`))
	cmd := exec.Command(os.Args[0], "--dir", dir, "ask", "--session", "crash", "-m", "openai-compatible:m", "--base-url", srv.URL, "first question")
	cmd.Env = append(os.Environ(), "REIN_TEST_MAIN=1", "REIN_DB="+db, "XDG_CONFIG_HOME="+t.TempDir(), "REIN_CACHE_DIR="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()

	// Wait until the tool call is durable, then kill rein mid-command.
	deadline := time.Now().Add(15 * time.Second)
	for {
		if kinds := eventKinds(t, db, "crash"); strings.Contains(kinds, "tool_call") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the tool call never reached the database")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if kinds := eventKinds(t, db, "crash"); kinds != "system user usage tool_call" {
		t.Fatalf("events after the crash: %s", kinds)
	}

	srv2, got := modelServer(t, sseText("Recovered: the sleep was interrupted."))
	t.Setenv("REIN_DB", db)
	out, errOut, code := rein(t, dir, "", "ask", "--session", "crash", "-m", "openai-compatible:m", "--base-url", srv2.URL, "second question")
	if code != exitOK || !strings.Contains(out, "Recovered") {
		t.Fatalf("continue: exit %d\n%s\n%s", code, out, errOut)
	}
	var req struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    string `json:"content"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	json.Unmarshal([]byte((*got)[0]), &req)
	var roles []string
	for _, m := range req.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "system,user,assistant,tool,user" || !strings.Contains(req.Messages[3].Content, "interrupted") {
		t.Errorf("restored history sent to the provider: %v %+v", roles, req.Messages)
	}
	if kinds := eventKinds(t, db, "crash"); kinds != "system user usage tool_call tool_result user usage assistant" {
		t.Errorf("events after continuing: %s", kinds)
	}
}

func eventKinds(t *testing.T, db, name string) string {
	st, err := store.Open(db)
	if err != nil {
		return ""
	}
	defer st.Close()
	sess, err := st.Session(context.Background(), name, "", "", false)
	if err != nil {
		return ""
	}
	events, _ := st.Events(context.Background(), sess)
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Kind)
	}
	return strings.Join(kinds, " ")
}

func TestSessionsLogAuditReplay(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("hi\n"), 0o644)
	srv, _ := modelServer(t,
		sseCall("run_command", `{"command":"cat README.md","reason":"read"}`),
		sseCall("run_command", `{"command":"rm -rf x","reason":"clean"}`),
		sseText("It says hi."),
	)
	if _, errOut, code := rein(t, dir, "", "ask", "--session", "demo", "-m", "openai-compatible:m", "--base-url", srv.URL, "what does it say?"); code != exitOK {
		t.Fatalf("ask: %d %s", code, errOut)
	}
	rein(t, dir, "", "exec", "ls")
	rein(t, dir, "", "exec", "rm -rf x")

	out, _, code := rein(t, dir, "", "sessions")
	if code != exitOK || !strings.Contains(out, "demo") || !strings.Contains(out, "QUESTIONS") {
		t.Errorf("sessions: %s", out)
	}
	out, _, _ = rein(t, dir, "", "log", "demo")
	for _, want := range []string{"you: what does it say?", "▶ run_command(", "model: It says hi.", "tokens:"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	out, _, _ = rein(t, dir, "", "audit", "--json")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 {
		t.Fatalf("audit rows: %d\n%s", len(lines), out)
	}
	var first store.Command
	json.Unmarshal([]byte(lines[0]), &first)
	if first.Session != "demo" || first.Command != "cat README.md" || first.Verdict != policy.Allow || first.ExitCode == nil || *first.ExitCode != 0 || first.Workspace != dir {
		t.Errorf("audit row %+v", first)
	}
	out, _, _ = rein(t, dir, "", "audit", "--verdict", "deny")
	if !strings.Contains(out, "rm -rf x") || strings.Contains(out, "cat README.md") {
		t.Errorf("audit --verdict deny:\n%s", out)
	}
	if _, errOut, code := rein(t, dir, "", "audit", "--since", "yesterday"); code != exitUsage || !strings.Contains(errOut, "use a duration") {
		t.Errorf("bad --since: %d %s", code, errOut)
	}

	// Replay under strict: cat README.md stays allowed; under a recipe that
	// denies cat the decision tightens; one that allows everything loosens.
	out, _, code = rein(t, dir, "", "--preset", "strict", "replay", "demo")
	if code != exitOK || !strings.Contains(out, "2 unchanged") {
		t.Errorf("replay strict: %d %s", code, out)
	}
	loose := filepath.Join(t.TempDir(), "loose.jsonnet")
	os.WriteFile(loose, []byte(`{ allow: ['*'] }`), 0o644)
	tight := filepath.Join(t.TempDir(), "tight.jsonnet")
	os.WriteFile(tight, []byte(`{ deny: ['cat *'] }`), 0o644)
	out, _, code = rein(t, dir, "", "--recipe", tight, "replay", "demo")
	if code != exitOK || !strings.Contains(out, "stricter allow → deny  cat README.md") {
		t.Errorf("replay tight: %d %s", code, out)
	}
	out, _, code = rein(t, dir, "", "--recipe", loose, "replay", "demo")
	if code != exitDeny || !strings.Contains(out, "LOOSER   deny → allow  rm -rf x") || !strings.Contains(out, "1 more permissive") {
		t.Errorf("replay loose: %d %s", code, out)
	}
	if _, errOut, code := rein(t, dir, "", "log", "nope"); code != exitUsage || !strings.Contains(errOut, `no session named "nope"`) {
		t.Errorf("log missing: %d %s", code, errOut)
	}
}

// Every step of a task is in the audit log.
func TestRunIsAudited(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("REIN_DB", filepath.Join(t.TempDir(), "rein.db"))
	os.WriteFile(filepath.Join(dir, "rein.jsonnet"), []byte(`{ allow: ['echo *'], tasks: { two: { steps: ['echo one', 'echo two'] } } }`), 0o644)
	if _, errOut, code := rein(t, dir, "", "run", "two"); code != exitOK {
		t.Fatalf("run: %d %s", code, errOut)
	}
	out, _, _ := rein(t, dir, "", "audit", "--json")
	if strings.Count(out, `"source":"run"`) != 2 || !strings.Contains(out, `"command":"echo one"`) || !strings.Contains(out, `"command":"echo two"`) {
		t.Errorf("audit:\n%s", out)
	}
}

// rein sessions --prune removes the sessions of folders that are gone and
// those nothing was asked in, and keeps the rest.
func TestSessionsPrune(t *testing.T) {
	db := filepath.Join(t.TempDir(), "rein.db")
	t.Setenv("REIN_DB", db)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	here, gone := t.TempDir(), filepath.Join(t.TempDir(), "deleted")
	for _, s := range []struct {
		name, ws string
		ask      bool
	}{{"kept", here, true}, {"gone", gone, true}, {"empty", here, false}} {
		sess, err := st.Session(ctx, s.name, s.ws, "m", true)
		if err != nil {
			t.Fatal(err)
		}
		if s.ask {
			st.Append(ctx, sess, message.Text(message.User, "why?"))
		}
	}
	st.Close()
	out, errOut, code := rein(t, here, "", "sessions", "--prune")
	if code != exitOK || !strings.Contains(out, "kept") || strings.Contains(out, "gone") || strings.Contains(out, "empty") ||
		!strings.Contains(errOut, "removed gone (its folder "+gone+" is gone)") || !strings.Contains(errOut, "removed empty (nothing was asked in it)") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := rein(t, here, "", "sessions"); strings.Contains(out, "gone") {
		t.Errorf("pruned sessions came back:\n%s", out)
	}
}
