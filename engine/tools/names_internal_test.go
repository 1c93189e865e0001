package tools

import (
	"maps"
	"slices"
	"testing"

	"github.com/reinsh/rein/engine/recipe"
)

// The recipe checks tools' names against recipe.ToolNames: it must be the
// list of built-in tools.
func TestToolNamesAreTheBuiltins(t *testing.T) {
	if got := slices.Sorted(maps.Keys(defaultTools)); !slices.Equal(got, slices.Sorted(slices.Values(recipe.ToolNames))) {
		t.Errorf("defaultTools %v, recipe.ToolNames %v", got, recipe.ToolNames)
	}
}
