package shellparse_test

import (
	"fmt"
	"strings"

	"github.com/reinsh/rein/shellparse"
)

func ExampleAnalyze() {
	s := shellparse.Analyze(`git log --oneline | head; find . -exec r''m {} \;`)
	for _, c := range s.Commands {
		fmt.Printf("%-8s %-28s via=%s\n", c.Name, strings.Join(c.Argv, " "), strings.Join(c.Via, ","))
	}
	fmt.Println(s.Constructs)
	// Output:
	// git      git log --oneline            via=
	// head     head                         via=
	// find     find . -exec rm {} ;         via=
	// rm       rm {}                        via=find -exec
	// [pipeline]
}
