package policy_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/reinsh/rein/engine/policy"
	"github.com/reinsh/rein/engine/recipe"
)

func ExamplePolicy_Check() {
	dir, _ := os.MkdirTemp("", "rein-example")
	defer os.RemoveAll(dir)
	r, err := recipe.Load(recipe.Options{Preset: "readonly", Dir: dir, CacheDir: "-", UserFile: "-"})
	if err != nil {
		panic(err)
	}
	p, err := policy.New(r, policy.Options{})
	if err != nil {
		panic(err)
	}
	for _, command := range []string{"git log --oneline | head", "ls | xargs rm", "git push"} {
		d := p.Check(command)
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-5s %-26s %s", d.Verdict, command, d.Rule)))
	}
	// Output:
	// allow git log --oneline | head   programs.git, programs.head
	// deny  ls | xargs rm              danger-rm
	// deny  git push                   programs.git.deny_subcommands
}
