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
	"github.com/reinsh/rein/engine/policy"
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
// StartOptions say which conversation Start opens and what it begins with.
type StartOptions struct {
	Name  string // the session's name
	Fresh bool   // start it over, dropping what it held
	// Workspace and Model are recorded with a new session.
	Workspace, Model string
	// System is the system prompt of a conversation that is starting;
	// Question the person's message, written in every case.
	System, Question string
	// Context, called only for a conversation that is starting, gives the
	// messages that follow the system prompt (the recipe's context).
	Context func() []message.Message
}

func Start(ctx context.Context, st *store.Store, o StartOptions) ([]message.Message, *Recorder, error) {
	sess, err := st.Session(ctx, o.Name, o.Workspace, o.Model, true)
	if err != nil {
		return nil, nil, err
	}
	if o.Fresh {
		if err := st.Reset(ctx, sess); err != nil {
			return nil, nil, err
		}
	}
	history, err := st.Messages(ctx, sess)
	if err != nil {
		return nil, nil, err
	}
	rec := &Recorder{store: st, session: sess, source: "ask", workspace: o.Workspace}
	if len(history) == 0 {
		sys := message.Text(message.System, o.System)
		history = append(history, sys)
		rec.Message(sys)
		if o.Context != nil {
			for _, m := range o.Context() {
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
	q := message.Text(message.User, o.Question)
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

// record is the audit record of a command a tool ran or refused.
func (r *Recorder) record(ev tools.CommandEvent) store.Command {
	return store.Command{Source: r.source, Workspace: r.workspace, Command: ev.Command, Verdict: ev.Decision.Verdict, Rule: ev.Decision.Rule, Reason: ev.Decision.Reason}
}

// Start records a command about to run (the tool set's StartCommand); its
// row is completed by Command.
func (r *Recorder) Start(ev tools.CommandEvent) int64 {
	id, err := StartCall(r.store, r.session, r.record(ev))
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
	err := FinishCall(r.store, ev.AuditID, r.session, r.record(ev), res)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.Err == nil {
		r.Err = err
	}
}

// StartCall records a command before it runs and returns its row for
// FinishCall; a rein that dies before then leaves it showing as
// interrupted.
func StartCall(st *store.Store, sess *store.Session, c store.Command) (int64, error) {
	return st.Start(context.Background(), sess, c)
}

// FinishCall completes row id (from StartCall) with the command's outcome,
// or, when id is 0, writes the whole record at once; sess may be nil (rein
// exec, rein run).
func FinishCall(st *store.Store, id int64, sess *store.Session, c store.Command, res *runner.Result) error {
	verdict := c.Verdict
	if res != nil {
		c.TimedOut, c.DurationMS = res.TimedOut, res.DurationMS
		if res.Error == "" || res.Decision == nil {
			code := res.ExitCode
			c.ExitCode = &code
		}
		if res.DeniedBy != "" && verdict == policy.Allow {
			// Allowed when vetted, stopped at run time.
			c.Verdict, c.Rule, c.Reason = policy.Deny, res.DeniedBy, res.Error
		}
	}
	if id > 0 {
		return st.Finish(context.Background(), id, c)
	}
	return st.Record(context.Background(), sess, c)
}
