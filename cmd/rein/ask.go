package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/reinsh/rein/engine/agent"
	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/provider"
	"github.com/reinsh/rein/engine/report"
	"github.com/reinsh/rein/engine/session"
	"github.com/reinsh/rein/engine/tools"
)

type askCmd struct {
	Question        []string `arg:"" help:"The question, e.g. 'why is my build failing?'"`
	Model           string   `short:"m" help:"provider:model, e.g. openai:gpt-4.1, anthropic:claude-sonnet-4-5, ollama:qwen3, openai-compatible:NAME, azure:DEPLOYMENT (default: the recipe's provider.model or $REIN_MODEL)." env:"REIN_MODEL"`
	BaseURL         string   `name:"base-url" help:"API base URL for OpenAI-compatible servers (vLLM, LM Studio, OpenRouter, ...) and Azure (https://NAME.openai.azure.com, ?api-version=V to choose the version)."`
	APIKeyEnv       string   `name:"api-key-env" help:"The variable holding the API key (default: the provider's own, e.g. OPENAI_API_KEY, then REIN_API_KEY)." placeholder:"NAME"`
	System          string   `help:"Replace rein's system prompt."`
	AllowCommands   bool     `name:"allow-commands" help:"Give the model the command tools even if the recipe turns them off."`
	NoAllowCommands bool     `name:"no-allow-commands" help:"Give the model no command tools (nor tasks): file tools only."`
	CommandAllow    []string `name:"command-allow" help:"Only commands matching one of these globs may run (comma-separated or repeated), and still only what the recipe allows, e.g. 'git*,go test*'." placeholder:"GLOB,..."`
	CommandDeny     []string `name:"command-deny" help:"Also deny commands matching these globs (comma-separated or repeated), e.g. 'rm*,mv*'." placeholder:"GLOB,..."`
	AlsoAllow       []string `name:"also-allow" help:"Widen the recipe for this run: also allow commands matching these globs (comma-separated or repeated)." placeholder:"GLOB,..."`
	ConfirmCommands bool     `name:"confirm-commands" help:"Ask before every command, even allowed ones."`
	MaxTurns        int      `name:"max-turns" help:"Stop after this many tool turns (default: limits.max_tool_turns)."`
	Yes             bool     `short:"y" help:"Approve commands whose verdict is ask. Never overrides deny."`
	DryRun          bool     `name:"dry-run" help:"Let the model plan; run nothing (it is told what would have run)."`
	Quiet           bool     `short:"q" help:"Print only the final answer."`
	Full            bool     `help:"Show command output and files read or written unfolded (by default 12 lines of output and 3 of a file)."`
	JSON            bool     `help:"Print one JSON event per line."`
	Session         string   `help:"Continue the named session (created if new); without it each question starts a session of its own." placeholder:"NAME"`
	NewSession      bool     `name:"new-session" help:"Start the named session afresh."`
}

func (c *askCmd) Help() string {
	return `Asks a model, which gathers facts with vetted commands and file tools, then
answers. Keys come from OPENAI_API_KEY, ANTHROPIC_API_KEY, AZURE_OPENAI_API_KEY,
the variable --api-key-env or the recipe's provider.api_key_env names, and
else REIN_API_KEY (also the key of an OpenAI-compatible server).

The model gets the tools the recipe's tools field turns on: by default the
command tools (every command is vetted against the recipe and run in the
sandbox, so they are safe to offer) and the file tools, not file_write.
--no-allow-commands leaves the file tools only; --allow-commands adds the
command tools to a recipe that turned them off. --command-allow 'git*,go
test*' narrows a run to those commands (still as the recipe decides them);
--command-deny denies more; --also-allow widens the recipe for one run.

Commands with an ask verdict are confirmed on the terminal (y once, a always,
n no with an optional note); without a terminal they are refused.

Exit status: 0 when the model answered; 4 when a limit (--max-turns,
limits.max_tool_turns, limits.max_commands) stopped it first; 130 when
interrupted; 2 on a usage, recipe or model error.`
}

// globList reads repeated flags whose values may each be a comma list:
// --command-deny 'rm*,mv*' --command-deny 'dd*'.
func globList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g != "" {
				out = append(out, g)
			}
		}
	}
	return out
}

func (c *askCmd) Run(g *Globals, e *env) error {
	var name string
	err := c.run(g, e, &name)
	var ce codeError
	if err != nil && c.JSON && !errors.As(err, &ce) {
		// A reader of the events sees why they stopped, on stdout too.
		report.JSONEvents(e.stdout, name)(agent.Event{Type: "error", Message: err.Error()})
	}
	return err
}

func (c *askCmd) run(g *Globals, e *env, sessionName *string) error {
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	if err := requireTrust(r, e); err != nil {
		return err
	}
	if c.AllowCommands && c.NoAllowCommands {
		return errors.New("--allow-commands and --no-allow-commands contradict each other: give one")
	}
	r.Allow = append(r.Allow, globList(c.AlsoAllow)...)
	r.Deny = append(r.Deny, globList(c.CommandDeny)...)
	a, err := app.Assemble(r, policy.Options{Tool: tools.RunCommand, Only: globList(c.CommandAllow), ConfirmAll: c.ConfirmCommands}, e.stderr)
	if err != nil {
		return err
	}
	run := a.Runner
	model := c.Model
	if model == "" {
		model = r.Provider.Model
	}
	if model == "" {
		return errors.New("no model: pass --model provider:model (e.g. openai:gpt-4.1) or set provider.model in the recipe")
	}
	baseURL := c.BaseURL
	if baseURL == "" {
		baseURL = r.Provider.BaseURL
	}
	keyEnv := c.APIKeyEnv
	if keyEnv == "" {
		keyEnv = r.Provider.APIKeyEnv
	}
	spec, err := provider.ParseModel(model, baseURL, keyEnv)
	if err != nil {
		return err
	}
	if spec.Guessed && !c.Quiet && !c.JSON {
		fmt.Fprintf(e.stderr, "rein: %s names no provider: taking %s (write %s:%s to say so)\n", model, spec.Provider, spec.Provider, spec.Model)
	}
	prov, err := provider.New(spec, provider.Options{})
	if err != nil {
		return err
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	system := c.System
	if system == "" {
		system = agent.SystemPrompt(r.Workspace, runtime.GOOS)
	}
	name := c.Session
	if name == "" {
		name = session.NewName()
	}
	*sessionName = name
	printer := report.NewAskPrinter(e.stdout, e.stderr, c.Quiet, e.stdinTerminal)
	printer.Full = c.Full
	show := printer.Event
	if c.JSON {
		show = report.JSONEvents(e.stdout, name)
	}
	contextMessages := func() []message.Message { return agent.Context(ctx, run, r.Context, show) }
	if c.Session != "" && !c.NewSession {
		// A session carries another repository's commands and files: it
		// continues here only when the person says so.
		if prev, err := st.Session(ctx, c.Session, "", "", false); err == nil && prev.Workspace != "" && prev.Workspace != r.Workspace {
			if !e.stdinTerminal || c.JSON {
				return fmt.Errorf("session %s was started in %s, not here (%s): run rein ask there, or give this conversation another --session", c.Session, prev.Workspace, r.Workspace)
			}
			fmt.Fprintf(e.stderr, "rein: session %s was started in %s; continue it here, in %s? [y/N] ", c.Session, prev.Workspace, r.Workspace)
			if answer := readLine(e.stdin); answer != "y" && answer != "yes" {
				return errors.New("not continued; nothing was asked")
			}
		}
	}
	history, rec, err := session.Start(ctx, st, session.StartOptions{Name: name, Fresh: c.NewSession, Workspace: r.Workspace, Model: model,
		System: system, Question: strings.Join(c.Question, " "), Context: contextMessages})
	if err != nil {
		return err
	}
	onEvent := func(ev agent.Event) {
		if ev.Type == "usage" && ev.Usage != nil {
			rec.Usage(*ev.Usage)
		}
		if ev.Type == "done" && ev.Usage != nil {
			ev.CostUSD, _ = r.Provider.Cost(spec.Model, ev.Usage.PromptTokens, ev.Usage.CompletionTokens)
		}
		show(ev)
	}
	var approver tools.Approver
	if e.stdinTerminal && !c.JSON {
		approver = report.TerminalApprover(e.stdin, e.stderr)
	}
	set := a.Tools(tools.Options{
		Approver: approver, Yes: c.Yes, AllowCommands: c.AllowCommands, NoCommands: c.NoAllowCommands, DryRun: c.DryRun,
		BeforeCommand: func(ce tools.CommandEvent) { onEvent(agent.CommandEvent(ce)) },
		StartCommand:  rec.Start,
		Remember: func(command string) {
			msg, err := addToRecipe(g, command, "", false)
			if err != nil {
				fmt.Fprintf(e.stderr, "rein: not written into the recipe: %v\n", err)
				return
			}
			fmt.Fprint(e.stderr, "rein: "+msg)
		},
		AfterCommand: rec.Command,
	})
	maxTurns := r.Limits.MaxToolTurns
	if c.MaxTurns > 0 {
		maxTurns = c.MaxTurns
	}
	outcome, err := agent.Run(ctx, agent.Options{
		Provider: prov, Model: spec.Model, Temperature: r.Provider.Temperature, Tools: set,
		MaxToolTurns: maxTurns, MaxCommands: r.Limits.MaxCommands, OnEvent: onEvent, OnMessage: rec.Message, Saved: rec.Saved,
	}, history)
	if err := rec.Saved(); err != nil {
		// Said at once: the loop stopped on it.
		return fmt.Errorf("the session could not be saved, so rein stopped the conversation: %w; see rein doctor", err)
	}
	if err != nil && !errors.Is(err, context.Canceled) && rec.Discard(c.Session == "") {
		return err // nothing to continue: no session to name
	}
	if c.Session == "" && !c.Quiet && !c.JSON {
		fmt.Fprintf(e.stderr, "session %s (continue it with --session %s)\n", name, name)
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(e.stderr, "\nrein: interrupted; the session keeps everything so far")
		return codeError(130)
	}
	if err == nil && outcome != nil && outcome.StoppedBy != "" {
		// The answer is not finished: a script must not read it as done.
		fmt.Fprintf(e.stderr, "rein: stopped at limits.%s before the model answered; continue with --session %s, or raise the limit\n", outcome.StoppedBy, name)
		return codeError(exitLimit)
	}
	return err
}
