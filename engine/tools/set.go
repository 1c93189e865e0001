package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/reinsh/rein/engine/jsonschema"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/runner"
)

// Spec describes a tool to a model.
type Spec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"input_schema"`
}

// Built-in tool names.
const (
	RunCommand          = "run_command"
	ExecuteCommand      = "execute_command"
	ListAllowedCommands = "list_allowed_commands"
	GlobTool            = "glob"
	FileRead            = "file_read"
	GrepTool            = "grep"
	FileWrite           = "file_write"
	ListDirectory       = "list_directory"
	SystemInfoTool      = "system_info"
)

// defaultTools are on unless the recipe's tools say otherwise; file_write
// is off unless a recipe turns it on.
var defaultTools = map[string]bool{
	RunCommand: true, ExecuteCommand: true, ListAllowedCommands: true, GlobTool: true, FileRead: true,
	GrepTool: true, ListDirectory: true, SystemInfoTool: true, FileWrite: false,
}

// Approval is a person's answer to an ask verdict.
type Approval struct {
	Approved bool
	Always   bool // approve this command for the rest of the session
	// Remember: approve it for good, in the recipe (Options.Remember).
	Remember bool
	Note     string // passed to the model with a refusal
}

// ApprovalRequest is what a person is asked about.
type ApprovalRequest struct {
	Tool     string
	Command  string
	Reason   string
	Decision *policy.Decision
}

// Approver asks a person; nil means there is no one to ask.
type Approver func(ctx context.Context, req ApprovalRequest) (Approval, error)

// CommandEvent is shown before a command runs (or is refused).
type CommandEvent struct {
	Tool     string
	Command  string
	Reason   string
	Decision *policy.Decision
	DryRun   bool
	// AuditID is what StartCommand returned for this command (0 when it was
	// not run or nothing was started), for AfterCommand to complete.
	AuditID int64
}

// Options configure a tool set.
type Options struct {
	// Approver answers ask verdicts; nil: ask is treated as deny.
	Approver Approver
	// Yes approves every ask verdict (never a deny).
	Yes bool
	// AllowCommands turns on the command tools even if the recipe turns
	// them off.
	AllowCommands bool
	// NoCommands takes the command tools (and tasks, which run commands)
	// away: the model gets the file tools only.
	NoCommands bool
	// Remember writes an approved command into the recipe for good (rein
	// allow) and tells the person what it did; nil: a remembered answer
	// holds for the session only.
	Remember func(command string)
	// DryRun vets commands but runs nothing.
	DryRun bool
	// BeforeCommand sees each command with its decision before it runs.
	BeforeCommand func(CommandEvent)
	// StartCommand is told right before a command runs (after any
	// approval), for the audit log's "started" record; its answer comes back
	// in AfterCommand's event as AuditID.
	StartCommand func(CommandEvent) int64
	// AfterCommand sees each command's result (or refusal), for the audit log.
	AfterCommand func(CommandEvent, *runner.Result)
}

// Set is the tools a model can call, all going through the same policy and
// runner. It counts the commands it ran.
type Set struct {
	policy  *policy.Policy
	runner  *runner.Runner
	files   *Files
	opts    Options
	enabled map[string]Mode // the tools on, and how

	mu     sync.Mutex // guards always and ran: MCP calls may be concurrent
	always map[string]bool
	ran    int

	// schemas are the tools' input schemas, compiled once: every call is
	// validated against its tool's (validate, in Call), whoever makes it.
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
}

// validate checks a tool's arguments (JSON text) against its input schema:
// the one check every caller's arguments pass (rein ask's model, MCP
// clients), inside Call.
func (s *Set) validate(name, arguments string) error {
	s.schemasOnce.Do(func() {
		s.schemas = map[string]*jsonschema.Schema{}
		for _, spec := range s.Specs() {
			if sc, err := jsonschema.Compile(spec.Schema); err == nil {
				s.schemas[spec.Name] = sc
			}
		}
	})
	sc, ok := s.schemas[name]
	if !ok {
		return fmt.Errorf("no input schema for %s", name)
	}
	v, err := jsonschema.Decode([]byte(arguments))
	if err != nil {
		return fmt.Errorf("the arguments of %s are not valid JSON: %w", name, err)
	}
	if err := sc.Validate(v); err != nil {
		return fmt.Errorf("the arguments of %s do not match its input schema: %w", name, err)
	}
	return nil
}

// Mode is how an enabled tool runs (the recipe's tools: { NAME: true | 'ask' }).
type Mode uint8

const (
	// On: the tool runs when called; a command tool's commands are
	// decided by the policy.
	On Mode = iota + 1
	// Confirm: a person confirms each call (a command tool: each command).
	Confirm
)

// NewSet builds the tools a recipe enables.
func NewSet(p *policy.Policy, r *runner.Runner, opts Options) *Set {
	s := &Set{policy: p, runner: r, files: NewFiles(p), opts: opts, enabled: map[string]Mode{}, always: map[string]bool{}}
	for name, on := range defaultTools {
		if on {
			s.enabled[name] = On
		}
	}
	for name, v := range p.Recipe().Tools {
		switch v {
		case true:
			s.enabled[name] = On
		case "ask":
			s.enabled[name] = Confirm
		default:
			delete(s.enabled, name)
		}
	}
	for tool := range s.taskTools() {
		s.enabled[tool] = On
	}
	if opts.NoCommands {
		for name := range s.enabled {
			if name == RunCommand || name == ExecuteCommand || name == ListAllowedCommands || !defaultToolName(name) {
				delete(s.enabled, name)
			}
		}
	}
	if opts.AllowCommands && !opts.NoCommands {
		for _, n := range []string{RunCommand, ExecuteCommand} {
			if _, ok := s.enabled[n]; !ok {
				s.enabled[n] = On
			}
		}
	}
	return s
}

// defaultToolName reports whether name is one of rein's own tools (not a
// recipe task's).
func defaultToolName(name string) bool {
	_, ok := defaultTools[name]
	return ok
}

// CommandsRun is how many commands the set has executed.
func (s *Set) CommandsRun() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ran
}

// Specs lists the enabled tools, in a stable order.
func (s *Set) Specs() []Spec {
	var out []Spec
	for _, spec := range s.allSpecs() {
		if _, ok := s.enabled[spec.Name]; ok {
			out = append(out, spec)
		}
	}
	return append(out, s.taskSpecs()...)
}

// Nature is what calling a tool may do, for clients that show or gate
// tools by it (MCP's annotations).
type Nature struct {
	ReadOnly    bool // it changes nothing
	Destructive bool // it may overwrite or remove (when not read-only)
	OpenWorld   bool // it may reach the network
}

// Nature says what a tool of the set may do: the file tools but
// file_write only read; commands (and tasks) write where the recipe's
// sandbox lets them and reach the network where it allows.
func (s *Set) Nature(name string) Nature {
	switch name {
	case GlobTool, FileRead, GrepTool, ListDirectory, SystemInfoTool, ListAllowedCommands:
		return Nature{ReadOnly: true}
	case FileWrite:
		return Nature{Destructive: true}
	}
	r := s.policy.Recipe()
	readOnly := r.Sandbox.Mode == "read-only"
	return Nature{ReadOnly: readOnly, Destructive: !readOnly, OpenWorld: r.Sandbox.Network != "deny"}
}

func sortSpecs(specs []Spec) {
	sort.Slice(specs, func(i, j int) bool { return specs[i].Name < specs[j].Name })
}

func (s *Set) allSpecs() []Spec {
	r := s.policy.Recipe()
	timeout := r.Limits.Timeout
	def, longest := executeTimeouts(r.Limits)
	execDefault, execMax := int(def.Seconds()), int(longest.Seconds())
	runDesc := fmt.Sprintf("Run a shell command in the workspace (%s) and return its stdout, stderr and exit code. "+
		"It runs in rein's embedded POSIX shell, is checked against this repository's policy first, and is stopped after %s. "+
		"Pipes, && and || work. A denied command returns an error naming the rule and commands allowed instead.\n\n%s",
		r.Workspace, timeout, Catalog(r, false))
	return []Spec{
		{RunCommand, runDesc, schema(`{"type":"object","properties":{
			"command":{"type":"string","description":"Shell command to run, e.g. git log --oneline -5"},
			"reason":{"type":"string","description":"Why this command is needed to answer the question"}},
			"required":["command","reason"],"additionalProperties":false}`)},
		{ExecuteCommand, fmt.Sprintf("Run one program with arguments, without a shell (no pipes, globbing or variables), under the same policy as run_command. "+
			"It is stopped after timeout seconds (default %d, at most %d). "+
			"The result is {stdout, stderr, exit_code, timed_out, truncated, duration_ms}; a refused command returns {error, denied_by, alternatives}, "+
			"and one cut by a limit says so in limit_reached and limit_message.", execDefault, execMax),
			schema(fmt.Sprintf(`{"type":"object","properties":{
			"command":{"type":"string","description":"Program to run"},
			"args":{"type":"array","items":{"type":"string"},"description":"Arguments, passed as they are"},
			"cwd":{"type":"string","description":"Working folder inside the workspace (default: the workspace)"},
			"timeout":{"type":"integer","minimum":1,"maximum":%d,"default":%d,"description":"Seconds before the command is stopped"}},
			"required":["command"],"additionalProperties":false}`, execMax, execDefault))},
		{ListAllowedCommands, "List the commands and programs this repository's policy allows, with descriptions and what is forbidden.", schema(`{"type":"object","properties":{},"additionalProperties":false}`)},
		{GlobTool, "Find files in the workspace by pattern (** spans folders), e.g. **/*.go.", schema(`{"type":"object","properties":{
			"pattern":{"type":"string"},"path":{"type":"string","description":"Folder to search (default: the workspace)"}},
			"required":["pattern"],"additionalProperties":false}`)},
		{FileRead, "Read a text file of the workspace; offset is the first line (1-based), limit the number of lines.", schema(`{"type":"object","properties":{
			"path":{"type":"string"},"offset":{"type":"integer","minimum":0},"limit":{"type":"integer","minimum":0}},
			"required":["path"],"additionalProperties":false}`)},
		{GrepTool, "Search file contents with an RE2 regular expression; returns file:line: text.", schema(`{"type":"object","properties":{
			"pattern":{"type":"string"},"path":{"type":"string"},"glob":{"type":"string","description":"Only files whose name matches, e.g. *.go"}},
			"required":["pattern"],"additionalProperties":false}`)},
		{FileWrite, "Write (or append to) a file inside the workspace, creating folders as needed.", schema(`{"type":"object","properties":{
			"path":{"type":"string"},"content":{"type":"string"},"append":{"type":"boolean"}},
			"required":["path","content"],"additionalProperties":false}`)},
		{ListDirectory, "List a folder of the workspace with entry types and sizes.", schema(`{"type":"object","properties":{
			"path":{"type":"string"}},"additionalProperties":false}`)},
		{SystemInfoTool, "Describe this machine: OS, CPUs, memory, free disk, workspace and tool versions.", schema(`{"type":"object","properties":{},"additionalProperties":false}`)},
	}
}

func schema(s string) json.RawMessage {
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(s)); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Outcome is a tool call's result.
type Outcome struct {
	Output  string // JSON text for the model
	Success bool
	Summary string // one line for people
	// For command tools:
	Command string
	Result  *runner.Result
	// Invalid: the arguments do not match the tool's input schema (an
	// MCP server answers that as the protocol's invalid-params error).
	Invalid bool
}

func errorOutcome(format string, args ...any) Outcome {
	msg := fmt.Sprintf(format, args...)
	b, _ := json.Marshal(map[string]string{"error": msg})
	return Outcome{Output: string(b), Summary: msg}
}

func jsonOutcome(v any, summary string) Outcome {
	b, err := json.Marshal(v)
	if err != nil {
		return errorOutcome("cannot encode the result: %v", err)
	}
	return Outcome{Output: string(b), Success: true, Summary: summary}
}

// Call runs one tool call. Bad arguments and unknown tools are error
// outcomes for the model, never Go errors: the conversation goes on.
func (s *Set) Call(ctx context.Context, name, arguments string) Outcome {
	mode, ok := s.enabled[name]
	if !ok {
		names := slices.Sorted(maps.Keys(s.enabled))
		return errorOutcome("unknown tool %q; the tools are: %s", name, strings.Join(names, ", "))
	}
	if strings.TrimSpace(arguments) == "" {
		arguments = "{}"
	}
	var args map[string]json.RawMessage
	if err := json.Unmarshal([]byte(arguments), &args); err != nil {
		out := errorOutcome("the arguments of %s are not valid JSON (%v); send an object like {\"command\": \"...\"}", name, err)
		out.Invalid = true
		return out
	}
	if err := s.validate(name, arguments); err != nil {
		out := errorOutcome("%v", err)
		out.Invalid = true
		return out
	}
	// A command tool in "ask" mode confirms each command it runs
	// (execute); every other tool confirms the call.
	if mode == Confirm && name != RunCommand && name != ExecuteCommand {
		if out, ok := s.approveTool(ctx, name, arguments); !ok {
			return out
		}
	}
	if task, ok := s.taskTools()[name]; ok {
		return s.callTask(ctx, name, task, args)
	}
	switch name {
	case RunCommand:
		return s.runCommand(ctx, args)
	case ExecuteCommand:
		return s.executeCommand(ctx, args)
	case ListAllowedCommands:
		return jsonOutcome(map[string]string{"output": Catalog(s.policy.Recipe(), true)}, "listed the allowed commands")
	case GlobTool:
		var a struct{ Pattern, Path string }
		if o, ok := decode(args, &a, "pattern"); !ok {
			return o
		}
		r, err := s.files.Glob(a.Pattern, a.Path)
		return fileOutcome(r, err, func(r *SearchResult) string {
			return fmt.Sprintf("%s match %s in %s", countOf(r.Count, "file"), a.Pattern, placeOf(a.Path))
		})
	case FileRead:
		var a struct {
			Path          string
			Offset, Limit int
		}
		if o, ok := decode(args, &a, "path"); !ok {
			return o
		}
		r, err := s.files.Read(a.Path, a.Offset, a.Limit)
		return fileOutcome(r, err, func(r *ReadResult) string {
			lines := strings.Count(r.Output, "\n")
			if r.Output != "" && !strings.HasSuffix(r.Output, "\n") {
				lines++
			}
			sum := fmt.Sprintf("read %s: %s, %s", a.Path, countOf(lines, "line"), countOf(r.Bytes, "byte"))
			if a.Offset > 1 {
				sum += fmt.Sprintf(" from line %d", a.Offset)
			}
			if r.Truncated {
				sum += " (more follows)"
			}
			return sum
		})
	case GrepTool:
		var a struct{ Pattern, Path, Glob string }
		if o, ok := decode(args, &a, "pattern"); !ok {
			return o
		}
		r, err := s.files.Grep(a.Pattern, a.Path, a.Glob)
		return fileOutcome(r, err, func(r *SearchResult) string {
			return fmt.Sprintf("%s of %s in %s", countOf(r.Count, "match"), a.Pattern, placeOf(a.Path))
		})
	case FileWrite:
		var a struct {
			Path, Content string
			Append        bool
		}
		if o, ok := decode(args, &a, "path", "content"); !ok {
			return o
		}
		if s.opts.DryRun {
			return jsonOutcome(map[string]any{"dry_run": true, "would_write": a.Path, "bytes": len(a.Content)}, "dry run: would write "+a.Path)
		}
		r, err := s.files.Write(a.Path, a.Content, a.Append)
		return fileOutcome(r, err, func(r *WriteResult) string { return r.Output })
	case ListDirectory:
		var a struct{ Path string }
		if o, ok := decode(args, &a); !ok {
			return o
		}
		r, err := s.files.List(a.Path)
		return fileOutcome(r, err, func(r *ListResult) string {
			return fmt.Sprintf("listed %s: %s", placeOf(a.Path), countOf(len(r.Entries), "entry"))
		})
	case SystemInfoTool:
		return jsonOutcome(System(ctx, s.runner, s.policy.Recipe().Workspace), "described the system")
	}
	return errorOutcome("tool %q is not implemented", name)
}

// decode reads arguments into v (fields matched case-insensitively) and
// checks the required ones are present.
func decode(args map[string]json.RawMessage, v any, required ...string) (Outcome, bool) {
	for _, r := range required {
		if _, ok := args[r]; !ok {
			return errorOutcome("missing required argument %q", r), false
		}
	}
	b, _ := json.Marshal(args)
	if err := json.Unmarshal(b, v); err != nil {
		return errorOutcome("bad arguments: %v", err), false
	}
	return Outcome{}, true
}

// fileOutcome is a file tool's outcome; summary says, for people, what it
// read, found or wrote.
func fileOutcome[T any](v *T, err error, summary func(*T) string) Outcome {
	if err != nil {
		return errorOutcome("%v", err)
	}
	return jsonOutcome(v, summary(v))
}

// placeOf names a file tool's folder argument ("" is the workspace).
func placeOf(path string) string {
	if path == "" || path == "." {
		return "the workspace"
	}
	return path
}

// countOf is "1 line", "3 lines", "2 matches", "1 entry", "4 entries".
func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	switch {
	case strings.HasSuffix(what, "ch"):
		what += "es"
	case strings.HasSuffix(what, "y"):
		what = what[:len(what)-1] + "ies"
	default:
		what += "s"
	}
	return fmt.Sprintf("%d %s", n, what)
}
