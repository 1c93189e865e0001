// Package suggest finds the name a person most likely meant when they
// mistyped one: a task, a parameter, a preset, a rule's field.
package suggest

import "strings"

// DidYouMean names the closest of names to a mistyped one ("; did you
// mean test?"), when one is close: at most two edits, or one for a short
// name; "" otherwise.
func DidYouMean(typed string, names []string) string {
	best, bestD := "", 3
	if len(typed) <= 3 {
		bestD = 2
	}
	for _, n := range names {
		// (A tie goes to the name first in order: args before argv.)
		if d := editDistance(typed, n); d < bestD || d == bestD && best != "" && n < best {
			best, bestD = n, d
		}
	}
	if best == "" {
		// golang for go, tests for test: one name begins the other.
		for _, n := range names {
			if len(n) >= 2 && len(typed) >= 2 && (strings.HasPrefix(typed, n) || strings.HasPrefix(n, typed)) {
				best = n
				break
			}
		}
	}
	if best == "" {
		return ""
	}
	return "; did you mean " + best + "?"
}

// editDistance counts the insertions, deletions, substitutions and
// swaps of neighbours that make a into b.
func editDistance(a, b string) int {
	prev2, prev, cur := make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
