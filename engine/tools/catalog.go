package tools

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/reinsh/rein/engine/recipe"
)

// Catalog renders what a recipe lets a model run, for the run_command
// description and list_allowed_commands: catalog commands with their
// descriptions, programs with their subcommands, and what is forbidden.
// Commands whose executable is missing are left out.
func Catalog(r *recipe.Recipe, detailed bool) string {
	var b strings.Builder
	if detailed {
		// Honest names: the model uses this platform's commands, untranslated.
		if runtime.GOOS == "windows" {
			b.WriteString("Platform: windows (commands run through rein's POSIX shell; Windows programs such as findstr and where run, cmd.exe's built-ins such as dir and type do not: read files with file_read and list folders with list_directory)\n")
		} else {
			fmt.Fprintf(&b, "Platform: %s/%s (POSIX commands, run through rein's embedded POSIX shell)\n", runtime.GOOS, runtime.GOARCH)
		}
	}
	if len(r.Commands) > 0 {
		b.WriteString("Commands:\n")
		for _, c := range r.Commands {
			first := strings.Fields(c.Command)
			if len(first) == 0 || !r.Available(first[0]) {
				continue
			}
			if c.Description != "" {
				fmt.Fprintf(&b, "- `%s`: %s\n", c.Command, c.Description)
			} else {
				fmt.Fprintf(&b, "- `%s`\n", c.Command)
			}
		}
	}
	names := make([]string, 0, len(r.Programs))
	for n := range r.Programs {
		if r.Available(n) && n != "" && (n[0] >= 'a' && n[0] <= 'z' || n[0] >= 'A' && n[0] <= 'Z') {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var simple []string
	var lines []string
	for _, n := range names {
		p := r.Programs[n]
		if len(p.Subcommands) == 0 && !detailed {
			simple = append(simple, n)
			continue
		}
		line := "- " + n
		if detailed && len(p.Subcommands) > 0 {
			// One line per subcommand, with what it is for.
			if p.Description != "" {
				line += ": " + p.Description
			}
			if len(p.DenyFlags) > 0 {
				line += fmt.Sprintf(" [not: %s]", strings.Join(p.DenyFlags, " "))
			}
			for _, s := range slices.Sorted(maps.Keys(p.Subcommands)) {
				sub := "  - " + n + " " + s
				if sc := p.Subcommands[s]; sc != nil {
					if sc.Ask {
						sub += " (asks first)"
					}
					if sc.Description != "" {
						sub += ": " + sc.Description
					}
				}
				line += "\n" + sub
			}
			lines = append(lines, line)
			continue
		}
		if len(p.Subcommands) > 0 {
			subs := make([]string, 0, len(p.Subcommands))
			for s, sc := range p.Subcommands {
				if sc != nil && sc.Ask {
					s += " (asks first)"
				}
				subs = append(subs, s)
			}
			sort.Strings(subs)
			line += " " + strings.Join(subs, ", ")
		}
		if detailed && p.Description != "" {
			line += ": " + p.Description
		}
		if detailed && len(p.DenyFlags) > 0 {
			line += fmt.Sprintf(" [not: %s]", strings.Join(p.DenyFlags, " "))
		}
		lines = append(lines, line)
	}
	if len(lines) > 0 || len(simple) > 0 {
		b.WriteString("Programs (variations of their arguments are fine):\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
		if len(simple) > 0 {
			b.WriteString("- " + strings.Join(simple, ", ") + "\n")
		}
	}
	b.WriteString("Not allowed: " + strings.Join(forbidden(r), "; ") + ".\n")
	return b.String()
}

func forbidden(r *recipe.Recipe) []string {
	var out []string
	switch r.Shell.RedirectWrite {
	case "deny":
		out = append(out, "writing files with > or >> (except /dev/null)")
	case "workspace":
		out = append(out, "writing files outside the workspace")
	}
	for _, c := range []struct{ v, what string }{
		{r.Shell.Background, "background jobs (&)"},
		{r.Shell.Function, "defining shell functions"},
		{r.Shell.Substitution, "command substitution $(…)"},
		{r.Shell.Subshell, "subshells ( … )"},
		{r.Shell.DynamicCommandName, "command names built from variables"},
	} {
		if c.v == "deny" {
			out = append(out, c.what)
		}
	}
	out = append(out, "any program not listed here", "reading secrets (~/.ssh, .env, keys)")
	return out
}
