package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"text/tabwriter"
)

// table lays rows out as text/tabwriter (minwidth 0, padding 2, spaces)
// does, for cells without tabs or newlines, wide characters included.
func TestTableIsTabwriter(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"", "a", "allow", "git status", "commands: git log", "é", "日本語", "/work/repo", "interrupted", "-"}
	for round := range 50 {
		cols := 2 + rng.IntN(8)
		var want strings.Builder
		tw := tabwriter.NewWriter(&want, 0, 4, 2, ' ', 0)
		var tab table
		for range 1 + rng.IntN(20) {
			cells := make([]string, cols)
			for i := range cells {
				cells[i] = words[rng.IntN(len(words))]
			}
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
			tab.add(cells...)
		}
		tw.Flush()
		var got strings.Builder
		if err := tab.write(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Fatalf("round %d:\ngot\n%s\nwant\n%s", round, got.String(), want.String())
		}
	}
}
