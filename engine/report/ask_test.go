package report

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

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
