// Package schemas embeds rein's JSON Schemas: the recipe format, tool
// results and stored events.
package schemas

import _ "embed"

// Recipe is the JSON Schema of a recipe (what a rein.jsonnet evaluates to).
//
//go:embed recipe.schema.json
var Recipe []byte

// ToolResult is the JSON Schema of a command tool's result (or error).
//
//go:embed tool-result.schema.json
var ToolResult []byte
