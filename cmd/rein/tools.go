package main

import (
	"fmt"

	"github.com/reinsh/rein/engine/mcpserver"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/provider"
	"github.com/reinsh/rein/engine/runner"
	"github.com/reinsh/rein/engine/tools"
)

type toolsCmd struct {
	Format string `short:"f" enum:"text,openai,anthropic,mcp" default:"text" help:"text (names, descriptions and the catalog), or the exact tool list sent to openai, anthropic or mcp clients."`
}

func (c *toolsCmd) Help() string {
	return `Prints what a model would see with this recipe: the tools with their JSON
Schemas (exposed tasks included), and the catalog list_allowed_commands returns.`
}

func (c *toolsCmd) Run(g *Globals, e *env) error {
	p, err := appOf(g).LoadPolicy("tools")
	if err != nil {
		return err
	}
	set := tools.NewSet(p, runner.New(p, runner.Options{}), tools.Options{})
	specs := set.Specs()
	wire := make([]provider.Tool, 0, len(specs))
	for _, s := range specs {
		wire = append(wire, provider.Tool{Name: s.Name, Description: s.Description, Parameters: s.Schema})
	}
	switch c.Format {
	case "openai":
		return writeJSON(e.stdout, provider.OpenAITools(wire), true)
	case "anthropic":
		return writeJSON(e.stdout, provider.AnthropicTools(wire), true)
	case "mcp":
		return writeJSON(e.stdout, mcpserver.WireTools(set), true)
	}
	return c.text(e, p, specs)
}

func (c *toolsCmd) text(e *env, p *policy.Policy, specs []tools.Spec) error {
	fmt.Fprintln(e.stdout, "Tools:")
	for _, s := range specs {
		desc := s.Description
		if i := indexNewline(desc); i >= 0 {
			desc = desc[:i]
		}
		fmt.Fprintf(e.stdout, "  %-22s %s\n", s.Name, desc)
	}
	fmt.Fprintln(e.stdout, "\nCatalog (list_allowed_commands):")
	fmt.Fprint(e.stdout, tools.Catalog(p.Recipe(), true))
	return nil
}

func indexNewline(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			return i
		}
	}
	return -1
}
