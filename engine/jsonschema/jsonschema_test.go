package jsonschema_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/reinsh/rein/engine/jsonschema"
)

const testSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "additionalProperties": false,
  "required": ["name"],
  "properties": {
    "name": {"type": "string", "minLength": 1, "maxLength": 8},
    "mode": {"enum": ["fast", "full"]},
    "tags": {"type": ["array", "null"], "items": {"type": "string"}},
    "count": {"type": "integer", "minimum": 1, "maximum": 10},
    "ratio": {"type": "number"},
    "when": {"$ref": "#/$defs/duration"},
    "tool": {"anyOf": [{"type": "boolean"}, {"const": "ask"}]},
    "pick": {"oneOf": [{"type": "string"}, {"type": "string", "minLength": 3}]},
    "tree": {"$ref": "#/$defs/tree"},
    "env": {"type": "object", "additionalProperties": {"type": "string"}},
    "nothing": false
  },
  "$defs": {
    "duration": {"type": "string", "pattern": "^[0-9]+(s|m)$", "description": "a duration such as 30s"},
    "tree": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/tree"}}, "leaf": {"type": "boolean"}}}
  }
}`

func TestValidate(t *testing.T) {
	s, err := jsonschema.Compile([]byte(testSchema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, doc string
		pointer   string // "" and msg "" when valid
		msg       string
	}{
		{"minimal", `{"name":"a"}`, "", ""},
		{"everything", `{"name":"a","mode":"full","tags":null,"count":10,"ratio":0.5,"when":"30s","tool":"ask","pick":"ab","tree":{"kids":[{"leaf":true}]},"env":{"A":"b"}}`, "", ""},
		{"integer written as a float", `{"name":"a","count":2.0}`, "", ""},
		{"not an object", `[1]`, "", "want object, got array"},
		{"missing required", `{}`, "", `missing required field "name"`},
		{"misspelt field", `{"name":"a","mdoe":"fast"}`, "/mdoe", `unknown field "mdoe" (did you mean "mode"?)`},
		{"unknown field", `{"name":"a","zzzzzz":1}`, "/zzzzzz", `unknown field "zzzzzz" (known: `},
		{"wrong type", `{"name":1}`, "/name", "want string, got integer"},
		{"empty string", `{"name":""}`, "/name", "must not be empty"},
		{"too long", `{"name":"abcdefghij"}`, "/name", "at most 8 characters"},
		{"length counts characters", `{"name":"ééééééé"}`, "", ""},
		{"enum", `{"name":"a","mode":"slow"}`, "/mode", `must be one of "fast", "full"; got "slow"`},
		{"nullable array item", `{"name":"a","tags":["x",2]}`, "/tags/1", "want string, got integer"},
		{"below minimum", `{"name":"a","count":0}`, "/count", "must be at least 1, got 0"},
		{"above maximum", `{"name":"a","count":11}`, "/count", "must be at most 10, got 11"},
		{"fraction for integer", `{"name":"a","count":1.5}`, "/count", "want integer, got number"},
		{"pattern with a description", `{"name":"a","when":"soon"}`, "/when", `"soon" is not a duration such as 30s`},
		{"anyOf none", `{"name":"a","tool":"maybe"}`, "/tool", `matches none of the allowed forms: want boolean, got string; or must be "ask", got "maybe"`},
		{"oneOf both", `{"name":"a","pick":"abc"}`, "/pick", "matches more than one of the allowed forms (1 and 2)"},
		{"recursive ref", `{"name":"a","tree":{"kids":[{"kids":[{"leaf":"yes"}]}]}}`, "/tree/kids/0/kids/0/leaf", "want boolean, got string"},
		{"additional properties schema", `{"name":"a","env":{"A":1}}`, "/env/A", "want string, got integer"},
		{"false schema", `{"name":"a","nothing":1}`, "/nothing", "no value is allowed here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := jsonschema.Decode([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			err = s.Validate(v)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var e *jsonschema.Error
			if !errors.As(err, &e) {
				t.Fatalf("want *jsonschema.Error, got %v", err)
			}
			if e.Pointer() != tt.pointer || !strings.Contains(e.Message, tt.msg) {
				t.Errorf("got %q at %q, want %q at %q", e.Message, e.Pointer(), tt.msg, tt.pointer)
			}
		})
	}
}

// Values from encoding/json without UseNumber (float64) validate the same.
func TestValidateFloat64Numbers(t *testing.T) {
	s := jsonschema.MustCompile([]byte(testSchema))
	var v any
	if err := json.Unmarshal([]byte(`{"name":"a","count":3}`), &v); err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Error(err)
	}
	json.Unmarshal([]byte(`{"name":"a","count":3.5}`), &v)
	if err := s.Validate(v); err == nil {
		t.Error("3.5 passed as an integer")
	}
}

func TestCompileRefuses(t *testing.T) {
	tests := []struct{ name, schema, want string }{
		{"unsupported keyword", `{"type":"string","format":"email"}`, `keyword "format" at the root is not supported`},
		{"nested unsupported keyword", `{"properties":{"a":{"patternProperties":{}}}}`, `"patternProperties" at /properties/a`},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, "only references inside the schema"},
		{"dangling ref", `{"$ref":"#/$defs/none","$defs":{}}`, `#/$defs/none: no "none"`},
		{"unknown type", `{"type":"int"}`, `unknown type "int"`},
		{"bad pattern", `{"pattern":"("}`, "/pattern"},
		{"not JSON", `{`, "schema is not JSON"},
		{"not a schema", `[1]`, "want an object or a boolean"},
		{"empty anyOf", `{"anyOf":[]}`, "non-empty array"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jsonschema.Compile([]byte(tt.schema))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func TestDecodeRefusesTrailingData(t *testing.T) {
	if _, err := jsonschema.Decode([]byte(`{} {}`)); err == nil {
		t.Error("two values decoded as one")
	}
}

func Example() {
	s := jsonschema.MustCompile([]byte(`{
	  "type": "object",
	  "additionalProperties": false,
	  "properties": {"timeout": {"type": "integer", "minimum": 1}}
	}`))
	for _, doc := range []string{`{"timeout": 30}`, `{"timeout": 0}`, `{"timout": 30}`} {
		v, _ := jsonschema.Decode([]byte(doc))
		fmt.Println(doc, "->", s.Validate(v))
	}
	// Output:
	// {"timeout": 30} -> <nil>
	// {"timeout": 0} -> at /timeout: must be at least 1, got 0
	// {"timout": 30} -> at /timout: unknown field "timout" (did you mean "timeout"?)
}
