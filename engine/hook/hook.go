// Package hook speaks the pre-tool-use hook formats of the coding agents
// rein sits inside: Claude Code's and Codex's PreToolUse, Gemini CLI's
// BeforeTool. It reads the tool call an agent is about to make, says what
// rein must vet (a shell command, a file path), and writes rein's answer
// the way that agent reads it. It decides nothing: the policy does.
package hook

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Agent is a coding agent rein answers hooks for.
type Agent string

// The agents.
const (
	ClaudeCode Agent = "claude-code"
	Codex      Agent = "codex"
	Gemini     Agent = "gemini"
)

// Agents are the agents rein knows, in the order help lists them.
var Agents = []Agent{ClaudeCode, Codex, Gemini}

// MaxPayload bounds what rein reads of a hook's input.
const MaxPayload = 16 << 20

// Call is one tool call an agent asks about.
type Call struct {
	Agent     Agent
	Event     string // PreToolUse, BeforeTool
	SessionID string
	ToolUseID string
	Cwd       string
	Tool      string
	Input     map[string]json.RawMessage
}

// payload is what the three agents send, as far as rein reads it.
type payload struct {
	SessionID string                     `json:"session_id"`
	ToolUseID string                     `json:"tool_use_id"`
	Cwd       string                     `json:"cwd"`
	Event     string                     `json:"hook_event_name"`
	Tool      string                     `json:"tool_name"`
	Input     map[string]json.RawMessage `json:"tool_input"`
}

// Parse reads an agent's hook input.
func Parse(agent Agent, data []byte) (*Call, error) {
	var p payload
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("the hook's input is not the JSON object %s sends: %w", agent, err)
	}
	switch {
	case p.Tool == "":
		return nil, errors.New("the hook's input names no tool (tool_name)")
	case p.Cwd == "" || !filepath.IsAbs(p.Cwd):
		return nil, fmt.Errorf("the hook's input has no absolute working folder (cwd: %q)", p.Cwd)
	}
	return &Call{Agent: agent, Event: p.Event, SessionID: p.SessionID, ToolUseID: p.ToolUseID, Cwd: filepath.Clean(p.Cwd), Tool: p.Tool, Input: p.Input}, nil
}

// Kind is what a tool call does, as rein vets it.
type Kind int

// Kinds of tool calls.
const (
	// Other: a tool rein has no opinion on.
	Other Kind = iota
	// Shell: a command line for the agent's shell.
	Shell
	// Read: files read (a walk when Walk: a folder searched).
	Read
	// Write: files written.
	Write
)

// Access is what a tool call reaches.
type Access struct {
	Kind    Kind
	Command string // Shell
	// Timeout is the command's own, in seconds (0: the agent's default).
	Timeout int
	// Dir is where the command runs, when the tool says (Gemini's
	// dir_path); else the call's cwd.
	Dir string
	// Paths are the files (or, with Walk, the folders) read or written.
	Paths []string
	// Walk: the tool reads every file below Paths (a search), those whose
	// names match Glob when it is set.
	Walk bool
	Glob string
}

// tool is how one agent tool reads as an access.
type tool struct {
	kind   Kind
	paths  []string // input fields holding paths
	walk   bool     // the path is a folder searched (default: the cwd)
	glob   string   // the input field filtering a walk by name
	dir    string   // the input field naming where a command runs
	timeMS string   // the input field holding a timeout in milliseconds
}

// tools are the agents' own tools rein vets; any other is no business of
// rein's (MCP tools, web fetches, todo lists).
var tools = map[Agent]map[string]tool{
	ClaudeCode: {
		"Bash":         {kind: Shell, timeMS: "timeout"},
		"Read":         {kind: Read, paths: []string{"file_path"}},
		"Write":        {kind: Write, paths: []string{"file_path"}},
		"Edit":         {kind: Write, paths: []string{"file_path"}},
		"MultiEdit":    {kind: Write, paths: []string{"file_path"}},
		"NotebookEdit": {kind: Write, paths: []string{"notebook_path"}},
		"Glob":         {kind: Read, paths: []string{"path"}},
		"Grep":         {kind: Read, paths: []string{"path"}, walk: true, glob: "glob"},
		"LS":           {kind: Read, paths: []string{"path"}},
	},
	Codex: {
		"Bash": {kind: Shell},
	},
	Gemini: {
		"run_shell_command":   {kind: Shell, dir: "dir_path"},
		"read_file":           {kind: Read, paths: []string{"file_path", "absolute_path"}},
		"read_many_files":     {kind: Read, walk: true},
		"write_file":          {kind: Write, paths: []string{"file_path"}},
		"replace":             {kind: Write, paths: []string{"file_path"}},
		"glob":                {kind: Read, paths: []string{"dir_path", "path"}},
		"grep_search":         {kind: Read, paths: []string{"dir_path", "path"}, walk: true, glob: "include_pattern"},
		"search_file_content": {kind: Read, paths: []string{"dir_path", "path"}, walk: true, glob: "include"},
		"list_directory":      {kind: Read, paths: []string{"dir_path", "path"}},
	},
}

// Matcher is the tool-name pattern a hook for agent is installed with:
// every tool rein vets, and no other (the agent runs no hook for those).
func Matcher(a Agent) string {
	names := make([]string, 0, len(tools[a]))
	for name := range tools[a] {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

// Access reads what the call reaches. A known tool whose input lacks what
// rein must vet (a Bash call without a command) is an error: it is denied,
// not waved through.
func (c *Call) Access() (Access, error) {
	t, ok := tools[c.Agent][c.Tool]
	if !ok {
		return Access{Kind: Other}, nil
	}
	a := Access{Kind: t.kind, Walk: t.walk}
	str := func(field string) (string, bool, error) {
		raw, ok := c.Input[field]
		if !ok || string(raw) == "null" {
			return "", false, nil
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", true, fmt.Errorf("%s's %s is not a string", c.Tool, field)
		}
		return s, true, nil
	}
	if t.kind == Shell {
		cmd, ok, err := str("command")
		if err != nil {
			return a, err
		}
		if !ok {
			return a, fmt.Errorf("%s has no command to vet", c.Tool)
		}
		a.Command = cmd
		if t.timeMS != "" {
			if raw, ok := c.Input[t.timeMS]; ok {
				var ms float64
				if json.Unmarshal(raw, &ms) == nil && ms > 0 {
					a.Timeout = int((ms + 999) / 1000)
				}
			}
		}
		if t.dir != "" {
			if dir, ok, err := str(t.dir); err != nil {
				return a, err
			} else if ok && dir != "" {
				a.Dir = c.abs(dir)
			}
		}
		return a, nil
	}
	for _, f := range t.paths {
		p, ok, err := str(f)
		if err != nil {
			return a, err
		}
		if ok && p != "" {
			a.Paths = append(a.Paths, c.abs(p))
		}
	}
	if len(a.Paths) == 0 {
		if len(t.paths) > 0 && !t.walk && t.kind != Read {
			return a, fmt.Errorf("%s names no file to vet", c.Tool)
		}
		a.Paths = []string{c.Cwd} // a search or listing of the working folder
	}
	if t.glob != "" {
		a.Glob, _, _ = str(t.glob)
	}
	return a, nil
}

func (c *Call) abs(p string) string {
	if strings.HasPrefix(p, "~/") || p == "~" {
		return p // the policy expands ~ as the shell would
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(c.Cwd, p)
	}
	return filepath.Clean(p)
}

// Decision is rein's answer to a call.
type Decision string

// Decisions.
const (
	NoOpinion Decision = ""
	Allow     Decision = "allow"
	Deny      Decision = "deny"
	Ask       Decision = "ask"
)

// Answer is what rein tells the agent.
type Answer struct {
	Decision Decision
	Reason   string
	// Rule is the policy's rule behind it, for rein's audit log (the agent
	// reads Reason).
	Rule string
	// Command replaces the shell tool's command (the call runs through
	// rein); "" keeps it.
	Command string
}

// Reply writes the answer in the agent's format: what goes to standard
// output, and the exit status.
func (c *Call) Reply(a Answer) ([]byte, int) {
	return Reply(c.Agent, c, a)
}

// Reply answers in agent's format; call may be nil when the input could
// not be read (the answer is then a denial).
func Reply(agent Agent, call *Call, a Answer) ([]byte, int) {
	if a.Decision == NoOpinion {
		return []byte("{}\n"), 0
	}
	var updated map[string]json.RawMessage
	if a.Command != "" && call != nil {
		updated = map[string]json.RawMessage{}
		for k, v := range call.Input {
			updated[k] = v
		}
		updated["command"], _ = json.Marshal(a.Command)
	}
	var out any
	switch agent {
	case Gemini:
		// Gemini CLI has no ask: a person must approve outside it.
		o := geminiOut{Decision: string(a.Decision), Reason: a.Reason}
		if a.Decision == Ask {
			o.Decision = string(Deny)
			o.Reason = "rein would ask a person before this runs, and Gemini CLI's hooks cannot ask: " + a.Reason
		}
		if updated != nil && o.Decision == string(Allow) {
			o.Specific = &geminiSpecific{Event: "BeforeTool", ToolInput: map[string]json.RawMessage{"command": updated["command"]}}
		}
		out = o
	default:
		event := "PreToolUse"
		out = claudeOut{Specific: claudeSpecific{Event: event, Decision: string(a.Decision), Reason: a.Reason, Updated: updated}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // git show <rev> reads as written
	if err := enc.Encode(out); err != nil {
		return []byte(`{"decision":"deny","reason":"rein could not write its answer"}` + "\n"), 0
	}
	return b.Bytes(), 0
}

type claudeOut struct {
	Specific claudeSpecific `json:"hookSpecificOutput"`
}

type claudeSpecific struct {
	Event    string                     `json:"hookEventName"`
	Decision string                     `json:"permissionDecision"`
	Reason   string                     `json:"permissionDecisionReason,omitempty"`
	Updated  map[string]json.RawMessage `json:"updatedInput,omitempty"`
}

type geminiOut struct {
	Decision string          `json:"decision"`
	Reason   string          `json:"reason,omitempty"`
	Specific *geminiSpecific `json:"hookSpecificOutput,omitempty"`
}

type geminiSpecific struct {
	Event     string                     `json:"hookEventName"`
	ToolInput map[string]json.RawMessage `json:"tool_input"`
}

// Quote writes s as one word for a POSIX shell (and bash): in single
// quotes nothing is interpreted, and a single quote is written '\”. A
// string holding a NUL byte cannot be passed at all.
func Quote(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", errors.New("the command holds a NUL byte, which no shell can pass on")
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}
