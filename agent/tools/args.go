package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// spec holds the static half of a tool: its name, embedded description,
// argument schema and access class. Tools embed it and add Run.
type spec struct {
	name   string
	doc    string
	schema string
	access Access
}

// Name returns the function name the model calls.
func (s spec) Name() string { return s.name }

// Description returns the embedded Markdown description.
func (s spec) Description() string { return strings.TrimSpace(s.doc) }

// Schema returns the JSON Schema of the arguments object.
func (s spec) Schema() json.RawMessage { return json.RawMessage(s.schema) }

// Access returns the tool's access class.
func (s spec) Access() Access { return s.access }

// decodeArgs strictly decodes the JSON arguments object raw into v: empty
// or null arguments count as {}, unknown fields and wrong types are errors
// that name the field, in words the model can act on.
func decodeArgs(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return errors.New("arguments must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return argError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("arguments have trailing data after the JSON object")
	}
	return nil
}

// argError turns a decoding error into a message naming the argument.
func argError(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		if te.Field == "" {
			return errors.New("arguments must be a JSON object")
		}
		return fmt.Errorf("argument %q must be %s, not %s", te.Field, kindName(te.Type), te.Value)
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("arguments are not valid JSON (at byte %d): %w", se.Offset, err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("arguments are not valid JSON (they end too early)")
	}
	msg := err.Error()
	if _, field, ok := strings.Cut(msg, "unknown field "); ok {
		return fmt.Errorf("unknown argument %s", field)
	}
	return fmt.Errorf("invalid arguments: %w", err)
}

// kindName describes a Go type the way a JSON Schema would.
func kindName(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// errResult is a model-facing error result.
func errResult(format string, a ...any) Result {
	return Result{Text: fmt.Sprintf(format, a...), IsError: true}
}

// intArg checks an optional integer argument: 0 means def, and the value
// must lie in [lo, hi].
func intArg(name string, v, def, lo, hi int) (int, error) {
	if v == 0 {
		return def, nil
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("argument %q must be between %d and %d, not %d", name, lo, hi, v)
	}
	return v, nil
}

// plural formats n with the noun, adding "s" unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
