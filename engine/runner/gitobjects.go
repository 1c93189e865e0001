package runner

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/shellparse"
)

// git show and git cat-file print a file's contents when handed its object
// id (git show 7c1c8c3), which names no path for the policy to check: the
// id of a committed .env is one git ls-tree away. So before such a command
// runs, rein asks the repository what the objects it names are (git
// cat-file --batch-check, which prints types only, run like any command:
// same sandbox, same environment) and refuses blobs. A file's contents are
// named as REV:PATH, whose path the policy checks.

// gitQueryTimeout bounds that question.
const gitQueryTimeout = 10 * time.Second

// guardGitObjects refuses argv, run directly or through wrappers, when it
// is a git command printing a blob it names by object id. input are names
// its input gives (cat-file --batch, xargs git show), already read ahead.
func (r *Runner) guardGitObjects(ctx context.Context, argv []string, dir string, input []string) *policy.Decision {
	for _, c := range shellparse.AnalyzeArgv(argv, nil).Commands {
		g, ok := shellparse.GitObjectsOf(c)
		if !ok {
			continue
		}
		if g.All {
			return pathsDenial(argv, "%s prints every object in the repository, the contents of committed secret files among them; name the objects you need", shellparse.JoinArgv(c.Argv))
		}
		names := g.Names
		if g.Input {
			names = append(names[:len(names):len(names)], input...)
		}
		if len(names) == 0 {
			continue
		}
		blob, err := r.firstBlob(ctx, dir, g.Dirs, names)
		switch {
		case err != nil:
			return pathsDenial(argv, "rein could not ask git what %s names (%v), and an object id can name a secret file's contents", strings.Join(names, " "), err)
		case blob != "":
			return pathsDenial(argv, "%s is the object id of a file's contents, and rein cannot tell which file (a committed .env?); name the file as REV:PATH, e.g. git show HEAD:path/to/file", blob)
		}
	}
	return nil
}

// firstBlob returns the first of names that is a blob (or a tag of one) in
// the repository git finds from dir and the -C folders dirs, or "".
func (r *Runner) firstBlob(ctx context.Context, dir string, dirs, names []string) (string, error) {
	path, err := r.lookPath(dir, r.lookupEnv, "git")
	if err != nil {
		return "", err
	}
	argv := []string{"git"}
	for _, d := range dirs {
		argv = append(argv, "-C", d)
	}
	argv = append(argv, "cat-file", "--batch-check=%(objecttype)")
	var in, out, errOut bytes.Buffer
	asked := names[:0:0]
	for _, n := range names {
		if n == "" || strings.ContainsAny(n, "\n\r") {
			continue // not an object name git reads from a line
		}
		asked = append(asked, n)
		in.WriteString(n + "^{}\n") // a tag stands for what it points at
	}
	if len(asked) == 0 {
		return "", nil
	}
	// A partial clone would fetch missing objects to answer.
	env := append(r.env[:len(r.env):len(r.env)], "GIT_NO_LAZY_FETCH=1")
	ctx, cancel := context.WithTimeout(ctx, gitQueryTimeout)
	defer cancel()
	po, err := r.process(path, argv, env, dir, &in, &out, &errOut).run(ctx)
	switch {
	case err != nil:
		return "", err
	case po.code != 0:
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = fmt.Sprintf("exit status %d", po.code)
		}
		return "", fmt.Errorf("git cat-file: %s", msg)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	for i, n := range asked {
		if i < len(lines) && lines[i] == "blob" {
			return n, nil
		}
	}
	return "", nil
}
