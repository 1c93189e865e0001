package report

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/reinsh/rein/engine/agent"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/tools"
)

// AskPrinter shows an agent run to a person: the answer streams to out;
// commands (with the model's reason, the verdict and the rule) and their
// folded output go to info; a spinner runs on a terminal while the model
// thinks. Quiet prints only the final answer.
type AskPrinter struct {
	out, info io.Writer
	quiet     bool
	// Full shows command output and files read unfolded.
	Full    bool
	spin    *spinner
	midLine bool // the streamed text did not end with a newline
}

// NewAskPrinter makes a printer; terminal turns the spinner on.
func NewAskPrinter(out, info io.Writer, quiet, terminal bool) *AskPrinter {
	p := &AskPrinter{out: out, info: info, quiet: quiet}
	if terminal && !quiet {
		p.spin = &spinner{w: info}
	}
	return p
}

// foldLines is how much command output is shown before it is folded.
const foldLines = 12

// Event prints one agent event.
func (p *AskPrinter) Event(e agent.Event) {
	if e.Type != "waiting" {
		p.spin.stop()
	}
	switch e.Type {
	case "waiting":
		p.spin.start()
	case "text":
		if !p.quiet {
			fmt.Fprint(p.out, Visible(e.Text))
			p.midLine = !strings.HasSuffix(e.Text, "\n")
		}
	case "command":
		p.newline()
		if p.quiet {
			return
		}
		line := "▶ " + e.Command
		if e.Reason != "" {
			line += "   # " + e.Reason
		}
		fmt.Fprintln(p.info, Visible(line))
		verdict := e.Verdict
		if e.DryRun {
			verdict += ", dry run: not run"
		}
		fmt.Fprintf(p.info, "  %s — rule %s: %s\n", verdict, e.Rule, Visible(e.Why))
	case "tool_result":
		if p.quiet {
			return
		}
		p.result(e)
	case "tool_call":
		if !p.quiet && e.Name != tools.RunCommand && e.Name != tools.ExecuteCommand {
			p.newline()
			p.call(e)
		}
	case "context":
		if !p.quiet {
			mark := "✓"
			if e.Success != nil && !*e.Success {
				mark = "✗"
			}
			fmt.Fprintf(p.info, "%s context %s: %s\n", mark, e.Name, Visible(e.Summary))
		}
	case "retry":
		fmt.Fprintf(p.info, "rein: %s; retrying in %s\n", e.Message, e.Wait)
	case "limit":
		p.newline()
		fmt.Fprintln(p.info, "rein: "+e.Message)
	case "done":
		p.newline()
		if p.quiet {
			fmt.Fprintln(p.out, Visible(strings.TrimSpace(e.Answer)))
		}
		if e.Usage != nil && !p.quiet {
			cost := ""
			if e.CostUSD > 0 {
				cost = fmt.Sprintf("; about $%.4f", e.CostUSD)
			}
			fmt.Fprintf(p.info, "\n%d tokens in, %d out, over %d model calls; %d commands run%s\n",
				e.Usage.PromptTokens, e.Usage.CompletionTokens, e.Calls, e.Ran, cost)
		}
	}
}

func (p *AskPrinter) newline() {
	if p.midLine {
		fmt.Fprintln(p.out)
		p.midLine = false
	}
}

// result shows a tool's result: command output folded, errors in full.
func (p *AskPrinter) result(e agent.Event) {
	var r struct {
		Combined string `json:"combined"`
		Stdout   string `json:"stdout"`
		Stderr   string `json:"stderr"`
		ExitCode int    `json:"exit_code"`
		Error    string `json:"error"`
		// A policy's denial: the verdict line above named the rule.
		DeniedBy     string   `json:"denied_by"`
		Alternatives []string `json:"alternatives"`
	}
	_ = json.Unmarshal([]byte(e.Output), &r)
	// Commands, and tasks (which run commands), show their output.
	command := e.Command != "" || e.Name == tools.RunCommand || e.Name == tools.ExecuteCommand
	if r.DeniedBy != "" && r.DeniedBy != "user" && command {
		if len(r.Alternatives) > 0 {
			fmt.Fprintf(p.info, "  allowed instead: %s\n", Visible(strings.Join(r.Alternatives, ", ")))
		}
		return
	}
	if r.Error != "" {
		fmt.Fprintf(p.info, "  ✗ %s\n", Visible(r.Error))
		return
	}
	if !command {
		if e.Name == tools.FileRead {
			var read struct{ Output string }
			_ = json.Unmarshal([]byte(e.Output), &read)
			p.lines(read.Output, fileLines)
		}
		fmt.Fprintf(p.info, "  %s\n", Visible(e.Summary))
		return
	}
	text := r.Combined
	if text == "" {
		text = r.Stdout + r.Stderr // one of them is empty
	}
	p.lines(text, foldLines)
	fmt.Fprintf(p.info, "  %s\n", e.Summary)
}

// fileLines is how much of a file a file tool read or wrote is shown
// before it is folded.
const fileLines = 3

// lines shows text, folded after n lines unless Full.
func (p *AskPrinter) lines(text string, n int) {
	if text == "" {
		return
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if i == n && !p.Full {
			fmt.Fprintf(p.info, "  │ … %d more lines\n", len(lines)-n)
			break
		}
		fmt.Fprintf(p.info, "  │ %s\n", Visible(l))
	}
}

// call shows a tool call that is not a command: a file written as its
// path and first lines, others as their arguments (clipped).
func (p *AskPrinter) call(e agent.Event) {
	if e.Name == tools.FileWrite {
		var w struct {
			Path, Content string
			Append        bool
		}
		if json.Unmarshal([]byte(e.Arguments), &w) == nil {
			verb := "writes"
			if w.Append {
				verb = "appends to"
			}
			fmt.Fprintf(p.info, "▶ file_write: %s %s (%d bytes)\n", verb, Visible(w.Path), len(w.Content))
			p.lines(w.Content, fileLines)
			return
		}
	}
	args := Visible(e.Arguments)
	if !p.Full {
		args = Clip(args, 200)
	}
	fmt.Fprintf(p.info, "▶ %s %s\n", Visible(e.Name), args)
}

// JSONEvents writes one JSON object per event.
func JSONEvents(w io.Writer, session string) func(agent.Event) {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var mu sync.Mutex
	return func(e agent.Event) {
		mu.Lock()
		defer mu.Unlock()
		e.Session = session
		if e.Output != "" && json.Valid([]byte(e.Output)) {
			// A tool's result is JSON: a reader gets it as a value, not as
			// JSON inside a string.
			_ = enc.Encode(struct {
				agent.Event
				Output json.RawMessage `json:"output"`
			}{e, json.RawMessage(e.Output)})
			return
		}
		_ = enc.Encode(e)
	}
}

// spinner shows that rein is waiting for the model.
type spinner struct {
	w    io.Writer
	mu   sync.Mutex
	done chan struct{}
}

func (s *spinner) start() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil {
		return
	}
	done := make(chan struct{})
	s.done = done
	go func() {
		frames := []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for i := 0; ; i++ {
			select {
			case <-done:
				fmt.Fprint(s.w, "\r\033[K")
				return
			case <-t.C:
				fmt.Fprintf(s.w, "\r%s thinking…", frames[i%len(frames)])
			}
		}
	}()
}

func (s *spinner) stop() {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done != nil {
		close(s.done)
		s.done = nil
		time.Sleep(time.Millisecond) // let the line be cleared before more output
	}
}

// TerminalApprover asks on a terminal: y runs once, a runs and approves the
// same command for the rest of the session, n refuses (a note may follow,
// passed to the model).
func TerminalApprover(in io.Reader, out io.Writer) tools.Approver {
	// Lines are read in the background, so that Ctrl-C (which cancels
	// ctx) ends the prompt at once: a read waiting for Enter ignored it.
	type line struct {
		text string
		err  error
	}
	lines := make(chan line)
	var start sync.Once
	read := func() {
		reader := bufio.NewReader(in)
		for {
			text, err := reader.ReadString('\n')
			lines <- line{text, err}
			if err != nil {
				return
			}
		}
	}
	var mu sync.Mutex
	return func(ctx context.Context, req tools.ApprovalRequest) (tools.Approval, error) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(out, "\n? %s\n", Visible(req.Command))
		if req.Reason != "" {
			fmt.Fprintf(out, "  reason: %s\n", Visible(req.Reason))
		}
		if req.Decision != nil {
			fmt.Fprintf(out, "  %s — rule %s: %s\n", req.Decision.Verdict, req.Decision.Rule, Visible(req.Decision.Reason))
			askedFor(out, req.Decision)
		}
		for {
			fmt.Fprint(out, "  run it? [y] once, [a] always this session, [r] always, in the recipe, [n] no (n: note for the model): ")
			start.Do(func() { go read() })
			var got line
			select {
			case got = <-lines:
			case <-ctx.Done():
				fmt.Fprintln(out)
				return tools.Approval{}, ctx.Err()
			}
			if got.err != nil && got.text == "" {
				return tools.Approval{}, fmt.Errorf("no answer on the terminal: %w", got.err)
			}
			line := strings.TrimSpace(got.text)
			answer, note, _ := strings.Cut(line, ":")
			switch strings.ToLower(strings.TrimSpace(answer)) {
			case "y", "yes":
				return tools.Approval{Approved: true}, nil
			case "a", "always":
				return tools.Approval{Approved: true, Always: true}, nil
			case "r", "remember":
				return tools.Approval{Approved: true, Always: true, Remember: true}, nil
			case "n", "no", "":
				return tools.Approval{Note: strings.TrimSpace(note)}, nil
			}
		}
	}
}

// askedFor lists, under an approval prompt for a script of several parts,
// each part that needs the confirmation: the one line a person must read,
// however the whole is laid out (a long script, a command pushed far right).
func askedFor(w io.Writer, d *policy.Decision) {
	if len(d.Commands)+len(d.Checks) < 2 {
		return // the prompt's decision line names the one part
	}
	for _, c := range d.Commands {
		if c.Verdict == policy.Ask {
			fmt.Fprintf(w, "  needs confirmation: %s  (%s)\n", oneLine(c.Text), because(c.Rule, c.Reason))
		}
	}
	for _, c := range d.Checks {
		if c.Verdict == policy.Ask {
			fmt.Fprintf(w, "  needs confirmation: %s %s  (%s)\n", c.Kind, oneLine(c.Subject), because(c.Rule, c.Reason))
		}
	}
}
