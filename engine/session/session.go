// Package session connects a conversation to the store: it restores or
// starts a named session, writes every message as it happens, and records
// every command in the audit log.
package session

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/provider"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/store"
	"github.com/reinsh/rein/engine/tools"
)

// Recorder writes one session's events and commands.
type Recorder struct {
	mu        sync.Mutex // MCP calls may record concurrently
	store     *store.Store
	session   *store.Session
	source    string
	workspace string
	// Err is the first write that failed; the conversation stops on it.
	Err error
	// answered: the model said something in this run.
	answered bool
}

// Discard removes the session when it was made for this run and the model
// never answered in it (a provider error on the first call): a failed ask
// leaves no empty session behind. It reports whether it did.
func (r *Recorder) Discard(made bool) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !made || r.answered {
		return false
	}
	return r.store.Delete(context.Background(), r.session) == nil
}

// NewName makes a session name for a conversation that was not given one.
func NewName() string {
	b := make([]byte, 3)
	rand.Read(b)
	return time.Now().Format("20060102-150405") + "-" + hex.EncodeToString(b)
}

// Start opens the named session (creating it), or empties it when fresh is
// set, and returns the history to continue: the restored messages (with
// interrupted tool calls answered) or a new system prompt, then the
// question, which is already written.
//
// contextMessages, called only for a conversation that is starting, gives
// the messages that follow the system prompt (the recipe's context).
func Start(ctx context.Context, st *store.Store, name string, fresh bool, workspace, model, system, question string, contextMessages func() []message.Message) ([]message.Message, *Recorder, error) {
	sess, err := st.Session(ctx, name, workspace, model, true)
	if err != nil {
		return nil, nil, err
	}
	if fresh {
		if err := st.Reset(ctx, sess); err != nil {
			return nil, nil, err
		}
	}
	history, err := st.Messages(ctx, sess)
	if err != nil {
		return nil, nil, err
	}
	rec := &Recorder{store: st, session: sess, source: "ask", workspace: workspace}
	if len(history) == 0 {
		sys := message.Text(message.System, system)
		history = append(history, sys)
		rec.Message(sys)
		if contextMessages != nil {
			for _, m := range contextMessages() {
				history = append(history, m)
				rec.Message(m)
			}
		}
	} else {
		// Store the synthetic results Repair added for calls cut off by a
		// crash (they follow the last stored message), so the stored session
		// matches what the provider sees.
		stored, err := st.Events(ctx, sess)
		if err != nil {
			return nil, nil, err
		}
		for _, m := range history[min(countMessages(stored), len(history)):] {
			rec.Message(m)
		}
	}
	q := message.Text(message.User, question)
	history = append(history, q)
	rec.Message(q)
	return history, rec, rec.Err
}

func countMessages(events []store.Event) int {
	n := 0
	for _, e := range events {
		if e.Kind != "usage" {
			n++
		}
	}
	return n
}

// Saved returns the first write that failed, or nil (the agent's Saved).
func (r *Recorder) Saved() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.Err
}

// Source names what the recorded commands come from (ask, mcp).
func (r *Recorder) Source(source string) { r.source = source }

// Message writes one message (the agent's OnMessage).
func (r *Recorder) Message(m message.Message) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if m.Kind == message.Assistant {
		r.answered = true
	}
	if r.Err == nil {
		r.Err = r.store.Append(context.Background(), r.session, m)
	}
}

// Usage writes the token usage of one model call.
func (r *Recorder) Usage(u provider.Usage) {
	data, _ := json.Marshal(u)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err == nil {
		r.Err = r.store.Append(context.Background(), r.session, message.Message{Kind: "usage",
			Content: fmt.Sprintf("%d in, %d out", u.PromptTokens, u.CompletionTokens), Data: data})
	}
}

// Start records a command about to run (the tool set's StartCommand); its
// row is completed by Command.
func (r *Recorder) Start(ev tools.CommandEvent) int64 {
	id, err := StartCommand(r.store, r.session, r.source, r.workspace, ev.Command, ev.Decision.Verdict.String(), ev.Decision.Rule, ev.Decision.Reason)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err == nil {
		r.Err = err
	}
	return id
}

// Command records a command the model ran or was refused (the tool set's
// AfterCommand), completing the row Start made when there is one.
func (r *Recorder) Command(ev tools.CommandEvent, res *runner.Result) {
	err := FinishCommand(r.store, ev.AuditID, r.session, r.source, r.workspace, ev.Command, ev.Decision.Verdict.String(), ev.Decision.Rule, ev.Decision.Reason, res)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err == nil {
		r.Err = err
	}
}

// StartCommand records a command before it runs and returns its row for
// FinishCommand; a rein that dies before then leaves it showing as
// interrupted.
func StartCommand(st *store.Store, sess *store.Session, source, workspace, command, verdict, rule, reason string) (int64, error) {
	return StartCall(st, sess, store.Command{Source: source, Workspace: workspace, Command: command, Verdict: verdict, Rule: rule, Reason: reason})
}

// StartCall is StartCommand for a whole record (a hook's, with its tool
// call's id).
func StartCall(st *store.Store, sess *store.Session, c store.Command) (int64, error) {
	return st.Start(context.Background(), sess, c)
}

// Record writes one command to the audit log; sess may be nil (rein exec).
func Record(st *store.Store, sess *store.Session, source, workspace, command, verdict, rule, reason string, res *runner.Result) error {
	return FinishCommand(st, 0, sess, source, workspace, command, verdict, rule, reason, res)
}

// FinishCommand completes row id (from StartCommand) with the command's
// outcome, or, when id is 0, writes the whole record at once.
func FinishCommand(st *store.Store, id int64, sess *store.Session, source, workspace, command, verdict, rule, reason string, res *runner.Result) error {
	return FinishCall(st, id, sess, store.Command{Source: source, Workspace: workspace, Command: command, Verdict: verdict, Rule: rule, Reason: reason}, res)
}

// FinishCall is FinishCommand for a whole record.
func FinishCall(st *store.Store, id int64, sess *store.Session, c store.Command, res *runner.Result) error {
	verdict := c.Verdict
	if res != nil {
		c.TimedOut, c.DurationMS = res.TimedOut, res.DurationMS
		if res.Error == "" || res.Decision == nil {
			code := res.ExitCode
			c.ExitCode = &code
		}
		if res.DeniedBy != "" && verdict == "allow" {
			// Allowed when vetted, stopped at run time.
			c.Verdict, c.Rule, c.Reason = "deny", res.DeniedBy, res.Error
		}
	}
	if id > 0 {
		return st.Finish(context.Background(), id, c)
	}
	return st.Record(context.Background(), sess, c)
}
