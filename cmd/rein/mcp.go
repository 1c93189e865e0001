package main

import (
	"context"
	"fmt"
	"github.com/reinsh/rein/engine/app"
	"os"
	"os/signal"

	"github.com/reinsh/rein/engine/mcpserver"
	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/session"
	"github.com/reinsh/rein/engine/tools"
	"github.com/reinsh/rein/engine/version"
)

type mcpCmd struct {
	Session string `help:"Record the calls in this session (default: a new one per server run)." placeholder:"NAME"`
}

func (c *mcpCmd) Help() string {
	return `Serves the recipe's tools over MCP on standard input and output, for Claude
Code, Cursor or any MCP client: the same tools, schemas, policy, runner, limits
and audit log as rein ask. Commands with an ask verdict are refused (there is
no terminal to ask on) unless the recipe sets mcp: { elicitation: true } and
the client supports elicitation. Logs go to standard error.`
}

func (c *mcpCmd) Run(g *Globals, e *env) error {
	// The same tool name as rein ask's: a rule that tests tool treats a
	// run_command call alike whoever makes it.
	r, err := appOf(g).LoadRecipe()
	if err != nil {
		return err
	}
	a, err := app.Assemble(r, policy.Options{Tool: tools.RunCommand}, e.stderr)
	if err != nil {
		return err
	}
	// An unapproved recipe still gets a server (clients only said
	// "Connection closed"): every call is answered with why and what to do.
	refusal, err := approvalRefusal(r)
	if err != nil {
		return err
	}
	if refusal != "" {
		fmt.Fprintln(e.stderr, "rein mcp: "+refusal)
	}
	st, err := appOf(g).OpenStore()
	if err != nil {
		return err
	}
	defer st.Close()
	name := c.Session
	if name == "" {
		name = "mcp-" + session.NewName()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	_, rec, err := session.Start(ctx, st, session.StartOptions{Name: name, Workspace: r.Workspace, Model: "mcp", System: "Tool calls from an MCP client.", Question: "(mcp server started)"})
	if err != nil {
		return err
	}
	rec.Source("mcp")
	opts := tools.Options{StartCommand: rec.Start, AfterCommand: rec.Command}
	if r.MCP.Elicitation {
		opts.Approver = mcpserver.Approver()
	}
	srv, err := mcpserver.New(a.Tools(opts), mcpserver.Options{Version: version.String(), Recorder: rec, Refuse: refusal})
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "rein mcp: serving %s's tools on stdio (session %s)\n", r.Workspace, name)
	in, out := mcpserver.Lines(os.Stdin, os.Stdout)
	err = srv.Serve(ctx, in, out)
	if rec.Err != nil {
		fmt.Fprintf(e.stderr, "rein mcp: the session could not be saved: %v\n", rec.Err)
	}
	return err
}
