package report

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/reinsh/rein/engine/agent"
	"github.com/reinsh/rein/engine/tools"
)

// Ctrl-C at the confirmation prompt (ctx canceled) ends it at once; the
// prompt waited for Enter.
func TestApprovalPromptEndsOnInterrupt(t *testing.T) {
	in, w := io.Pipe() // a terminal nobody types on
	defer w.Close()
	var out strings.Builder
	approve := TerminalApprover(in, &out)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	done := make(chan error, 1)
	go func() {
		_, err := approve(ctx, tools.ApprovalRequest{Command: "make deploy"})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the prompt went on after the interrupt")
	}
}

// An answer typed is taken as before.
func TestApprovalPromptAnswers(t *testing.T) {
	approve := TerminalApprover(strings.NewReader("maybe\na\n"), io.Discard)
	a, err := approve(context.Background(), tools.ApprovalRequest{Command: "make deploy"})
	if err != nil || !a.Approved || !a.Always {
		t.Errorf("%+v %v", a, err)
	}
}

func TestLineDiff(t *testing.T) {
	got := strings.Join(LineDiff("a\nb\nc\nd\ne\nf", "a\nb\nX\nd\ne\nf\ng", 10), "|")
	if got != "  b|- c|+ X|  d|  f|+ g" {
		t.Errorf("%q", got)
	}
	if got := LineDiff(strings.Repeat("x\n", 50), strings.Repeat("y\n", 50), 5); len(got) != 6 || !strings.Contains(got[5], "more lines") {
		t.Errorf("%q", got)
	}
}

// A denied command is shown as one line with the verdict and the rule, and
// one with what the policy allows instead; the error the model gets is not
// printed again.
func TestAskPrinterShowsADenialOnce(t *testing.T) {
	var out, info strings.Builder
	p := NewAskPrinter(&out, &info, false, false)
	p.Event(agent.Event{Type: "command", Command: "git push", Verdict: "deny", Rule: "programs.git.deny_subcommands", Why: "git push is denied"})
	p.Event(agent.Event{Type: "tool_result", Name: tools.RunCommand, Summary: "git push is denied",
		Output: `{"error":"git push is denied by rule programs.git.deny_subcommands: git push is denied; allowed instead: git status, git log","denied_by":"programs.git.deny_subcommands","alternatives":["git status","git log"]}`})
	want := "▶ git push\n  deny — rule programs.git.deny_subcommands: git push is denied\n  allowed instead: git status, git log\n"
	if info.String() != want {
		t.Errorf("got\n%s\nwant\n%s", info.String(), want)
	}
}

// File tools say what they read, found or wrote.
func TestAskPrinterShowsWhatFileToolsDid(t *testing.T) {
	var out, info strings.Builder
	p := NewAskPrinter(&out, &info, false, false)
	p.Event(agent.Event{Type: "tool_result", Name: tools.FileRead, Summary: "read go.mod: 12 lines, 300 bytes", Output: `{"output":"module x\n"}`})
	if !strings.Contains(info.String(), "read go.mod: 12 lines") {
		t.Errorf("got %q", info.String())
	}
}

// A task's output is shown as a command's is.
func TestAskPrinterShowsTaskOutput(t *testing.T) {
	var out, info strings.Builder
	p := NewAskPrinter(&out, &info, false, false)
	p.Event(agent.Event{Type: "tool_result", Name: "lint", Command: "task lint", Summary: "exit 1", Output: `{"stdout":"","stderr":"","combined":"main.go:3: unused x\n","exit_code":1}`})
	if !strings.Contains(info.String(), "│ main.go:3: unused x") {
		t.Errorf("got %q", info.String())
	}
}

// A file written shows its path, size and first lines; a file read its
// first lines; --full unfolds both, and command output.
func TestAskPrinterShowsFilesAndUnfolds(t *testing.T) {
	write := agent.Event{Type: "tool_call", Name: tools.FileWrite, Arguments: `{"path":"notes.md","content":"line 1\nline 2\nline 3\nline 4\nline 5\n"}`}
	read := agent.Event{Type: "tool_result", Name: tools.FileRead, Summary: "read notes.md: 5 lines, 35 bytes", Output: `{"output":"line 1\nline 2\nline 3\nline 4\nline 5\n"}`}
	var info strings.Builder
	p := NewAskPrinter(io.Discard, &info, false, false)
	p.Event(write)
	p.Event(read)
	got := info.String()
	for _, want := range []string{"▶ file_write: writes notes.md (35 bytes)\n  │ line 1\n  │ line 2\n  │ line 3\n  │ … 2 more lines\n", "  │ … 2 more lines\n  read notes.md: 5 lines"} {
		if !strings.Contains(got, want) {
			t.Errorf("lacks %q:\n%s", want, got)
		}
	}
	info.Reset()
	p.Full = true
	p.Event(write)
	p.Event(read)
	p.Event(agent.Event{Type: "tool_result", Name: tools.RunCommand, Summary: "exit 0", Output: `{"stdout":"` + strings.Repeat(`x\n`, 30) + `","stderr":"","exit_code":0}`})
	if got := info.String(); strings.Contains(got, "more lines") || strings.Count(got, "│ line 5") != 2 || strings.Count(got, "│ x") != 30 {
		t.Errorf("--full folded:\n%s", got)
	}
}

// [r] at the prompt approves for good, in the recipe.
func TestApprovalPromptRemembers(t *testing.T) {
	approve := TerminalApprover(strings.NewReader("r\n"), io.Discard)
	a, err := approve(context.Background(), tools.ApprovalRequest{Command: "terraform plan"})
	if err != nil || !a.Approved || !a.Always || !a.Remember {
		t.Errorf("%+v %v", a, err)
	}
}
