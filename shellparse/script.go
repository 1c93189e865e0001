// Package shellparse turns shell text into an analysed script: every simple
// command it would run (including those hidden in substitutions, wrappers such
// as sudo, xargs, find -exec and sh -c, and nested scripts), its resolved argv,
// flags, positionals and environment, and the script-level facts a policy
// needs (operators, constructs, redirects, substitutions, functions).
//
// It owns analysis only. It knows the syntax of the shell and of commands that
// run other commands, and, for the programs that walk folders, how each is
// told to skip files (WalkWithout takes the names); it knows nothing about
// what is allowed or secret: the policy chooses the names and decides.
//
// Text is parsed with mvdan.cc/sh's bash parser, except a plain command or
// pipeline (git status, grep -rn 'x' . | head), which has one reading and
// is read off the text (plain.go); tests hold both ways to the same result.
package shellparse

import (
	"fmt"
	"strings"
)

// Position is a place in the analysed text, 1-based.
type Position struct {
	Line   int `json:"line"`
	Col    int `json:"col"`
	Offset int `json:"offset"`
}

func (p Position) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// Word is one resolved argument. A static word is resolved the way the shell
// would (quotes, escapes, $'...', braces); a dynamic word depends on run-time
// state (parameters, substitutions, arithmetic, globs) and keeps only its
// literal parts in Value and its source in Raw.
type Word struct {
	Value   string `json:"value"`
	Raw     string `json:"raw,omitempty"`
	Dynamic bool   `json:"dynamic,omitempty"`
	Glob    bool   `json:"glob,omitempty"`
	Tilde   bool   `json:"tilde,omitempty"`

	onlyGlob bool
	shape    uint8 // shapeBare, shapeNotBare or 0: not known
}

// GlobDir is, for a word that is static but for its glob characters
// (~/.ssh/*), the folder the pattern lists, as written: the text up to the
// last slash before the first glob character ("~/.ssh"). ok is false for
// other words and for patterns in the working folder.
func (w Word) GlobDir() (dir string, ok bool) {
	if !w.onlyGlob {
		return "", false
	}
	end := strings.IndexAny(w.Value, "*?[")
	if end < 0 {
		end = len(w.Value)
	}
	slash := strings.LastIndexByte(w.Value[:end], '/')
	switch {
	case slash < 0:
		return "", false
	case slash == 0:
		return "/", true
	}
	return w.Value[:slash], true
}

// Text is the word as a policy should see it: the resolved value for static
// words and the source text for dynamic ones.
func (w *Word) Text() string {
	if w.Dynamic {
		return w.Raw
	}
	return w.Value
}

// Flag is one option of a simple command. Short clusters are split (-rf gives
// -r and -f, both with the same Raw); --name=value gives Name --name and Value.
type Flag struct {
	Name     string `json:"name"`
	Value    string `json:"value,omitempty"`
	HasValue bool   `json:"has_value,omitempty"`
	Raw      string `json:"raw"`
	Arg      int    `json:"arg"` // index into Args
	Dynamic  bool   `json:"dynamic,omitempty"`
}

// Command is one simple command the script would run.
type Command struct {
	// Name is the program's base name (rm for /bin/rm); empty when the
	// command name is dynamic.
	Name string `json:"name"`
	// Path is the program as written, after resolution.
	Path  string   `json:"path"`
	Words []Word   `json:"words"`
	Argv  []string `json:"argv"`
	Args  []string `json:"args"`
	// Flags and Positionals are filled by Split.
	Flags       []Flag            `json:"flags,omitempty"`
	Positionals []string          `json:"positionals,omitempty"`
	Sub         string            `json:"sub,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	// Dynamic is true when any word (or env value) depends on run-time state.
	Dynamic     bool `json:"dynamic,omitempty"`
	DynamicName bool `json:"dynamic_name,omitempty"`
	// Function is true when Name is a function declared in the script.
	Function bool `json:"function,omitempty"`
	// Decl is true for declaration builtins (export, declare, local, ...).
	Decl bool     `json:"decl,omitempty"`
	Pos  Position `json:"pos"`
	// Via lists the wrappers and contexts this command was found through,
	// outermost first: "sudo", "xargs", "find -exec", "bash -c", "$(…)".
	// Lists are shared between commands and analyses: read them only.
	Via  []string `json:"via,omitempty"`
	Text string   `json:"text"`
	// Dir is the folder the command runs in when an earlier cd of the
	// script (cd ~ && cat .aws/credentials) or its wrapper (env -C DIR,
	// sudo -D DIR) moved it, as written: relative to the folder the script
	// starts in, or from ~. "" is that folder. A move to a folder computed
	// at run time, or inside a loop or condition, is not followed here:
	// runners check each command again in the folder it runs in.
	Dir string `json:"dir,omitempty"`

	execd bool
	split bool
	mem   *arena // where Split takes its lists from
}

// Redirect is one redirection on a statement.
type Redirect struct {
	Op      string   `json:"op"`
	Fd      string   `json:"fd,omitempty"`
	Target  string   `json:"target"`
	Dynamic bool     `json:"dynamic,omitempty"`
	Write   bool     `json:"write"`
	Read    bool     `json:"read"`
	Dup     bool     `json:"dup,omitempty"`     // >&2, <&0: no file involved
	Heredoc bool     `json:"heredoc,omitempty"` // << and <<<: data comes from the script
	Pos     Position `json:"pos"`
	Via     []string `json:"via,omitempty"`
	Dir     string   `json:"dir,omitempty"` // as Command.Dir
}

// Substitution is a command or process substitution.
type Substitution struct {
	Kind string   `json:"kind"` // "$()", "``", "<()", ">()"
	Text string   `json:"text"`
	Pos  Position `json:"pos"`
}

// Assignment is a shell variable assignment that is not a command prefix
// (x=1; export x=1).
type Assignment struct {
	Name    string   `json:"name"`
	Value   string   `json:"value"`
	Dynamic bool     `json:"dynamic,omitempty"`
	Pos     Position `json:"pos"`
}

// Finding kinds.
const (
	FindingParseError    = "parse_error"
	FindingTooLong       = "too_long"
	FindingTooDeep       = "too_deep"
	FindingDynamicScript = "dynamic_script" // sh -c "$x", eval "$x"
	FindingCodeExec      = "code_execution" // LD_PRELOAD=..., git -c core.hooksPath=...
	FindingDynamicArgs   = "dynamic_args"   // informational: re-checked at run time
	FindingUnknownOption = "unknown_option" // env --bogus CMD: where CMD starts is unknown
	// FindingDynamicVariable: declare "$x=1", read "$x": a variable named at
	// run time, which may be PATH or LD_PRELOAD.
	FindingDynamicVariable = "dynamic_variable"
)

// Finding is something the analysis noticed that is not a simple command.
type Finding struct {
	Kind    string   `json:"kind"`
	Message string   `json:"message"`
	Pos     Position `json:"pos"`
	Via     []string `json:"via,omitempty"`
}

// Construct names, as reported in Script.Constructs.
const (
	ConstructPipeline     = "pipeline"
	ConstructAndOr        = "and_or"
	ConstructSubshell     = "subshell"
	ConstructBlock        = "block"
	ConstructSubstitution = "substitution"
	ConstructProcSubst    = "process_substitution"
	ConstructBackground   = "background"
	ConstructFunction     = "function"
	ConstructHeredoc      = "heredoc"
	ConstructRedirect     = "redirect"
	ConstructIf           = "if"
	ConstructLoop         = "loop"
	ConstructCase         = "case"
	ConstructArithmetic   = "arithmetic"
	ConstructTest         = "test"
	ConstructTime         = "time"
	ConstructCoproc       = "coproc"
	ConstructNegation     = "negation"
	ConstructAssignment   = "assignment"
	ConstructDynamicName  = "dynamic_command_name"
)

// Script is the result of analysing one piece of shell text.
type Script struct {
	Text          string         `json:"text"`
	Commands      []*Command     `json:"commands"`
	Operators     []string       `json:"operators,omitempty"`
	Constructs    []string       `json:"constructs,omitempty"`
	Redirects     []Redirect     `json:"redirects,omitempty"`
	Substitutions []Substitution `json:"substitutions,omitempty"`
	Assignments   []Assignment   `json:"assignments,omitempty"`
	Functions     []string       `json:"functions,omitempty"`
	Findings      []Finding      `json:"findings,omitempty"`
	Depth         int            `json:"depth"`
	// ParseError is set when the text (or a nested script) could not be
	// parsed; the analysis is then incomplete and must not be trusted.
	ParseError *Finding `json:"parse_error,omitempty"`
}

// Has reports whether the script contains the construct.
func (s *Script) Has(construct string) bool {
	for _, c := range s.Constructs {
		if c == construct {
			return true
		}
	}
	return false
}

func (s *Script) addConstruct(c string) {
	if !s.Has(c) {
		s.Constructs = append(s.Constructs, c)
	}
}

func (s *Script) addOperator(op string) {
	for _, o := range s.Operators {
		if o == op {
			return
		}
	}
	s.Operators = append(s.Operators, op)
}
