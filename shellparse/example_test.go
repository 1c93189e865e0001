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

// An Analyzer reuses its memory from one analysis to the next, for callers
// that are done with each Script before analysing the next text.
func ExampleAnalyzer() {
	var z shellparse.Analyzer
	for _, text := range []string{"ls -la", "sudo rm -rf /tmp/x"} {
		s := z.Analyze(text)
		last := s.Commands[len(s.Commands)-1]
		fmt.Printf("%d commands, the last %s via %q\n", len(s.Commands), last.Name, last.Via)
	}
	// Output:
	// 1 commands, the last ls via []
	// 2 commands, the last rm via ["sudo"]
}
