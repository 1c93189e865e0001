// Package jsonschema validates JSON values against JSON Schemas (draft
// 2020-12) written with the keywords rein's own schemas use: the recipe
// schema, the tool result schema and the tools' input schemas.
//
// It exists so that rein starts fast: a general validator compiles every
// draft's meta-schema when the program starts, which cost more than the rest
// of a `rein exec` together. The tests cross-check every verdict against
// github.com/santhosh-tekuri/jsonschema/v6, a complete implementation.
//
// A schema that uses a keyword outside the supported set is refused by
// Compile rather than half-checked, so a schema edit cannot silently weaken
// validation.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Schema is a compiled schema, safe for concurrent use.
type Schema struct {
	root *node
}

// node is one (sub)schema. A nil *node accepts everything.
type node struct {
	never       bool   // the false schema
	description string // says what a pattern means, in messages

	types      []string
	properties map[string]*node
	additional *node // for properties not in properties; nil accepts any
	required   []string
	items      *node
	enum       []any
	constant   any
	hasConst   bool
	minimum    *float64
	maximum    *float64
	minLength  int
	maxLength  int // -1: no maximum
	pattern    *regexp.Regexp
	anyOf      []*node
	oneOf      []*node
	allOf      []*node
	not        *node
	ref        *node
}

// annotations carry no constraint; they are accepted and ignored.
var annotations = map[string]bool{
	"$schema": true, "$id": true, "$comment": true, "$defs": true,
	"title": true, "description": true, "default": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true,
}

var typeNames = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// Compile parses and compiles a schema document. $ref must point inside the
// document ("#", "#/$defs/name", any JSON pointer).
func Compile(doc []byte) (*Schema, error) {
	raw, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("schema is not JSON: %w", err)
	}
	c := &compiler{doc: raw, refs: map[string]*node{}}
	root, err := c.compile(raw, "")
	if err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// MustCompile is Compile for schemas built into rein; it panics on error.
func MustCompile(doc []byte) *Schema {
	s, err := Compile(doc)
	if err != nil {
		panic("jsonschema: " + err.Error())
	}
	return s
}

// decode reads one JSON value keeping numbers exact (json.Number).
func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	if d.More() {
		return nil, fmt.Errorf("more than one value")
	}
	return v, nil
}

// Decode reads a JSON document the way Validate expects it (numbers as
// json.Number, so integers keep their precision).
func Decode(b []byte) (any, error) { return decode(b) }

type compiler struct {
	doc  any
	refs map[string]*node // by JSON pointer; filled before compiling, so cycles resolve
}

func (c *compiler) compile(v any, at string) (*node, error) {
	switch s := v.(type) {
	case bool:
		if s {
			return nil, nil
		}
		return &node{never: true}, nil
	case map[string]any:
		return c.object(s, at)
	}
	return nil, fmt.Errorf("schema at %s is %s, want an object or a boolean", pointerOrRoot(at), kind(v))
}

func (c *compiler) object(s map[string]any, at string) (*node, error) {
	n := &node{maxLength: -1}
	if at == "" {
		c.refs[""] = n
	}
	for _, key := range sortedKeys(s) {
		v := s[key]
		here := at + "/" + escape(key)
		var err error
		switch key {
		case "type":
			n.types, err = typeList(v, here)
		case "properties":
			n.properties = map[string]*node{}
			props, ok := v.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("%s must be an object", here)
			}
			for _, name := range sortedKeys(props) {
				if n.properties[name], err = c.compile(props[name], here+"/"+escape(name)); err != nil {
					return nil, err
				}
			}
		case "additionalProperties":
			n.additional, err = c.compile(v, here)
		case "items":
			n.items, err = c.compile(v, here)
		case "required":
			n.required, err = stringList(v, here)
		case "enum":
			list, ok := v.([]any)
			if !ok {
				return nil, fmt.Errorf("%s must be an array", here)
			}
			n.enum = list
		case "const":
			n.constant, n.hasConst = v, true
		case "minimum", "maximum":
			f, ok := number(v)
			if !ok {
				return nil, fmt.Errorf("%s must be a number", here)
			}
			if key == "minimum" {
				n.minimum = &f
			} else {
				n.maximum = &f
			}
		case "minLength", "maxLength":
			f, ok := number(v)
			if !ok || f < 0 || f != float64(int(f)) {
				return nil, fmt.Errorf("%s must be a non-negative integer", here)
			}
			if key == "minLength" {
				n.minLength = int(f)
			} else {
				n.maxLength = int(f)
			}
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be a string", here)
			}
			if n.pattern, err = regexp.Compile(p); err != nil {
				return nil, fmt.Errorf("%s: %w", here, err)
			}
		case "anyOf", "oneOf", "allOf":
			var list []*node
			if list, err = c.list(v, here); err == nil {
				switch key {
				case "anyOf":
					n.anyOf = list
				case "oneOf":
					n.oneOf = list
				default:
					n.allOf = list
				}
			}
		case "not":
			var sub *node
			if sub, err = c.compile(v, here); err == nil {
				if sub == nil {
					sub = &node{maxLength: -1}
				}
				n.not = sub
			}
		case "description":
			n.description, _ = v.(string)
		case "$ref":
			n.ref, err = c.resolve(v, here)
		default:
			if !annotations[key] {
				return nil, fmt.Errorf("schema keyword %q at %s is not supported by rein's validator", key, pointerOrRoot(at))
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func (c *compiler) list(v any, at string) ([]*node, error) {
	items, ok := v.([]any)
	if !ok || len(items) == 0 {
		return nil, fmt.Errorf("%s must be a non-empty array of schemas", at)
	}
	out := make([]*node, len(items))
	for i, item := range items {
		sub, err := c.compile(item, at+"/"+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		if sub == nil {
			sub = &node{maxLength: -1}
		}
		out[i] = sub
	}
	return out, nil
}

// resolve compiles the target of a local $ref once; a placeholder is
// registered first so recursive schemas end.
func (c *compiler) resolve(v any, at string) (*node, error) {
	ref, ok := v.(string)
	if !ok || !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("%s: only references inside the schema (#/...) are supported, not %v", at, v)
	}
	ptr := ref[1:]
	if n, ok := c.refs[ptr]; ok {
		return n, nil
	}
	target, err := lookup(c.doc, ptr)
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", at, ref, err)
	}
	if b, ok := target.(bool); ok {
		return c.compile(b, ptr)
	}
	obj, ok := target.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: %s is not a schema", at, ref)
	}
	placeholder := &node{maxLength: -1}
	c.refs[ptr] = placeholder
	compiled, err := c.object(obj, ptr)
	if err != nil {
		return nil, err
	}
	*placeholder = *compiled
	return placeholder, nil
}

// lookup follows a JSON pointer (RFC 6901) into a document.
func lookup(doc any, ptr string) (any, error) {
	if ptr == "" {
		return doc, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("not a JSON pointer")
	}
	cur := doc
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("no %q", tok)
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("no item %q", tok)
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("no %q", tok)
		}
	}
	return cur, nil
}

func typeList(v any, at string) ([]string, error) {
	var names []string
	switch t := v.(type) {
	case string:
		names = []string{t}
	default:
		var err error
		if names, err = stringList(v, at); err != nil {
			return nil, err
		}
	}
	for _, name := range names {
		if !slices.Contains(typeNames, name) {
			return nil, fmt.Errorf("%s: unknown type %q", at, name)
		}
	}
	return names, nil
}

func stringList(v any, at string) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s must be an array of strings", at)
	}
	out := make([]string, len(items))
	for i, item := range items {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("%s must be an array of strings", at)
		}
		out[i] = s
	}
	return out, nil
}

func escape(key string) string {
	return strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
}

func pointerOrRoot(at string) string {
	if at == "" {
		return "the root"
	}
	return at
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
