package policy

import (
	"os"
	"slices"
	"strings"
)

// NeedsRunner says why text, allowed as d, is safe only when rein's runner
// runs it (its re-checks, its walk exclusions, its own shell), or "": what
// bash would do differently with it. A hook that lets the agent's own
// shell run a command (--check-only) asks a person about these.
func (p *Policy) NeedsRunner(d *Decision, text string) string {
	switch {
	case strings.ContainsAny(text, "$`"):
		return "it expands words at run time, which rein checks again as they expand and bash does not"
	case strings.Contains(text, "<(") || strings.Contains(text, ">("):
		return "it has a process substitution"
	case strings.Contains(text, "(("):
		return "it has arithmetic, which bash evaluates differently"
	case strings.Contains(text, "/dev/tcp") || strings.Contains(text, "/dev/udp"):
		return "bash opens network connections through /dev/tcp"
	}
	for _, c := range d.Commands {
		guarded, err := p.GuardSearch(c.Argv, os.Stat)
		if err != nil || !slices.Equal(guarded, c.Argv) {
			return c.Name + " walks folders, and rein keeps it off secret files only when rein runs it"
		}
	}
	return ""
}
