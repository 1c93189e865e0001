package policy

import (
	"fmt"
	"github.com/reinsh/rein/engine/recipe"
	"path/filepath"
	"slices"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

// constructRules maps constructs with a decision to the recipe field that
// holds it.
var constructRules = []struct{ construct, rule, what string }{
	{shellparse.ConstructSubstitution, "shell.substitution", "command substitution $(…)"},
	{shellparse.ConstructProcSubst, "shell.process_substitution", "process substitution <(…)"},
	{shellparse.ConstructSubshell, "shell.subshell", "subshell ( … )"},
	{shellparse.ConstructBackground, "shell.background", "background job &"},
	{shellparse.ConstructFunction, "shell.function", "function declaration"},
	{shellparse.ConstructHeredoc, "shell.heredoc", "here-document"},
}

// constructResults are the results of constructRules under the recipe:
// fixed for a policy, so computed once.
func (p *Policy) constructResults() []Result {
	results := make([]Result, len(constructRules))
	for i, c := range constructRules {
		v := p.shell[c.construct]
		reason := c.what + " is allowed; the commands inside are checked"
		if v != Allow {
			reason = fmt.Sprintf("%s: %s by this recipe", c.what, map[Verdict]string{Ask: "needs confirmation", Deny: "not allowed"}[v])
		}
		results[i] = Result{v, c.rule, reason}
	}
	return results
}

// deviceTargets are redirect targets that never touch a file, with the
// reason they are allowed.
var deviceTargets = func() map[string]string {
	m := map[string]string{}
	for _, t := range []string{"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/fd/1", "/dev/fd/2"} {
		m[t] = t + " is always allowed"
	}
	return m
}()

// scriptChecks decides constructs, redirects, findings and when-rules.
func (p *Policy) scriptChecks(s *shellparse.Script, ev *evaluation) []Check {
	var checks []Check
	add := func(kind, subject string, pos shellparse.Position, r Result) {
		checks = append(checks, Check{Kind: kind, Subject: subject, Pos: pos, Result: r})
	}
	for _, f := range s.Findings {
		switch f.Kind {
		case shellparse.FindingDynamicArgs:
		case shellparse.FindingDynamicScript:
			add("finding", f.Kind, f.Pos, Result{p.shell[shellparse.ConstructDynamicName], "shell.dynamic_command_name", f.Message})
		case shellparse.FindingCodeExec:
			add("finding", f.Kind, f.Pos, Result{Deny, "analysis.code_execution", f.Message})
		default:
			add("finding", f.Kind, f.Pos, Result{Deny, "analysis." + f.Kind, f.Message})
		}
	}
	if len(s.Constructs) > 0 {
		for i, c := range constructRules {
			if s.Has(c.construct) {
				add("construct", c.construct, firstPos(s, c.construct), p.constructs[i])
			}
		}
	}
	for _, r := range s.Redirects {
		if res, ok := p.redirect(r, p.folder(r.Dir)); ok {
			add("redirect", r.Op+" "+r.Target, r.Pos, res)
		}
	}
	for _, r := range p.when {
		ok, err := ev.when(r)
		switch {
		case err != nil:
			add("rule", r.Name, shellparse.Position{Line: 1, Col: 1}, Result{Deny, r.Name, fmt.Sprintf("rule failed at run time: %v", err)})
		case ok:
			add("rule", r.Name, shellparse.Position{Line: 1, Col: 1}, Result{r.verdict, r.Name, r.Reason})
		}
	}
	return checks
}

func firstPos(s *shellparse.Script, construct string) shellparse.Position {
	switch construct {
	case shellparse.ConstructSubstitution, shellparse.ConstructProcSubst:
		for _, sub := range s.Substitutions {
			return sub.Pos
		}
	}
	return shellparse.Position{Line: 1, Col: 1}
}

// redirect decides one redirect; ok is false for redirects that need no
// decision (descriptor duplication, here-documents).
func (p *Policy) redirect(r shellparse.Redirect, cwd string) (Result, bool) {
	if r.Dup || r.Heredoc {
		return Result{}, false
	}
	if reason, ok := deviceTargets[r.Target]; ok && !r.Dynamic {
		return Result{Allow, "shell.redirect_write", reason}, true
	}
	rule, mode, set, verb := "shell.redirect_read", p.recipe.Shell.RedirectRead, p.read, "reads"
	if r.Write {
		rule, mode, set, verb = "shell.redirect_write", p.recipe.Shell.RedirectWrite, p.write, "writes"
	}
	if r.Dynamic {
		v := mustVerdict(mode)
		if mode == "workspace" || v == Allow && r.Write {
			v = Deny
		}
		return Result{v, rule, fmt.Sprintf("redirect target %s is computed at run time", r.Target)}, true
	}
	abs := p.secret.resolve(r.Target, cwd)
	if pat, ok := p.secret.match(abs); ok {
		return Result{Deny, "paths.deny", fmt.Sprintf("redirect %s %s, which matches the secret path %s", verb, r.Target, pat)}, true
	}
	if r.Write {
		if res, ok := p.protected(abs, "redirect writes "+r.Target+", which"); ok {
			return res, true
		}
	}
	if p.confined && !r.Write && p.outsideScope(abs, plainlyOutside(r.Target)) {
		return *p.scopeResult("redirect reads "+r.Target, abs), true
	}
	if mode == "workspace" {
		if !Inside(abs, p.workspace) {
			return Result{Deny, rule, fmt.Sprintf("redirect %s %s, outside the workspace %s", verb, abs, p.workspace)}, true
		}
		if _, ok := set.match(abs); !ok {
			return Result{Deny, rule, fmt.Sprintf("redirect %s %s, which no paths glob allows", verb, r.Target)}, true
		}
		return Result{Allow, rule, fmt.Sprintf("redirect %s %s inside the workspace", verb, r.Target)}, true
	}
	v := mustVerdict(mode)
	reason := fmt.Sprintf("redirect %s %s", verb, r.Target)
	switch v {
	case Deny:
		if r.Write {
			reason = fmt.Sprintf("writing to %s with %s is not allowed; only /dev/null may be written", r.Target, r.Op)
		} else {
			reason = fmt.Sprintf("reading %s with %s is not allowed by this recipe", r.Target, r.Op)
		}
	case Ask:
		reason += ": needs confirmation"
	}
	return Result{v, rule, reason}, true
}

// folder is where a command or redirect the analysis found after a cd runs:
// dir (shellparse.Command.Dir) taken from the folder the script starts in.
func (p *Policy) folder(dir string) string {
	if dir == "" {
		return p.cwd
	}
	return p.secret.resolve(dir, p.cwd)
}

// protected refuses a write to a protected path; what says what is written.
func (p *Policy) protected(abs, what string) (Result, bool) {
	pat, ok := p.protect.match(abs)
	if !ok {
		if place := p.runsLater(abs); place != "" {
			return Result{Deny, "sandbox.hidden_write", fmt.Sprintf("%s lies in %s: hidden files and folders are read by programs you run later, outside rein (git hooks, direnv, editors, agents, CI), so commands do not write them; if it cannot make anything run, list it in the recipe's sandbox.hidden_write", what, place)}, true
		}
		return Result{}, false
	}
	return Result{Deny, "paths.protect", what + " matches the protected path " + pat +
		"; rein reads it, never writes it: what is there decides what runs later, outside this command (git's hooks and configs, rein's own recipes and cache)"}, true
}

// runsLater is the hidden place of the workspace that abs lies in and that
// commands may not write (recipe.HiddenWritable, sandbox.hidden_write;
// in .git, what git does not write itself), or "".
func (p *Policy) runsLater(abs string) string {
	if !Inside(abs, p.workspace) || abs == p.workspace {
		return ""
	}
	rel := strings.TrimPrefix(filepath.ToSlash(abs), strings.TrimSuffix(filepath.ToSlash(p.workspace), "/")+"/")
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if !recipe.HiddenName(part) {
			continue
		}
		place := strings.Join(parts[:i+1], "/")
		if part == ".git" {
			if i+1 < len(parts) && slices.Contains(recipe.GitWrites, parts[i+1]) || i+1 == len(parts) {
				return ""
			}
			return strings.Join(parts[:i+2], "/")
		}
		if recipe.HiddenWritableAt(place, p.recipe.Sandbox.HiddenWrite) {
			return ""
		}
		return place
	}
	return ""
}

// CheckOpen decides a file the shell itself opens at run time (a redirect
// target after expansion), relative to the interpreter's current folder.
func (p *Policy) CheckOpen(path string, write bool, cwd string) Result {
	r := shellparse.Redirect{Op: "<", Target: path, Read: !write, Write: write}
	if write {
		r.Op = ">"
	}
	res, _ := p.redirect(r, cwd)
	return res
}

// CheckPath decides a file tool's access to an absolute path (symlinks
// already resolved): secret paths are denied, then paths.read or
// paths.write must match.
func (p *Policy) CheckPath(abs string, write bool) Result {
	abs = filepath.ToSlash(abs)
	if pat, ok := p.secret.match(abs); ok {
		return Result{Deny, "paths.deny", fmt.Sprintf("%s matches the secret path %s", abs, pat)}
	}
	set, rule, verb := p.read, "paths.read", "reading"
	if write {
		if res, ok := p.protected(abs, abs); ok {
			return res
		}
		if p.readOnly {
			return Result{Deny, "sandbox.mode", fmt.Sprintf("writing %s is not allowed: this recipe runs read-only (sandbox.mode: 'read-only')", abs)}
		}
		set, rule, verb = p.write, "paths.write", "writing"
	}
	if pat, ok := set.match(abs); ok {
		return Result{Allow, rule, fmt.Sprintf("%s matches %s", abs, pat)}
	}
	return Result{Deny, rule, fmt.Sprintf("%s %s is not allowed: no %s glob matches it", verb, abs, rule)}
}
