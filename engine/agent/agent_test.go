package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/provider"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tools"
)

// setup compiles a preset for dir and points a provider at the server.
func setup(t testing.TB, dir, preset string, srv *scripted) (Options, *[]time.Duration) {
	t.Helper()
	_, p := policytest.Load(t, dir, preset)
	spec, _ := provider.ParseModel("openai-compatible:test-model", srv.srv.URL, "")
	prov, err := provider.New(spec, provider.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var waits []time.Duration
	return Options{
		Provider: prov, Model: "test-model",
		Tools: tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{}),
		Sleep: func(_ context.Context, d time.Duration) error { waits = append(waits, d); return nil },
	}, &waits
}

func question(q string) []message.Message {
	return []message.Message{message.Text(message.System, "You answer with tools."), message.Text(message.User, q)}
}

func run(name, args string) [2]string { return [2]string{name, args} }

// End to end: a broken Go build, a scripted model that runs go build,
// receives the compiler error, and answers.
func TestBrokenBuildEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go toolchain")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/broken\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() {\n\tfmt.Println(undefinedThing)\n}\n"), 0o644)
	srv := newScripted(t,
		step{text: "Let me build it.", calls: [][2]string{run("run_command", `{"command":"go build ./...","reason":"see the compiler error"}`)}},
		step{text: "The build fails: main.go uses fmt without importing it, and undefinedThing is not declared."},
	)
	opts, _ := setup(t, dir, "go", srv)
	var events []Event
	opts.OnEvent = func(e Event) { events = append(events, e) }
	out, err := Run(context.Background(), opts, question("why is my build failing?"))
	if err != nil {
		t.Fatal(err)
	}
	results := srv.toolResults(1)
	if len(results) != 1 || !strings.Contains(results[0], "undefined: fmt") || !strings.Contains(results[0], `"exit_code":1`) {
		t.Fatalf("the compiler error did not reach the model: %q", results)
	}
	if !strings.Contains(out.Answer, "without importing it") {
		t.Errorf("answer %q", out.Answer)
	}
	if out.Usage.PromptTokens != 201 || out.Usage.CompletionTokens != 20 || out.ModelCalls != 2 {
		t.Errorf("usage %+v calls %d", out.Usage, out.ModelCalls)
	}
	var streamed strings.Builder
	for _, e := range events {
		if e.Type == "text" {
			streamed.WriteString(e.Text)
		}
	}
	if !strings.HasSuffix(streamed.String(), out.Answer) {
		t.Errorf("streamed %q", streamed.String())
	}
}

func TestDeniedCommandAndBadCallsContinue(t *testing.T) {
	srv := newScripted(t,
		step{calls: [][2]string{
			run("run_command", `{"command":"git push --force","reason":"x"}`),
			run("run_command", `{"command": "ls"`),
			run("launch_missiles", `{}`),
			run("file_read", `{}`),
			run("list_directory", `{"path":"."}`),
		}},
		step{text: "done"},
	)
	opts, _ := setup(t, t.TempDir(), "readonly", srv)
	out, err := Run(context.Background(), opts, question("push it"))
	if err != nil {
		t.Fatal(err)
	}
	results := srv.toolResults(1)
	if len(results) != 5 {
		t.Fatalf("every call must be answered, in order: %q", results)
	}
	var denied struct {
		Error        string   `json:"error"`
		DeniedBy     string   `json:"denied_by"`
		Alternatives []string `json:"alternatives"`
	}
	json.Unmarshal([]byte(results[0]), &denied)
	if denied.DeniedBy != "programs.git.deny_subcommands" || len(denied.Alternatives) == 0 || !strings.Contains(denied.Error, "git push") {
		t.Errorf("denial %q", results[0])
	}
	for i, want := range []string{"", "not valid JSON", `unknown tool \"launch_missiles\"`, `missing required field \"path\"`, `"entries"`} {
		if i > 0 && !strings.Contains(results[i], want) {
			t.Errorf("result %d = %q, want %q", i, results[i], want)
		}
	}
	if out.Answer != "done" {
		t.Errorf("answer %q", out.Answer)
	}
}

func TestRetriesHonourRetryAfter(t *testing.T) {
	srv := newScripted(t,
		step{status: 429, retryAfter: "2"},
		step{status: 500},
		step{text: "fine"},
	)
	opts, waits := setup(t, t.TempDir(), "readonly", srv)
	opts.Backoff = 100 * time.Millisecond
	out, err := Run(context.Background(), opts, question("q"))
	if err != nil || out.Answer != "fine" {
		t.Fatalf("%v %q", err, out.Answer)
	}
	if len(*waits) != 2 || (*waits)[0] != 2*time.Second || (*waits)[1] != 200*time.Millisecond {
		t.Errorf("waits %v, want [2s 200ms] (Retry-After, then doubled backoff)", *waits)
	}
}

func TestProviderFailures(t *testing.T) {
	tests := []struct {
		name string
		st   step
		want string
	}{
		{"truncated stream", step{text: "partial", truncate: true}, "ended before the model finished"},
		{"no tool support", step{status: 400, body: `{"error":{"message":"this model does not support tools","type":"invalid_request_error"}}`}, "does not support tool calling"},
		{"bad key", step{status: 401}, "rejected the API key"},
		{"unknown model", step{status: 404}, `does not know the model "test-model"`},
		{"keeps failing", step{status: 503}, "kept failing after retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newScripted(t, tt.st, tt.st, tt.st, tt.st, tt.st)
			opts, _ := setup(t, t.TempDir(), "readonly", srv)
			out, err := Run(context.Background(), opts, question("q"))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if len(out.Messages) != 2 {
				t.Errorf("a failed call must not add messages: %d", len(out.Messages))
			}
		})
	}
}

func TestMaxToolTurns(t *testing.T) {
	loop := step{calls: [][2]string{run("list_directory", `{}`), run("list_directory", `{"path":"."}`)}}
	srv := newScripted(t, loop, loop, loop, loop)
	opts, _ := setup(t, t.TempDir(), "readonly", srv)
	opts.MaxToolTurns = 2
	var limit Event
	opts.OnEvent = func(e Event) {
		if e.Type == "limit" {
			limit = e
		}
	}
	out, err := Run(context.Background(), opts, question("loop"))
	if err != nil {
		t.Fatal(err)
	}
	if out.StoppedBy != "max_tool_turns" || limit.Limit != "max_tool_turns" || !strings.Contains(out.Answer, "limits.max_tool_turns (2)") {
		t.Errorf("stopped by %q, answer %q", out.StoppedBy, out.Answer)
	}
	if out.ModelCalls != 3 {
		t.Errorf("model calls %d, want 3", out.ModelCalls)
	}
	// Every call, including the refused ones, has a result.
	repaired := message.Repair(out.Messages)
	if len(repaired) != len(out.Messages) {
		t.Error("some tool call was left without a result")
	}
}

func TestMaxCommands(t *testing.T) {
	srv := newScripted(t,
		step{calls: [][2]string{run("run_command", `{"command":"pwd","reason":"a"}`), run("run_command", `{"command":"pwd","reason":"b"}`)}},
		step{text: "unreachable"},
	)
	opts, _ := setup(t, t.TempDir(), "readonly", srv)
	opts.MaxCommands = 1
	out, err := Run(context.Background(), opts, question("q"))
	if err != nil {
		t.Fatal(err)
	}
	if out.StoppedBy != "max_commands" || opts.Tools.CommandsRun() != 1 {
		t.Errorf("stopped by %q after %d commands", out.StoppedBy, opts.Tools.CommandsRun())
	}
}

// A 50-turn scripted session over loopback: rein's overhead per round trip
// (HTTP, streaming, accumulation, vetting, a cheap tool) in ns/turn.
func BenchmarkSession50Turns(b *testing.B) {
	const turns = 50
	steps := make([]step, 0, turns+1)
	for i := 0; i < turns; i++ {
		steps = append(steps, step{calls: [][2]string{run("list_directory", `{"path":"."}`)}})
	}
	steps = append(steps, step{text: "done"})
	dir := b.TempDir()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		srv := newScripted(b, steps...)
		srv.fast = true
		opts, _ := setup(b, dir, "readonly", srv)
		opts.MaxToolTurns = turns + 1
		b.StartTimer()
		if _, err := Run(context.Background(), opts, question("q")); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(turns+1)), "ns/turn")
}

// Ctrl-C while a command runs: the command is stopped, the run ends with
// context.Canceled, and the conversation stays consistent (every call has
// a result).
func TestCancelDuringCommand(t *testing.T) {
	srv := newScripted(t, step{calls: [][2]string{run("run_command", `{"command":"sleep 30","reason":"wait"}`)}}, step{text: "never"})
	opts, _ := setup(t, t.TempDir(), "readonly", srv)
	ctx, cancel := context.WithCancel(context.Background())
	opts.OnEvent = func(e Event) {
		if e.Type == "tool_call" {
			time.AfterFunc(300*time.Millisecond, cancel)
		}
	}
	start := time.Now()
	out, err := Run(ctx, opts, question("wait"))
	if err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("cancel took %v", d)
	}
	if len(message.Repair(out.Messages)) != len(out.Messages) || out.Messages[len(out.Messages)-1].Kind != message.ToolResult {
		t.Errorf("conversation left inconsistent: %+v", out.Messages)
	}
}

// A session write that fails (a full disk) stops the loop at once, saying
// so: the conversation does not go on unrecorded.
func TestUnsavedSessionStopsTheLoop(t *testing.T) {
	dir := t.TempDir()
	srv := newScripted(t,
		step{calls: [][2]string{run("list_directory", `{}`)}},
		step{calls: [][2]string{run("list_directory", `{}`)}},
		step{text: "done"},
	)
	opts, _ := setup(t, dir, "readonly", srv)
	messages := 0
	opts.OnMessage = func(message.Message) { messages++ }
	full := errors.New("database or disk is full")
	opts.Saved = func() error {
		if messages >= 2 {
			return full
		}
		return nil
	}
	_, err := Run(context.Background(), opts, question("what is here?"))
	if !errors.Is(err, full) || !strings.Contains(err.Error(), "could not be saved") {
		t.Fatalf("err %v", err)
	}
	if len(srv.requests) != 1 {
		t.Errorf("the model was called %d times after the write failed", len(srv.requests))
	}
}
