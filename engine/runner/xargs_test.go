package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/runner"
)

// Words xargs reads become the arguments of the command it runs, options
// included: each command xargs will build is vetted with the full policy
// before it runs. Run under the sandbox, with a readonly recipe whose
// sandbox writes the workspace (so that a write vetting missed would show).
func TestXargsInputIsVettedAsArguments(t *testing.T) {
	r, dir := sandboxed(t, `local rein = import 'rein.libsonnet'; rein.presets.readonly + { sandbox+: { mode: 'workspace-write' } }`, nil)
	os.WriteFile(filepath.Join(dir, "f"), []byte("x\n"), 0o644)
	for _, text := range []string{
		`printf '%s\n' '-i s/x/y/ f' | xargs sed`,
		`printf 'sh\n-c\nid\n' | xargs env`,
		`printf '{print > "o"}\n' | xargs -d '\n' awk`,
		`printf '%s\n' f -o out f | xargs -n3 sort`,
		`printf '%s\n' -k -o out f | xargs sort`,
		`printf '%s\n' -delete | xargs find .`,
		`printf 'x\n' | xargs -I{} sort -o {} f`,
		`printf "'unclosed\n" | xargs echo`,
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if res.DeniedBy == "" {
			t.Errorf("%s ran: %+v", text, res)
		}
		for _, name := range []string{"o", "out", "x"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s wrote %s", text, name)
			}
		}
		if b, _ := os.ReadFile(filepath.Join(dir, "f")); string(b) != "x\n" {
			t.Errorf("%s changed f: %q", text, b)
		}
	}
	for text, want := range map[string]string{
		`printf 'a/b\nc/d\n' | xargs -n1 basename`: "b\nd\n",
		`printf '"a b" c\n' | xargs echo`:          "a b c\n",
		`printf 'f\n' | xargs -I{} cat {}`:         "x\n",
		`printf 'f\0' | xargs -0 wc -l`:            "1 f\n",
	} {
		res := r.Run(context.Background(), text, runner.RunOptions{})
		if res.DeniedBy != "" || res.Stdout != want {
			t.Errorf("%s: %+v", text, res)
		}
	}
	res := r.Run(context.Background(), `printf '%s\n' '-i s/x/y/ f' | xargs sed`, runner.RunOptions{})
	if !strings.Contains(res.Error, "xargs would run sed -i s/x/y/ f") {
		t.Errorf("message: %s", res.Error)
	}
}
