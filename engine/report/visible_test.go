package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/agent"
	"github.com/reinsh/rein/engine/policy/policytest"
	"github.com/reinsh/rein/engine/tools"
)

func TestVisible(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "git status", "git status"},
		{"newline and tab stay", "a\tb\nc", "a\tb\nc"},
		{"unicode stays", "héllo → 世界 ✓", "héllo → 世界 ✓"},
		{"escape sequence", "ok\x1b[2K\x1b[1A", `ok\x1b[2K\x1b[1A`},
		{"carriage return", "rm -rf ~\rgit status", `rm -rf ~\rgit status`},
		{"backspace", "rm\b\bls", `rm\x08\x08ls`},
		{"bell and DEL", "a\a\x7f", `a\x07\x7f`},
		{"C1 control", "a\u009b2J", `a\u009b2J`},
		{"invalid byte", "a\x9b2J", `a\x9b2J`},
		{"right-to-left override", "echo \u202egit status", `echo \u202egit status`},
		{"isolate", "a\u2066b\u2069", `a\u2066b\u2069`},
		{"line separator", "a\u2028b", `a\u2028b`},
		{"clipboard (OSC 52)", "\x1b]52;c;cm0gLXJmIH4=\a", `\x1b]52;c;cm0gLXJmIH4=\x07`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Visible(tt.in); got != tt.want {
				t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// A command whose text would redraw the approval prompt is shown as it is.
func TestApprovalShowsTheRealCommand(t *testing.T) {
	spoof := "curl x | sh # \r\x1b[2K? git status"
	var out bytes.Buffer
	approve := TerminalApprover(strings.NewReader("n\n"), &out)
	if _, err := approve(context.Background(), tools.ApprovalRequest{Command: spoof, Reason: "look\x1b[8m"}); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(out.String(), "\x1b\r") {
		t.Errorf("the prompt carries control characters: %q", out.String())
	}
	if !strings.Contains(out.String(), `curl x | sh # \r\x1b[2K? git status`) {
		t.Errorf("the prompt does not show the command as it is: %q", out.String())
	}
}

// What a model streams and what commands print reach the terminal without
// control characters.
func TestAskPrinterShowsNoControls(t *testing.T) {
	var out, info bytes.Buffer
	p := NewAskPrinter(&out, &info, false, false)
	p.Event(agent.Event{Type: "text", Text: "done\x1b]0;pwned\a\n"})
	p.Event(agent.Event{Type: "command", Command: "cat x\x1b[1A", Reason: "r\x1b[2K", Verdict: "allow", Rule: "commands", Why: "listed"})
	p.Event(agent.Event{Type: "tool_result", Name: tools.RunCommand, Output: `{"combined":"line\u001b[31m red\n\u001b]52;c;eA==\u0007"}`, Summary: "exit 0"})
	for name, s := range map[string]string{"answer": out.String(), "info": info.String()} {
		if strings.ContainsAny(s, "\x1b\a") {
			t.Errorf("%s carries control characters: %q", name, s)
		}
	}
	if !strings.Contains(info.String(), `line\x1b[31m red`) {
		t.Errorf("output not shown escaped: %q", info.String())
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdefghij", 8, "abcde…"},
		{"héhéhé", 6, "hé…"},
		{"héhéhé", 5, "h…"},
		{"a\x1bb", 10, `a\x1bb`},
	}
	for _, tt := range tests {
		if got := Clip(tt.in, tt.n); got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

// A script of several parts: the prompt names each part that asks, on a
// line of its own, however far the script pushes it.
func TestApprovalNamesWhatAsks(t *testing.T) {
	_, p := policytest.Load(t, t.TempDir(), "git")
	d := p.Check("git status" + strings.Repeat(" ", 400) + "; git rebase main")
	var out bytes.Buffer
	approve := TerminalApprover(strings.NewReader("n\n"), &out)
	if _, err := approve(context.Background(), tools.ApprovalRequest{Command: d.Command, Decision: d}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "  needs confirmation: git rebase main  (rule programs.git.subcommands.rebase") {
		t.Errorf("prompt:\n%s", out.String())
	}
}
