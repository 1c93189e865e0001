// Package recipe owns rein's recipes: discovering them, evaluating their
// Jsonnet with the embedded library, merging them in precedence order,
// validating the result against schemas/recipe.schema.json, checking which
// executables exist, and caching the compiled result by its inputs.
//
// A compiled Recipe is plain data. Deciding what it allows is the policy
// package's job.
package recipe

import "strings"

// Recipe is a compiled recipe: the JSON object a recipe evaluates to, merged
// over the built-in defaults, plus facts recorded at compile time.
type Recipe struct {
	Name        string              `json:"name,omitempty"`
	Description string              `json:"description,omitempty"`
	Commands    []CatalogCommand    `json:"commands"`
	Programs    map[string]*Program `json:"programs"`
	Allow       []string            `json:"allow"`
	Ask         []string            `json:"ask"`
	Deny        []string            `json:"deny"`
	Rules       []Rule              `json:"rules"`
	Shell       Shell               `json:"shell"`
	Default     string              `json:"default"`
	Paths       Paths               `json:"paths"`
	Env         Env                 `json:"env"`
	Limits      Limits              `json:"limits"`
	Tools       map[string]any      `json:"tools,omitempty"`
	Tasks       map[string]*Task    `json:"tasks,omitempty"`
	Context     []ContextCommand    `json:"context,omitempty"`
	Provider    Provider            `json:"provider"`
	MCP         MCP                 `json:"mcp"`
	Hook        Hook                `json:"hook"`
	Sandbox     Sandbox             `json:"sandbox"`
	Tests       Tests               `json:"tests"`

	// Workspace is the folder of the repository recipe (or the working
	// directory when there is none).
	Workspace string `json:"workspace"`
	// Sources are the recipe files merged into this one, lowest precedence
	// first ("builtin:NAME" for embedded presets).
	Sources []string `json:"sources"`
	// Imports are the files the sources import (not the embedded library).
	Imports []string `json:"imports,omitempty"`
	// Scripts are the programs the recipe allows by their path
	// (./scripts/lint.sh): allowing one trusts what it says now.
	Scripts []string `json:"scripts,omitempty"`
	// Verified: Options.Verify passed on this recipe (not part of it).
	Verified bool `json:"-"`
	// Unavailable lists catalog commands and programs whose executable was
	// not found; they are left out of what a model sees.
	Unavailable []string `json:"unavailable,omitempty"`
}

// CatalogCommand is an entry of the command catalog. Its tokens are a prefix
// of the argv it allows: <name> stands for any one argument, [--flag] for an
// optional token.
type CatalogCommand struct {
	Command     string `json:"command"`
	Description string `json:"description,omitempty"`
}

// Program holds per-program rules. A nil Flags or Args list means "any"; an
// empty list means "none".
type Program struct {
	Description     string                 `json:"description,omitempty"`
	Flags           []string               `json:"flags"`
	DenyFlags       []string               `json:"deny_flags"`
	Subcommands     map[string]*Subcommand `json:"subcommands"`
	DenySubcommands []string               `json:"deny_subcommands"`
	AskSubcommands  []string               `json:"ask_subcommands"`
	GlobalFlags     map[string]GlobalFlag  `json:"global_flags"`
	Args            []string               `json:"args"`
}

// Subcommand holds the rules of one subcommand of a program.
type Subcommand struct {
	Description string   `json:"description,omitempty"`
	Flags       []string `json:"flags"`
	DenyFlags   []string `json:"deny_flags"`
	Args        []string `json:"args"`
	Ask         bool     `json:"ask,omitempty"`
}

// GlobalFlag is a flag that may stand before a program's subcommand.
type GlobalFlag struct {
	Value       bool   `json:"value,omitempty"`
	Description string `json:"description,omitempty"`
}

// Rule is an expr rule. Each is evaluated per simple command, When once per
// script; a rule with both needs both to hold.
type Rule struct {
	Name     string `json:"name"`
	When     string `json:"when,omitempty"`
	Each     string `json:"each,omitempty"`
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
}

// Shell holds decisions for shell constructs. Values are allow, ask or deny;
// redirect_write and redirect_read also take "workspace" (allowed inside the
// workspace and the paths globs).
type Shell struct {
	RedirectWrite       string `json:"redirect_write"`
	RedirectRead        string `json:"redirect_read"`
	Substitution        string `json:"substitution"`
	ProcessSubstitution string `json:"process_substitution"`
	Subshell            string `json:"subshell"`
	Background          string `json:"background"`
	Function            string `json:"function"`
	Heredoc             string `json:"heredoc"`
	DynamicCommandName  string `json:"dynamic_command_name"`
	UnknownProgram      string `json:"unknown_program"`
	// UnknownOption decides an option (or subcommand) of a program rein
	// models that its program table does not know (default ask).
	UnknownOption string `json:"unknown_option,omitempty"`
}

// Paths are globs for file tools and path arguments. Relative globs are
// relative to the workspace; "~" is the home folder.
type Paths struct {
	Read  []string `json:"read"`
	Write []string `json:"write"`
	Deny  []string `json:"deny"`
	// Grant are secret files of the workspace that some commands see:
	// every other command finds them empty (where the sandbox has its
	// namespaces) and may not name them.
	Grant []PathGrant `json:"grant,omitempty"`
	// Protect are paths that may be read but that rein never writes
	// (file tools, redirects): what is there runs later, outside rein.
	Protect []string `json:"protect"`
	// Scope is where commands may read: "granted" (or its older name
	// "workspace"): the workspace and ReadRoots, by vetting and by the
	// sandbox; "anywhere": everywhere but the secret paths.
	Scope string `json:"scope,omitempty"`
}

// PathGrant shows a secret file of the workspace to the commands that
// need it (a build that reads its .env says so in the recipe).
type PathGrant struct {
	// Path is relative to the workspace; * may stand in its last part.
	Path string `json:"path"`
	// Commands are globs of the commands that see it, as allow globs.
	Commands []string `json:"commands"`
}

// Env describes the environment executed commands see.
type Env struct {
	Pass []string          `json:"pass"`
	Set  map[string]string `json:"set"`
	Deny []string          `json:"deny"`
}

// Limits bound what one command and one conversation may do.
type Limits struct {
	Timeout        Duration `json:"timeout"`
	MaxTimeout     Duration `json:"max_timeout"`
	MaxToolTurns   int      `json:"max_tool_turns"`
	MaxCommands    int      `json:"max_commands"`
	MaxOutputBytes int      `json:"max_output_bytes"`
	MaxFileBytes   int      `json:"max_file_bytes"`
	// Resource limits of executed programs (0: none).
	CPUSeconds        int   `json:"cpu_seconds,omitempty"`
	FileSizeBytes     int64 `json:"file_size_bytes,omitempty"`
	Processes         int   `json:"processes,omitempty"`
	AddressSpaceBytes int64 `json:"address_space_bytes,omitempty"`
	// ExecuteTimeout and ExecuteMaxTimeout are execute_command's default
	// and longest timeout: 60s and 120s, unless the recipe sets them or
	// limits.timeout and limits.max_timeout.
	ExecuteTimeout    Duration `json:"execute_timeout,omitempty"`
	ExecuteMaxTimeout Duration `json:"execute_max_timeout,omitempty"`
}

// Task is a named task (run by `rein run`, exposed to models when Expose).
type Task struct {
	Description string            `json:"description,omitempty"`
	Params      map[string]*Param `json:"params,omitempty"`
	Run         string            `json:"run,omitempty"`
	Steps       []string          `json:"steps,omitempty"`
	Deps        []string          `json:"deps,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Dir         string            `json:"dir,omitempty"`
	Timeout     Duration          `json:"timeout,omitempty"`
	Expose      bool              `json:"expose,omitempty"`
	Allow       []string          `json:"allow,omitempty"`
}

// Param is a typed task parameter.
type Param struct {
	Type        string   `json:"type"`
	Default     any      `json:"default,omitempty"`
	Description string   `json:"description,omitempty"`
	Enum        []string `json:"enum,omitempty"`
}

// ContextCommand runs before the first model call.
type ContextCommand struct {
	Command string `json:"command"`
	Label   string `json:"label,omitempty"`
}

// Provider holds model defaults.
type Provider struct {
	Model       string   `json:"model,omitempty"`
	BaseURL     string   `json:"base_url,omitempty"`
	APIKeyEnv   string   `json:"api_key_env,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	// Prices are what models cost, by model name (or a prefix of it).
	Prices map[string]Price `json:"prices,omitempty"`
}

// Price is a model's cost in US dollars per million tokens.
type Price struct {
	Input  float64 `json:"input"`
	Output float64 `json:"output"`
}

// Cost estimates what a model's tokens cost, in US dollars: the price of
// the model's own name, else of the longest listed name it starts with.
func (p Provider) Cost(model string, in, out int) (float64, bool) {
	best := ""
	for name := range p.Prices {
		if (model == name || strings.HasPrefix(model, name)) && len(name) > len(best) {
			best = name
		}
	}
	if best == "" {
		return 0, false
	}
	price := p.Prices[best]
	return (float64(in)*price.Input + float64(out)*price.Output) / 1e6, true
}

// Hook configures rein hook.
type Hook struct {
	// Tools are answers for an agent's tools rein does not vet itself
	// (WebFetch): allow, ask or deny.
	Tools map[string]string `json:"tools,omitempty"`
}

// MCP configures rein mcp.
type MCP struct {
	// Elicitation lets ask verdicts be confirmed through the client.
	Elicitation bool `json:"elicitation,omitempty"`
}

// Sandbox configures the kernel sandbox.
type Sandbox struct {
	Mode        string   `json:"mode"`
	Network     string   `json:"network"`
	Unavailable string   `json:"unavailable"`
	Write       []string `json:"write,omitempty"` // more writable folders (~ and $VARS expand)
	// Sockets are local services commands may still reach (sandbox.Config's
	// HideServices leaves them out).
	Sockets []string `json:"sockets,omitempty"`
	// Hosts are, under Network "granted", the hosts each command may reach
	// (through rein's proxy); every other command has no network.
	Hosts []HostGrant `json:"hosts,omitempty"`
	// HiddenWrite are the hidden files and folders of the workspace that
	// commands may write (HiddenWritable and the recipe's): every other
	// one is read-only to them, and one they make is taken back.
	HiddenWrite []string `json:"hidden_write,omitempty"`
}

// HostGrant lets the commands its globs match reach its hosts.
type HostGrant struct {
	Commands []string `json:"commands"`
	Hosts    []string `json:"hosts"`
}

// Tests are commands with their expected decision.
type Tests struct {
	Allow []string `json:"allow"`
	Ask   []string `json:"ask"`
	Deny  []string `json:"deny"`
}
