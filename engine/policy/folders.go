package policy

import (
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

// secretFolder denies a command that reads recursively below a folder
// holding one of the recipe's secret places (~ holds ~/.ssh).
func (p *Policy) secretFolder(c *shellparse.Command, ev *evaluation) *Result {
	words := shellparse.FolderReads(c, ev.script)
	for i := range words {
		w := &words[i]
		if w.Dynamic || w.Value == "" {
			continue // checked again at run time, expanded
		}
		pat, ok := "", false
		if p.cwdClear && plainRelative(w.Value) {
			// No anchored secret place lies below the working folder; the
			// folder may still be the start of one (.git of .git/config).
			pat, ok = p.secret.startsBelow(w.Value)
		} else {
			pat, ok = p.secret.holds(p.secret.resolve(w.Value, p.cwd))
		}
		if ok {
			what := "reads every file below"
			if c.Name == "find" || c.Name == "fd" || c.Name == "fdfind" {
				what = "hands a command every file below"
			}
			return &Result{Deny, "paths.deny", fmt.Sprintf("%s %s %s, which holds the secret path %s; name a folder without secrets", c.Name, what, w.Value, pat)}
		}
	}
	return nil
}

// GuardSearch returns argv changed so that a program walking folders skips
// files named like the recipe's secrets (**/.env, **/*.pem, ...) and follows
// no links out of them (shellparse.WalkWithout), or argv itself. Searching
// the workspace is allowed, but the program walks the folders itself: a
// .env inside would be read, or handed to -exec or xargs, and only naming it
// can be refused. Runners apply it to every argv they run, with a stat of
// the files relative to the folder it runs in (nil: none known), and refuse
// the command when it returns an error (a walk it cannot guard).
func (p *Policy) GuardSearch(argv []string, stat func(name string) (fs.FileInfo, error)) ([]string, error) {
	return shellparse.WalkWithout(argv, p.secretNames, stat)
}

// SecretsUnder returns the secret paths that lie inside folder top, as globs
// relative to it: a git repository whose working tree is top (a home folder
// kept in git) tracks ~/.aws/credentials as .aws/credentials, which no
// exclusion by name (**/.env) leaves out. Globs that match at any depth are
// not among them; the walk guards exclude those by name.
func (p *Policy) SecretsUnder(top string) []string {
	top = strings.TrimSuffix(filepath.ToSlash(filepath.Clean(top)), "/")
	topSegs := strings.Split(top, "/") // "/home/u": "", "home", "u"; "/": ""
	var out []string
	for _, g := range p.secret.globs {
		if g.anywhere != nil || len(g.segs) <= len(topSegs) {
			continue
		}
		inside := true
		for i, s := range topSegs {
			pat := g.segs[i]
			if p.secret.fold {
				pat, s = strings.ToLower(pat), strings.ToLower(s)
			}
			if ok, _ := path.Match(pat, s); !ok || pat == "**" {
				inside = false
				break
			}
		}
		if inside {
			out = append(out, strings.Join(g.segs[len(topSegs):], "/"))
		}
	}
	return out
}
