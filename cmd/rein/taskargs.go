package main

import (
	"fmt"
	"github.com/reinsh/rein/engine/suggest"
	"github.com/reinsh/rein/engine/tasks"
	"strings"

	"github.com/reinsh/rein/engine/recipe"
)

// parseTaskArgs reads --name value, --name=value, --flag (a bool
// parameter) and positionals.
func parseTaskArgs(args []string, t *recipe.Task) (map[string]string, []string, error) {
	named := map[string]string{}
	var positional []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			positional = append(positional, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			positional = append(positional, a)
			continue
		}
		name, value, hasValue := strings.Cut(a[2:], "=")
		p, known := t.Params[name]
		if !known {
			names := tasks.ParamNames(t)
			list := "it takes none"
			if len(names) > 0 {
				list = "its parameters: --" + strings.Join(names, ", --")
			}
			return nil, nil, fmt.Errorf("unknown parameter --%s%s (%s)", name, suggest.DidYouMean(name, names), list)
		}
		switch {
		case hasValue:
		case p.Type == "bool" && (i+1 == len(args) || strings.HasPrefix(args[i+1], "--")):
			value = "true"
		case i+1 < len(args):
			i++
			value = args[i]
		default:
			return nil, nil, fmt.Errorf("--%s needs a value", name)
		}
		named[name] = value
	}
	return named, positional, nil
}
