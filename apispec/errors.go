package apispec

import (
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// Error is one problem in a resource file, at a position.
type Error struct {
	// File is the file's name as given to the loader.
	File string
	// Line and Column are 1-based; 0 when unknown.
	Line, Column int
	// Pointer is the JSON pointer of the offending value ("" for the root).
	Pointer string
	// Message says what is wrong.
	Message string
}

// Error formats the problem as file:line:col: message (at pointer).
func (e Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	b.WriteString(e.Message)
	if e.Pointer != "" {
		fmt.Fprintf(&b, " (at %s)", e.Pointer)
	}
	return b.String()
}

// ErrorList is every problem found, sorted by file and position.
type ErrorList []Error

// Error joins the problems one per line.
func (l ErrorList) Error() string {
	s := make([]string, len(l))
	for i, e := range l {
		s[i] = e.Error()
	}
	return strings.Join(s, "\n")
}

func (l ErrorList) sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i], l[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Column != b.Column {
			return a.Column < b.Column
		}
		return a.Message < b.Message
	})
}

// pos is a position in a YAML file.
type pos struct{ line, col int }

// positions maps JSON pointers to the position of the value's key (for
// object members) or of the value itself (for the root and array elements).
type positions map[string]pos

// at returns the position of ptr, or of its nearest ancestor that has one.
func (p positions) at(ptr string) pos {
	for {
		if q, ok := p[ptr]; ok {
			return q
		}
		if ptr == "" {
			return pos{}
		}
		ptr = ptr[:strings.LastIndexByte(ptr, '/')]
	}
}

// escape escapes one JSON pointer token.
func escape(tok string) string {
	return pointerEscaper.Replace(tok)
}

// pointerEscaper escapes a JSON pointer token (RFC 6901). Built once: a
// Replacer builds its tables on first use, which cost 70 µs a request when
// one was made per call.
var pointerEscaper = strings.NewReplacer("~", "~0", "/", "~1")

// pointer joins tokens into a JSON pointer.
func pointer(toks ...string) string {
	var b strings.Builder
	for _, t := range toks {
		b.WriteByte('/')
		b.WriteString(escape(t))
	}
	return b.String()
}

// schemaLeaf is one problem at a leaf of a JSON Schema validation error
// tree: the instance location, and for unknown or missing fields the
// field's name (one leaf per field).
type schemaLeaf struct {
	kind    leafKind
	ptr     string // JSON pointer of the instance location
	field   string // leafUnknownField, leafMissingField
	message string // the validator's message (every kind)
}

// leafKind tells the problems that callers word themselves.
type leafKind int

const (
	leafOther        leafKind = iota
	leafUnknownField          // additionalProperties
	leafMissingField          // required
	leafForbidden             // a false schema
)

// walkSchemaError calls visit for every leaf problem of ve, depth first:
// the one walk of validation errors, shared by resource files (load.go)
// and request bodies (request.go), which word them differently.
func walkSchemaError(ve *jsonschema.ValidationError, visit func(schemaLeaf)) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			walkSchemaError(c, visit)
		}
		return
	}
	ptr := pointer(ve.InstanceLocation...)
	msg := ve.ErrorKind.LocalizedString(printer)
	switch k := ve.ErrorKind.(type) {
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			visit(schemaLeaf{kind: leafUnknownField, ptr: ptr, field: p, message: msg})
		}
	case *kind.Required:
		for _, p := range k.Missing {
			visit(schemaLeaf{kind: leafMissingField, ptr: ptr, field: p, message: msg})
		}
	case *kind.FalseSchema:
		visit(schemaLeaf{kind: leafForbidden, ptr: ptr, message: msg})
	default:
		visit(schemaLeaf{kind: leafOther, ptr: ptr, message: msg})
	}
}
