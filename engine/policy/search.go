package policy

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// searchLimit bounds the files looked through for secrets under a folder
// a search someone else runs would walk.
const searchLimit = 20000

// SecretInSearch finds a file below dir that p holds secret and that a
// search of dir (filtered by glob, if any) run by another program would
// read; "" if none. An agent's own search tool (run by the agent, so rein
// cannot leave the secrets out) is refused on it. Like the agents'
// ripgrep, it skips hidden files and folders (.env is not read by Grep)
// and .git; a tree too big to look through counts as one.
func (p *Policy) SecretInSearch(dir, glob string) string {
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return ""
	}
	seen, found := 0, ""
	stop := errors.New("stop")
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > searchLimit {
			found = dir + " (too many files to look through)"
			return stop
		}
		if path != dir && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if glob != "" {
			if ok, _ := filepath.Match(glob, d.Name()); !ok {
				return nil
			}
		}
		if res := p.CheckPath(path, false); res.Verdict == Deny && res.Rule == "paths.deny" {
			found = path
			return stop
		}
		return nil
	})
	return found
}
