// Package agent runs rein's agent loop: ask the model, run the tools it
// calls through the policy and runner, give it the results, and repeat until
// it answers or a limit is reached.
package agent

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/provider"
	"github.com/reinsh/rein/engine/tools"
)

// Event is something that happened in the loop, for display and --json.
type Event struct {
	Type string `json:"type"` // text, tool_call, command, tool_result, usage, retry, limit, done, error
	// Session names the conversation (rein ask --json sets it on every
	// event: a reader of many sessions' events tells them apart).
	Session string `json:"session,omitempty"`

	Text string `json:"text,omitempty"`

	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"`
	Success   *bool  `json:"success,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Output    string `json:"output,omitempty"`

	Command string `json:"command,omitempty"`
	Reason  string `json:"reason,omitempty"`
	Verdict string `json:"verdict,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Why     string `json:"why,omitempty"`
	DryRun  bool   `json:"dry_run,omitempty"`

	Usage   *provider.Usage `json:"usage,omitempty"`
	Wait    string          `json:"wait,omitempty"`
	Limit   string          `json:"limit,omitempty"`
	Message string          `json:"message,omitempty"`
	Answer  string          `json:"answer,omitempty"`
	Calls   int             `json:"model_calls,omitempty"`
	Ran     int             `json:"commands,omitempty"`
	// CostUSD estimates what the run's tokens cost (done), where the
	// recipe's provider.prices knows the model.
	CostUSD float64 `json:"cost_usd,omitempty"`
}

// Options configure a run.
type Options struct {
	Provider     provider.Provider
	Model        string
	Temperature  *float64
	Tools        *tools.Set
	MaxToolTurns int
	MaxCommands  int
	// Retries of a rate-limited or failing model call (default 4).
	Retries int
	// Backoff is the first wait between retries, doubled each time
	// (default 1s), unless the provider says how long (Retry-After).
	Backoff time.Duration
	// OnEvent receives events as they happen.
	OnEvent func(Event)
	// OnMessage receives every message as it is added to the conversation
	// (a tool call before it runs, its result after), for durable storage.
	OnMessage func(message.Message)
	// Saved reports the first failed write of what OnMessage and the
	// tools record (a full disk, a read-only database): the loop stops at
	// once on it rather than go on with a conversation it cannot keep.
	Saved func() error
	// Sleep waits between retries (tests replace it).
	Sleep func(context.Context, time.Duration) error
}

// Outcome is the end of a run.
type Outcome struct {
	Messages   []message.Message
	Answer     string
	Usage      provider.Usage
	ModelCalls int
	// StoppedBy names the limit that ended the loop, if one did.
	StoppedBy string
}

// Run continues a conversation (system and user messages included) until
// the model answers. The outcome holds every message so far, also when an
// error ends the run.
func Run(ctx context.Context, opts Options, history []message.Message) (*Outcome, error) {
	opts.defaults()
	out := &Outcome{Messages: append([]message.Message(nil), history...)}
	add := func(m message.Message) {
		out.Messages = append(out.Messages, m)
		opts.OnMessage(m)
	}
	unsaved := func() error {
		if err := opts.Saved(); err != nil {
			return fmt.Errorf("the session could not be saved, so rein stopped the conversation: %w", err)
		}
		return nil
	}
	var specs []provider.Tool
	for _, s := range opts.Tools.Specs() {
		specs = append(specs, provider.Tool{Name: s.Name, Description: s.Description, Parameters: s.Schema})
	}
	for turn := 0; ; turn++ {
		opts.OnEvent(Event{Type: "waiting"})
		resp, err := opts.call(ctx, provider.Request{Model: opts.Model, Messages: out.Messages, Tools: specs, Temperature: opts.Temperature})
		out.ModelCalls++
		if err != nil {
			return out, explain(err, opts.Provider.Name(), opts.Model)
		}
		out.Usage.PromptTokens += resp.Usage.PromptTokens
		out.Usage.CompletionTokens += resp.Usage.CompletionTokens
		usage := resp.Usage
		opts.OnEvent(Event{Type: "usage", Usage: &usage})
		if resp.Text != "" {
			add(message.Text(message.Assistant, resp.Text))
		}
		if err := unsaved(); err != nil {
			return out, err
		}
		if len(resp.ToolCalls) == 0 {
			out.Answer = resp.Text
			opts.OnEvent(Event{Type: "done", Answer: out.Answer, Usage: &out.Usage, Calls: out.ModelCalls, Ran: opts.Tools.CommandsRun()})
			return out, nil
		}
		for _, c := range resp.ToolCalls {
			add(message.NewCall(c))
			opts.OnEvent(Event{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: c.Arguments})
		}
		limit := ""
		if turn+1 > opts.MaxToolTurns {
			limit = "max_tool_turns"
		}
		for _, c := range resp.ToolCalls {
			var o tools.Outcome
			switch {
			case limit != "":
				o = refused(fmt.Sprintf("not run: this conversation reached limits.%s (%d)", limit, limitValue(opts, limit)))
			case isCommand(c.Name) && opts.Tools.CommandsRun() >= opts.MaxCommands:
				limit = "max_commands"
				o = refused(fmt.Sprintf("not run: this conversation reached limits.max_commands (%d)", opts.MaxCommands))
			default:
				o = opts.Tools.Call(ctx, c.Name, c.Arguments)
			}
			add(message.NewResult(message.Result{ToolCallID: c.ID, Name: c.Name, Output: o.Output, Success: o.Success}, o.Summary))
			ok := o.Success
			opts.OnEvent(Event{Type: "tool_result", ID: c.ID, Name: c.Name, Command: o.Command, Success: &ok, Summary: o.Summary, Output: o.Output})
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			if err := unsaved(); err != nil {
				return out, err
			}
		}
		if limit != "" {
			out.StoppedBy = limit
			msg := fmt.Sprintf("Stopped: the conversation reached limits.%s (%d). Ask a narrower question, or raise the limit in the recipe (or with --max-turns).", limit, limitValue(opts, limit))
			opts.OnEvent(Event{Type: "limit", Limit: limit, Message: msg})
			out.Answer = msg
			opts.OnEvent(Event{Type: "done", Answer: msg, Usage: &out.Usage, Calls: out.ModelCalls, Ran: opts.Tools.CommandsRun(), Limit: limit})
			return out, nil
		}
	}
}

func limitValue(opts Options, limit string) int {
	if limit == "max_commands" {
		return opts.MaxCommands
	}
	return opts.MaxToolTurns
}

func isCommand(name string) bool { return name == tools.RunCommand || name == tools.ExecuteCommand }

func refused(msg string) tools.Outcome {
	return tools.Outcome{Output: fmt.Sprintf(`{"error":%q}`, msg), Summary: msg}
}

func (o *Options) defaults() {
	if o.MaxToolTurns <= 0 {
		o.MaxToolTurns = 50
	}
	if o.MaxCommands <= 0 {
		o.MaxCommands = 50
	}
	if o.Retries == 0 {
		o.Retries = 4
	}
	if o.Backoff == 0 {
		o.Backoff = time.Second
	}
	if o.OnEvent == nil {
		o.OnEvent = func(Event) {}
	}
	if o.Saved == nil {
		o.Saved = func() error { return nil }
	}
	if o.OnMessage == nil {
		o.OnMessage = func(message.Message) {}
	}
	if o.Sleep == nil {
		o.Sleep = func(ctx context.Context, d time.Duration) error {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
}

// maxBackoff caps the wait between retries.
const maxBackoff = time.Minute

// call makes one model call, retrying rate limits and server errors with
// backoff (or the provider's Retry-After).
func (o *Options) call(ctx context.Context, req provider.Request) (*provider.Response, error) {
	wait := o.Backoff
	for attempt := 0; ; attempt++ {
		resp, err := o.Provider.Stream(ctx, req, func(s string) { o.OnEvent(Event{Type: "text", Text: s}) })
		var pe *provider.Error
		if err == nil || !errors.As(err, &pe) || !pe.Retryable() || attempt >= o.Retries {
			return resp, err
		}
		d := wait
		if pe.RetryAfter > 0 {
			d = pe.RetryAfter
		}
		d = min(d, maxBackoff)
		o.OnEvent(Event{Type: "retry", Wait: d.String(), Message: pe.Error()})
		if err := o.Sleep(ctx, d); err != nil {
			return nil, err
		}
		wait = min(wait*2, maxBackoff)
	}
}

// explain makes provider errors actionable.
func explain(err error, providerName, model string) error {
	var pe *provider.Error
	if !errors.As(err, &pe) {
		return err
	}
	switch {
	case pe.NoTools:
		return fmt.Errorf("%s does not support tool calling, which rein needs; try a model that does (e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:qwen3): %w", model, err)
	case pe.Status == 401 || pe.Status == 403:
		return fmt.Errorf("%s rejected the API key (HTTP %d); check the key's variable: %w", providerName, pe.Status, err)
	case pe.Status == 404:
		return fmt.Errorf("%s does not know the model %q (HTTP 404); check --model: %w", providerName, model, err)
	case pe.Retryable():
		return fmt.Errorf("%s kept failing after retries: %w", providerName, err)
	}
	return err
}

// CommandEvent turns a tool set's before-command notice into an event.
func CommandEvent(c tools.CommandEvent) Event {
	e := Event{Type: "command", Name: c.Tool, Command: c.Command, Reason: c.Reason, DryRun: c.DryRun}
	if c.Decision != nil {
		e.Verdict, e.Rule, e.Why = c.Decision.Verdict.String(), c.Decision.Rule, c.Decision.Reason
	}
	return e
}

// SystemPrompt is rein's default instruction to the model.
func SystemPrompt(workspace, goos string) string {
	return fmt.Sprintf(`You are rein, an assistant that answers questions about the software project in %s on a %s machine.
Gather the facts you need with the tools before answering: run commands with run_command (the catalog in its description lists what this repository allows), read files with file_read, search with grep and glob.
Every command is checked against the repository's policy; if one is denied, the error names the rule and the commands allowed instead: use one of those rather than retrying variations.
Prefer few, precise commands. When you have enough facts, answer concisely and cite the command output or files you relied on.`, workspace, goos)
}
