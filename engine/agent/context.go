package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/reinsh/rein/engine/message"
	"github.com/reinsh/rein/engine/recipe"
	"github.com/reinsh/rein/engine/runner"
)

// Context runs the recipe's context commands (vetted and run like any
// command) and returns their output as labelled system messages for the
// start of a conversation. A refused or failing command is reported, not
// hidden.
func Context(ctx context.Context, r *runner.Runner, cmds []recipe.ContextCommand, onEvent func(Event)) []message.Message {
	var out []message.Message
	for _, c := range cmds {
		label := c.Label
		if label == "" {
			label = c.Command
		}
		res := r.Run(ctx, c.Command, runner.RunOptions{})
		ok := res.Error == "" && res.ExitCode == 0
		if onEvent != nil {
			onEvent(Event{Type: "context", Command: c.Command, Name: label, Success: &ok, Summary: summary(res)})
		}
		var b strings.Builder
		fmt.Fprintf(&b, "Context: %s (output of `%s`)\n", label, c.Command)
		switch {
		case res.Error != "":
			fmt.Fprintf(&b, "[not available: %s]", res.Error)
		default:
			b.WriteString(strings.TrimRight(res.Combined, "\n"))
			if res.ExitCode != 0 {
				fmt.Fprintf(&b, "\n[exit %d]", res.ExitCode)
			}
		}
		out = append(out, message.Text(message.System, b.String()))
	}
	return out
}

func summary(res *runner.Result) string {
	if res.Error != "" {
		return res.Error
	}
	return fmt.Sprintf("exit %d", res.ExitCode)
}
