package runner

import (
	"context"
	"io/fs"
	"os"

	"github.com/reinsh/rein/engine/policy"
)

// world answers the policy's run-time questions (policy.World) from the
// folder a command runs in: where its paths lead, what its response files
// hold, what the objects it names are. It gathers facts; the policy decides.
type world struct {
	r   *Runner
	ctx context.Context
	dir string
}

func (w world) ArgvThroughLinks(argv []string) ([]string, bool) { return argvThroughLinks(argv, w.dir) }

func (w world) Reach(path string) (string, bool) {
	if _, err := os.Lstat(resolveIn(path, w.dir)); err != nil {
		return "", false
	}
	return throughLinks(path, w.dir)
}

func (w world) Stat(name string) (fs.FileInfo, error) { return os.Stat(resolveIn(name, w.dir)) }

func (w world) WorkingTree(folder string) string { return workingTree(resolveIn(folder, w.dir)) }

func (w world) ReadFile(path string) ([]byte, error) { return readFile(resolveIn(path, w.dir)) }

func (w world) Blob(dirs, names []string) (string, error) {
	return w.r.firstBlob(w.ctx, w.dir, dirs, names)
}

// decide asks the policy for the decision on facts, with the world as seen
// from their folder.
func (r *Runner) decide(ctx context.Context, f policy.Facts) *policy.Decision {
	f.World = world{r: r, ctx: ctx, dir: f.Dir}
	return r.policy.Decide(f)
}
