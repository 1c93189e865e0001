package runner

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"
)

// git show and git cat-file print a file's contents when handed its object
// id, which names no path for the policy to check. The policy asks what the
// objects are (policy.World.Blob); rein asks the repository with git
// cat-file --batch-check, which prints types only, run like any command:
// same sandbox, same environment.

// gitQueryTimeout bounds that question.
const gitQueryTimeout = 10 * time.Second

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
