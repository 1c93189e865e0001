package policy

import (
	"fmt"
	"slices"
	"strings"

	"github.com/reinsh/rein/engine/programs"
	"github.com/reinsh/rein/shellparse"
)

// The program table (package programs) says what each option of a program
// it knows does. The verdicts on those facts are made here: an option that
// runs a program rein does not see, takes code rein does not read, starts
// a helper chosen by configuration or reads input rein does not see is
// denied; one that writes is denied where the recipe writes nothing, and
// elsewhere must name a path the recipe lets commands write; an option or
// subcommand the table does not know gets the recipe's shell.unknown_option.

// optionChecks decides a command by its program's options: deny is a
// verdict on what an option does; unknown replaces an allow, when the
// command would be allowed, for an option or subcommand rein does not know.
// Both are nil when the table has nothing to say.
func (p *Policy) optionChecks(c *shellparse.Command, parsed *programs.Parsed) (deny, unknown *Result) {
	if parsed == nil {
		return nil, nil
	}
	spec := programs.Lookup(c.Name)
	name := spec.Name
	if parsed.Spec != spec {
		name = parsed.Spec.Name
	}
	for i := range parsed.Options {
		g := &parsed.Options[i]
		if g.Option == nil || g.Negated {
			continue
		}
		if r := p.optionEffect(c, name, g); r != nil {
			return r, nil
		}
	}
	switch {
	case len(parsed.Unknown) > 0:
		for i := range parsed.Options {
			g := &parsed.Options[i]
			if g.Option != nil || dynamicAt(c, g.At) {
				continue // a computed word is read again when it runs
			}
			why := fmt.Sprintf("%s %s is not an option rein knows %s to have", name, g.Written, name)
			if slices.Contains(parsed.Ambiguous, g.Written) || slices.ContainsFunc(parsed.Ambiguous, func(a string) bool { return strings.HasPrefix(a, g.Written+"=") }) {
				why = fmt.Sprintf("%s %s is short for several of its options; write the option out in full", name, g.Written)
			}
			unknown = &Result{p.unknownOption, "shell.unknown_option", why + unknownAdvice(p.unknownOption)}
			break
		}
	case parsed.Sub != "" && parsed.Spec == spec && p.unknownOption == Deny && !dynamicAt(c, parsed.SubAt):
		// (Elsewhere the recipe's rules for the subcommand decide.)
		unknown = &Result{p.unknownOption, "shell.unknown_option",
			fmt.Sprintf("%s %s is not a subcommand rein knows", name, parsed.Sub) + unknownAdvice(p.unknownOption)}
	}
	if unknown != nil && unknown.Verdict == Allow {
		return nil, nil
	}
	return nil, unknown
}

// unknownAdvice ends the message on an unknown option: what to do.
func unknownAdvice(v Verdict) string {
	if v == Deny {
		return "; this recipe refuses options rein has not read (shell.unknown_option), because an option it does not know may write files or run programs: leave it out or use an option rein knows"
	}
	return "; rein has not read what it does (shell.unknown_option)"
}

// dynamicAt reports whether the word at index i after the program's name
// is computed at run time.
func dynamicAt(c *shellparse.Command, i int) bool {
	return i+1 < len(c.Words) && c.Words[i+1].Dynamic
}

// optionEffect is the verdict on one option the table knows, or nil.
func (p *Policy) optionEffect(c *shellparse.Command, name string, g *programs.Given) *Result {
	o := g.Option
	e := o.Effect
	if e&^(programs.Wraps|programs.Reads) == 0 {
		return nil // the common case: nothing to decide, no message to make
	}
	what := name + " " + o.Name() + " " + o.Why
	switch {
	case e&programs.Runs != 0:
		return &Result{Deny, "options.runs", what + "; rein does not vet what it runs"}
	case e&programs.Code != 0:
		return &Result{Deny, "options.code", what}
	case e&programs.Helper != 0:
		return &Result{Deny, "options.helper", what + ", which rein does not vet"}
	case e&programs.Input != 0:
		return &Result{Deny, "options.input", what + ", which rein does not see"}
	case e&programs.Writes == 0:
		return nil
	case p.readOnly:
		return &Result{Deny, "options.writes", what + "; this recipe lets commands write nothing (they run read-only)"}
	case o.Arity != programs.NoValue && g.HasValue && !dynamicAt(c, g.At):
		abs := p.secret.resolve(g.Value, p.folder(c.Dir))
		if r := p.CheckPath(abs, true); r.Verdict != Allow {
			r.Reason = fmt.Sprintf("%s %s writes %s: %s", name, o.Name(), g.Value, r.Reason)
			return &r
		}
	}
	return nil
}
