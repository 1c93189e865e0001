package jsonschema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a value that does not match its schema: where (the instance
// location, one path segment per object key or array index) and what.
type Error struct {
	Path    []string
	Message string
}

// Pointer is the instance location as a JSON pointer ("" for the root).
func (e *Error) Pointer() string {
	var b strings.Builder
	for _, p := range e.Path {
		b.WriteByte('/')
		b.WriteString(escape(p))
	}
	return b.String()
}

func (e *Error) Error() string {
	if len(e.Path) == 0 {
		return e.Message
	}
	return "at " + e.Pointer() + ": " + e.Message
}

// Validate checks a decoded JSON value (from Decode or encoding/json: maps,
// slices, strings, bools, nil, json.Number or float64) and returns the first
// violation as an *Error, or nil.
func (s *Schema) Validate(v any) error {
	if e := check(s.root, v, nil); e != nil {
		return e
	}
	return nil
}

// check returns the first violation of n by v at path.
func check(n *node, v any, path []string) *Error {
	if n == nil {
		return nil
	}
	if n.ref != nil {
		if e := check(n.ref, v, path); e != nil {
			return e
		}
	}
	fail := func(format string, args ...any) *Error {
		return &Error{Path: slices.Clone(path), Message: fmt.Sprintf(format, args...)}
	}
	if n.never {
		return fail("no value is allowed here")
	}
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		return fail("want %s, got %s", strings.Join(n.types, " or "), kind(v))
	}
	if n.hasConst && !equal(v, n.constant) {
		return fail("must be %s, got %s", show(n.constant), show(v))
	}
	if n.enum != nil && !slices.ContainsFunc(n.enum, func(e any) bool { return equal(v, e) }) {
		shown := make([]string, len(n.enum))
		for i, e := range n.enum {
			shown[i] = show(e)
		}
		return fail("must be one of %s; got %s", strings.Join(shown, ", "), show(v))
	}
	switch x := v.(type) {
	case string:
		if e := checkString(n, x, fail); e != nil {
			return e
		}
	case map[string]any:
		if e := checkObject(n, x, path, fail); e != nil {
			return e
		}
	case []any:
		if n.items != nil {
			for i, item := range x {
				if e := check(n.items, item, append(path, strconv.Itoa(i))); e != nil {
					return e
				}
			}
		}
	default:
		if f, ok := number(v); ok {
			if n.minimum != nil && f < *n.minimum {
				return fail("must be at least %v, got %s", *n.minimum, show(v))
			}
			if n.maximum != nil && f > *n.maximum {
				return fail("must be at most %v, got %s", *n.maximum, show(v))
			}
		}
	}
	for _, sub := range n.allOf {
		if e := check(sub, v, path); e != nil {
			return e
		}
	}
	if n.anyOf != nil {
		var errs []*Error
		for _, sub := range n.anyOf {
			e := check(sub, v, path)
			if e == nil {
				errs = nil
				break
			}
			errs = append(errs, e)
		}
		if errs != nil {
			return none(errs, path)
		}
	}
	if n.oneOf != nil {
		var errs []*Error
		var matched []int
		for i, sub := range n.oneOf {
			if e := check(sub, v, path); e != nil {
				errs = append(errs, e)
			} else {
				matched = append(matched, i)
			}
		}
		switch {
		case len(matched) == 0:
			return none(errs, path)
		case len(matched) > 1:
			return fail("matches more than one of the allowed forms (%d and %d)", matched[0]+1, matched[1]+1)
		}
	}
	if n.not != nil && check(n.not, v, path) == nil {
		return fail("matches a form that is not allowed")
	}
	return nil
}

func checkString(n *node, s string, fail func(string, ...any) *Error) *Error {
	if n.minLength > 0 || n.maxLength >= 0 {
		length := utf8.RuneCountInString(s)
		if length < n.minLength {
			if n.minLength == 1 {
				return fail("must not be empty")
			}
			return fail("must be at least %d characters long, got %d", n.minLength, length)
		}
		if n.maxLength >= 0 && length > n.maxLength {
			return fail("must be at most %d characters long, got %d", n.maxLength, length)
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		if n.description != "" {
			return fail("%s is not %s", show(s), n.description)
		}
		return fail("%s does not match the pattern %s", show(s), n.pattern)
	}
	return nil
}

func checkObject(n *node, obj map[string]any, path []string, fail func(string, ...any) *Error) *Error {
	for _, name := range n.required {
		if _, ok := obj[name]; !ok {
			return fail("missing required field %q", name)
		}
	}
	// Keys in a fixed order, so the reported violation does not change
	// from run to run.
	for _, key := range sortedKeys(obj) {
		sub, known := n.properties[key]
		if !known {
			if n.additional != nil && n.additional.never {
				return unknownField(n, key, path)
			}
			sub = n.additional
		}
		if e := check(sub, obj[key], append(path, key)); e != nil {
			return e
		}
	}
	return nil
}

// unknownField names the field and, when it looks like a misspelling of a
// known one, that one.
func unknownField(n *node, key string, path []string) *Error {
	msg := fmt.Sprintf("unknown field %q", key)
	names := make([]string, 0, len(n.properties))
	for name := range n.properties {
		names = append(names, name)
	}
	slices.Sort(names)
	if best := closest(key, names); best != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", best)
	} else if len(names) > 0 && len(names) <= 12 {
		msg += " (known: " + strings.Join(names, ", ") + ")"
	}
	return &Error{Path: append(slices.Clone(path), key), Message: msg}
}

// none reports a value that matched none of the allowed forms: the one
// violation found deepest inside the value (the form it came closest to),
// or, when all stop at the value itself, every form's complaint.
func none(errs []*Error, path []string) *Error {
	deepest := errs[0]
	for _, e := range errs[1:] {
		if len(e.Path) > len(deepest.Path) {
			deepest = e
		}
	}
	if len(deepest.Path) > len(path) {
		return deepest
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		msgs[i] = e.Message
	}
	return &Error{Path: slices.Clone(path), Message: "matches none of the allowed forms: " + strings.Join(msgs, "; or ")}
}

func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		return isInteger(v)
	}
	return false
}

func isInteger(v any) bool {
	if n, ok := v.(json.Number); ok {
		if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return true
		}
	}
	f, ok := number(v)
	return ok && !math.IsInf(f, 0) && f == math.Trunc(f)
}

// number is v as a float64 when v is a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// equal is JSON equality: numbers by value, objects by keys.
func equal(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, equal)
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	}
	return a == b
}

// kind is the JSON type of v, for messages.
func kind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	}
	if isInteger(v) {
		return "integer"
	}
	if _, ok := number(v); ok {
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// show renders a value for a message, shortened when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if s := string(b); utf8.RuneCountInString(s) <= 60 {
		return s
	}
	return string([]rune(string(b))[:57]) + "..."
}

// closest is the name within edit distance 2 of key (the nearest), or "".
func closest(key string, names []string) string {
	best, bestDist := "", 3
	for _, name := range names {
		if d := distance(key, name); d < bestDist {
			best, bestDist = name, d
		}
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
