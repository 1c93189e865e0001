package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/reinsh/rein/engine/policy"
)

// Result is what every tool returns: the output of a command, or an error
// saying why nothing (or not everything) ran.
type Result struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Combined   string `json:"combined,omitempty"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`

	// Error, when set, makes this an error result.
	Error        string   `json:"error,omitempty"`
	DeniedBy     string   `json:"denied_by,omitempty"`
	Alternatives []string `json:"alternatives,omitempty"`
	// Decision is the denial's full decision, for display; not sent to models.
	Decision *policy.Decision `json:"-"`
	// Stopped says which of rein's limits stopped the command before it
	// ended ("output", "memory"), for display (the output says it too).
	Stopped string `json:"-"`
}

type outputResult struct {
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Combined   string `json:"combined,omitempty"`
	ExitCode   int    `json:"exit_code"`
	TimedOut   bool   `json:"timed_out"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
	// A limit cut the result: which, in words a model can act on.
	LimitReached bool   `json:"limit_reached,omitempty"`
	LimitMessage string `json:"limit_message,omitempty"`
}

type errorResult struct {
	Error        string   `json:"error"`
	DeniedBy     string   `json:"denied_by,omitempty"`
	Alternatives []string `json:"alternatives,omitempty"`
}

// MarshalJSON writes either the output form or the error form
// (schemas/tool-result.schema.json).
func (r *Result) MarshalJSON() ([]byte, error) {
	if r.Error != "" {
		return marshalPlain(errorResult{r.Error, r.DeniedBy, r.Alternatives})
	}
	// combined (both streams in the order written) only when both have
	// something: else it repeats the one that does, to a model or client
	// that pays for every byte.
	combined := r.Combined
	if r.Stdout == "" || r.Stderr == "" {
		combined = ""
	}
	limit := r.LimitMessage()
	return marshalPlain(outputResult{r.Stdout, r.Stderr, combined, r.ExitCode, r.TimedOut, r.Truncated, r.DurationMS, limit != "", limit})
}

// LimitMessage says which of rein's limits cut the result, or "".
func (r *Result) LimitMessage() string {
	switch {
	case r.TimedOut:
		return fmt.Sprintf("the command was stopped at its timeout (exit %d): ask for a longer timeout (up to limits.max_timeout) or run less at once", r.ExitCode)
	case r.Stopped == "output":
		return "the command was stopped for flooding its output (limits.max_output_bytes): narrow it (head, grep, a smaller range)"
	case r.Stopped == "memory":
		return "the command was stopped for the memory its shell took: process the data in smaller pieces"
	case r.Stopped != "":
		return "the command was stopped by rein's " + r.Stopped + " limit"
	case r.Truncated:
		return "the output was longer than limits.max_output_bytes: its head and tail are kept around a marker; narrow the command to see the middle"
	}
	return ""
}

// marshalPlain is json.Marshal without HTML escaping: a command's output
// and the alternatives (git show <rev>) read as written, not as \u003c.
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Denied makes the error result for a decision that is not allow.
func Denied(d *policy.Decision) *Result {
	msg := fmt.Sprintf("%s is denied by rule %s: %s", strings.TrimSpace(d.Command), d.Rule, d.Reason)
	if d.Verdict == policy.Ask {
		msg = fmt.Sprintf("%s needs confirmation, which was not given (rule %s: %s)", strings.TrimSpace(d.Command), d.Rule, d.Reason)
	}
	if len(d.Alternatives) > 0 {
		msg += "; allowed instead: " + strings.Join(d.Alternatives, ", ")
	}
	return &Result{Error: msg, DeniedBy: d.Rule, Alternatives: d.Alternatives, Decision: d, ExitCode: 126}
}

// Failed makes an error result for something that is not a policy decision.
func Failed(format string, args ...any) *Result {
	return &Result{Error: fmt.Sprintf(format, args...), ExitCode: 126}
}
