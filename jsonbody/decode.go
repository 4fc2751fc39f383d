// Package jsonbody is the one JSON request-body decoder of the front
// ends: a body read once within a size limit (Read), then decoded into the
// front end's type (Decode) as a Mode says.
//
// The API's own bodies are Strict: no key twice, no unknown field, one
// value. They are parsed once in one pass for their validity, nesting
// depth (MaxDepth) and first duplicate key (Parse), a parse the host also
// checks against its schema, and decoded from the parsed value when it
// maps onto the type field by field, else by encoding/json from the
// bytes. Another project's body shape, which may grow, is Lenient (the
// PowerDNS API's) or Stream (external-dns's): unknown fields ignored,
// decoded by encoding/json from the bytes. Errors are *Error, of a Kind; each front end
// words its answer from it (Message is the REST API's words), so the one
// decoder serves each wire protocol unchanged.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Mode is how Decode takes a body: which members, how many values.
type Mode uint8

const (
	// Strict takes the API's own bodies: exactly one JSON value, no key
	// given twice in one object (Duplicate), no member that no field of
	// the type takes (UnknownField).
	Strict Mode = iota
	// Lenient takes another project's body shape, which may grow (the
	// PowerDNS API's): members no field takes are ignored and a key given
	// twice keeps its last value; exactly one value. It is json.Unmarshal,
	// and its errors wrap json.Unmarshal's.
	Lenient
	// Stream is Lenient for a body read as a stream of values, as
	// external-dns's webhook server reads its own (json.Decoder): the
	// first value is taken, and anything after it but whitespace is
	// Trailing unless it starts with a closing bracket (json.Decoder.More);
	// its errors wrap json.Decoder's (io.EOF for an empty body).
	Stream
)

// Kind is what is wrong with a body.
type Kind uint8

const (
	// Invalid is an error of encoding/json of no other kind (such as a
	// type's own UnmarshalJSON, or nesting beyond MaxDepth).
	Invalid Kind = iota
	// Empty is a body of whitespace only.
	Empty
	// Truncated is a body that ends inside its value.
	Truncated
	// Syntax is a body that is not JSON (a *json.SyntaxError).
	Syntax
	// Type is a value of the wrong type for its field (a
	// *json.UnmarshalTypeError).
	Type
	// UnknownField is a member no field takes (Strict only).
	UnknownField
	// Duplicate is a key given twice in one object (Strict only).
	Duplicate
	// Trailing is something after the body's value.
	Trailing
)

// Error is a body Decode does not take.
type Error struct {
	Kind Kind
	// Err is encoding/json's error, nil for Duplicate and Trailing.
	Err error
	// Key is the duplicate key and Where the JSON Pointer of its object
	// ("(body)" at the top level), for Duplicate.
	Key, Where string
}

// Error is encoding/json's text of the error, or for Duplicate and
// Trailing this package's.
func (e *Error) Error() string {
	switch e.Kind {
	case Duplicate:
		return fmt.Sprintf("duplicate key %q in the object at %s", e.Key, e.Where)
	case Trailing:
		return "more than one JSON value"
	}
	return e.Err.Error()
}

// Unwrap returns encoding/json's error.
func (e *Error) Unwrap() error { return e.Err }

// Message is the sentence the REST API answers with its 400.
func (e *Error) Message() string {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch e.Kind {
	case Empty:
		return "request body is empty; a JSON object is required"
	case Truncated:
		return "malformed JSON: unexpected end of body"
	case Syntax:
		if errors.As(e.Err, &syntaxErr) {
			return fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
		}
	case Type:
		if errors.As(e.Err, &typeErr) {
			field := typeErr.Field
			if field == "" {
				field = "(body)"
			}
			return fmt.Sprintf("field %s: expected %s, got JSON %s", field, typeErr.Type, typeErr.Value)
		}
	case UnknownField:
		return "unknown field " + strings.TrimPrefix(e.Err.Error(), "json: unknown field ")
	case Duplicate:
		return e.Error()
	case Trailing:
		return "request body must contain a single JSON object"
	}
	return fmt.Sprintf("invalid JSON body: %v", e.Err)
}

// Decode decodes raw into v as m says. Strict parses raw first
// (Parse(raw).Decode: the duplicate check needs the parse); the other
// modes leave the bytes to encoding/json, which decodes them faster than
// the parse and the fast path do when nothing else needs the parse
// (BenchmarkLenientAgainstUnmarshal).
func Decode(raw []byte, v any, m Mode) error {
	if m == Strict {
		return Parse(raw).Decode(v, m)
	}
	return Body{raw: raw}.Decode(v, m)
}

// Decode decodes the body into v, which must point to a value of the
// front end's body type, as m says; the error is an *Error. A valid body
// without duplicate keys whose members each name a field of v's type
// exactly, with a value of the field's JSON type, is filled from the
// parsed value (fastDecode: what encoding/json would decode, without a
// second scan of the bytes); any other body is decoded by encoding/json
// from the bytes, which names the error precisely.
func (b Body) Decode(v any, m Mode) error {
	if b.Valid {
		if b.Dup && m == Strict {
			return &Error{Kind: Duplicate, Key: b.DupKey, Where: b.DupWhere}
		}
		if !b.Dup && fastDecode(b.Value, v) {
			return nil
		}
	}
	switch m {
	case Strict:
		dec := json.NewDecoder(bytes.NewReader(b.raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(v); err != nil {
			return kindOf(err)
		}
		// Exactly one value: anything but whitespace after it is an error.
		if _, err := dec.Token(); err != io.EOF {
			return &Error{Kind: Trailing}
		}
	case Lenient:
		if err := json.Unmarshal(b.raw, v); err != nil {
			return kindOf(err)
		}
	case Stream:
		dec := json.NewDecoder(bytes.NewReader(b.raw))
		if err := dec.Decode(v); err != nil {
			return kindOf(err)
		}
		if dec.More() {
			return &Error{Kind: Trailing}
		}
	}
	return nil
}

// kindOf wraps an error of encoding/json in an *Error of its kind.
func kindOf(err error) *Error {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	k := Invalid
	switch {
	case errors.Is(err, io.EOF):
		k = Empty
	case errors.Is(err, io.ErrUnexpectedEOF):
		k = Truncated
	case errors.As(err, &syntaxErr):
		k = Syntax
	case errors.As(err, &typeErr):
		k = Type
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		k = UnknownField
	}
	return &Error{Kind: k, Err: err}
}
