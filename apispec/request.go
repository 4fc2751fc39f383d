package apispec

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Violation is one way a request body fails its schema.
type Violation struct {
	// Pointer is the JSON pointer of the offending value in the body ("" is
	// the whole body); for a missing member it names the member.
	Pointer string `json:"pointer"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// docURL is the base URL under which the document is compiled.
const docURL = "https://zoneapi.invalid/openapi.json"

// HasRequestBody reports whether the operation declares a JSON request
// body. pathTemplate may include the server path ("/api/v1/zones") or not
// ("/v1/zones").
func (d *Document) HasRequestBody(method, pathTemplate string) bool {
	_, ptr := d.bodyPointer(method, pathTemplate)
	return ptr != ""
}

// ValidateRequest validates a request body against the schema of the
// operation's JSON request body, with formats asserted. It returns nil when
// the body is valid or the operation has no JSON body.
func (d *Document) ValidateRequest(method, pathTemplate string, body []byte) []Violation {
	sch, err := d.bodySchema(method, pathTemplate)
	if err != nil {
		return []Violation{{Message: err.Error()}}
	}
	if sch == nil {
		return nil
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return []Violation{{Message: fmt.Sprintf("malformed JSON: %v", err)}}
	}
	return validate(sch, v)
}

// ValidateValue is ValidateRequest of a body already parsed, as
// encoding/json decodes JSON into an any with UseNumber (objects as
// map[string]any, arrays as []any, numbers as json.Number): a server that
// parses a body once for several checks gives the schema check the same
// value.
//
// A body its compiled quick check accepts is valid without the library;
// any other goes through the library (quick.go).
func (d *Document) ValidateValue(method, pathTemplate string, v any) []Violation {
	bc, err := d.bodyCheck(method, pathTemplate)
	if err != nil {
		return []Violation{{Message: err.Error()}}
	}
	if bc.schema == nil || bc.quick != nil && bc.quick.valid(v) {
		return nil
	}
	return validate(bc.schema, v)
}

// bodyCheck is the compiled check of one operation's request body.
type bodyCheck struct {
	schema *jsonschema.Schema // nil: no JSON body
	quick  *quick             // nil: the schema uses what quick lacks
}

// bodyCheck returns (and caches) the request body check of an operation.
func (d *Document) bodyCheck(method, pathTemplate string) (bodyCheck, error) {
	key := method + " " + pathTemplate
	d.mu.Lock()
	bc, ok := d.checks[key]
	d.mu.Unlock()
	if ok {
		return bc, nil
	}
	sch, err := d.bodySchema(method, pathTemplate)
	if err != nil {
		return bodyCheck{}, err
	}
	bc = bodyCheck{schema: sch}
	if sch != nil {
		if q, ok := compileQuick(sch); ok {
			bc.quick = q
		}
	}
	d.mu.Lock()
	d.checks[key] = bc
	d.mu.Unlock()
	return bc, nil
}

// validate checks v against sch and flattens the violations.
func validate(sch *jsonschema.Schema, v any) []Violation {
	err := sch.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []Violation{{Message: err.Error()}}
	}
	return violations(ve)
}

// RepeatableQuery reports whether the operation declares the query
// parameter name as one that may be given more than once: its schema is
// an array (form style, exploded: ?zone=a&zone=b). Every other parameter,
// and one the document does not declare, is given at most once: a
// server that reads the first of several values would act on a request
// other than the one sent (?all=true&all=yes).
func (d *Document) RepeatableQuery(method, pathTemplate, name string) bool {
	op, _ := d.operation(method, pathTemplate)
	if op == nil {
		return false
	}
	for _, p := range op.Parameters {
		if v := p.Value; v != nil && v.In == "query" && v.Name == name {
			return v.Schema != nil && v.Schema.Value != nil && v.Schema.Value.Type.Is("array")
		}
	}
	return false
}

// operation finds the operation of a method and path template (with or
// without the server path) and the path as the document writes it.
func (d *Document) operation(method, pathTemplate string) (*openapi3.Operation, string) {
	path := pathTemplate
	if d.t.Paths.Value(path) == nil {
		path = strings.TrimPrefix(pathTemplate, d.serverPath())
	}
	item := d.t.Paths.Value(path)
	if item == nil {
		return nil, ""
	}
	return item.GetOperation(strings.ToUpper(method)), path
}

// bodyPointer finds the operation's JSON media type and returns it with
// the JSON pointer of its schema in the document ("" when none).
func (d *Document) bodyPointer(method, pathTemplate string) (string, string) {
	op, path := d.operation(method, pathTemplate)
	if op == nil || op.RequestBody == nil || op.RequestBody.Value == nil {
		return "", ""
	}
	for _, mt := range []string{"application/json", "application/merge-patch+json"} {
		if c := op.RequestBody.Value.Content.Get(mt); c != nil && c.Schema != nil {
			return mt, pointer("paths", path, strings.ToLower(method), "requestBody", "content", mt, "schema")
		}
	}
	return "", ""
}

// bodySchema compiles (once) the request body schema of an operation.
func (d *Document) bodySchema(method, pathTemplate string) (*jsonschema.Schema, error) {
	_, ptr := d.bodyPointer(method, pathTemplate)
	if ptr == "" {
		return nil, nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if s, ok := d.bodies[ptr]; ok {
		return s, nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(d.json))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(docURL, doc); err != nil {
		return nil, fmt.Errorf("compiling request schemas: %v", err)
	}
	s, err := c.Compile(docURL + "#" + ptr)
	if err != nil {
		return nil, fmt.Errorf("compiling the request schema of %s %s: %v", method, pathTemplate, err)
	}
	d.bodies[ptr] = s
	return s, nil
}

// violations flattens a validation error tree.
func violations(ve *jsonschema.ValidationError) []Violation {
	var out []Violation
	seen := map[Violation]bool{}
	walkSchemaError(ve, func(l schemaLeaf) {
		v := Violation{Pointer: l.ptr, Message: l.message}
		switch l.kind {
		case leafMissingField:
			v = Violation{Pointer: l.ptr + "/" + escape(l.field), Message: "required field is missing"}
		case leafUnknownField:
			v = Violation{Pointer: l.ptr + "/" + escape(l.field), Message: "unknown field"}
		}
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	})
	return out
}
