package apispec

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"
)

//go:embed metaschema.yaml
var metaSchemaYAML []byte

const metaSchemaURL = "https://zoneapi.invalid/schemas/resource.json"

var (
	metaOnce   sync.Once
	metaSchema *jsonschema.Schema
	metaErr    error
	printer    = message.NewPrinter(language.English)
)

// compiledMetaSchema compiles the embedded meta-schema once.
func compiledMetaSchema() (*jsonschema.Schema, error) {
	metaOnce.Do(func() {
		var doc any
		if err := yaml.Unmarshal(metaSchemaYAML, &doc); err != nil {
			metaErr = fmt.Errorf("parsing the meta-schema: %v", err)
			return
		}
		doc, metaErr = toJSONValue(doc)
		if metaErr != nil {
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(metaSchemaURL, doc); err != nil {
			metaErr = fmt.Errorf("adding the meta-schema: %v", err)
			return
		}
		metaSchema, metaErr = c.Compile(metaSchemaURL)
	})
	return metaSchema, metaErr
}

// MetaSchema returns the embedded meta-schema of resource files, as YAML.
func MetaSchema() []byte { return bytes.Clone(metaSchemaYAML) }

// LoadFiles reads, validates and returns the resources in the named files.
// The error, when not nil, is an ErrorList holding every problem of every
// file, including conflicts between files (a kind defined twice, a
// security scheme defined differently).
func LoadFiles(names ...string) ([]*Resource, error) {
	var (
		out  []*Resource
		errs ErrorList
	)
	for _, name := range names {
		data, err := os.ReadFile(name)
		if err != nil {
			errs = append(errs, Error{File: name, Message: fmt.Sprintf("reading: %v", err)})
			continue
		}
		r, err := Parse(name, data)
		if err != nil {
			errs = append(errs, err.(ErrorList)...)
			continue
		}
		out = append(out, r)
	}
	errs = append(errs, crossCheck(out)...)
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	return out, nil
}

// Parse parses and validates one resource file's content. name labels the
// errors. The error, when not nil, is an ErrorList.
func Parse(name string, data []byte) (*Resource, error) {
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		return nil, ErrorList{yamlError(name, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, ErrorList{{File: name, Line: extra.Line, Column: extra.Column, Message: "a resource file holds one YAML document; found another"}}
	}
	pos := positions{}
	var errs ErrorList
	value := convertNode(name, &root, "", pos, &errs)
	if len(errs) > 0 {
		return nil, errs
	}
	value, err := toJSONValue(value)
	if err != nil {
		return nil, ErrorList{{File: name, Message: err.Error()}}
	}
	sch, err := compiledMetaSchema()
	if err != nil {
		return nil, ErrorList{{File: name, Message: err.Error()}}
	}
	if err := sch.Validate(value); err != nil {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return nil, ErrorList{{File: name, Message: err.Error()}}
		}
		errs = schemaErrors(name, ve, pos)
		errs.sort()
		return nil, errs
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return nil, ErrorList{{File: name, Message: err.Error()}}
	}
	r := &Resource{File: name, pos: pos}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(r); err != nil {
		return nil, ErrorList{{File: name, Message: fmt.Sprintf("decoding: %v", err)}}
	}
	errs = checkRules(r)
	if len(errs) > 0 {
		errs.sort()
		return nil, errs
	}
	normalize(r)
	return r, nil
}

// yamlError turns a YAML syntax error into an Error with the line yaml.v3
// names in its message ("yaml: line N: ...").
func yamlError(name string, err error) Error {
	msg := err.Error()
	e := Error{File: name, Message: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
	if rest, ok := strings.CutPrefix(msg, "yaml: line "); ok {
		if n, tail, ok := strings.Cut(rest, ":"); ok {
			if line, err := strconv.Atoi(n); err == nil {
				e.Line, e.Column = line, 1
				e.Message = "invalid YAML:" + tail
			}
		}
	}
	return e
}

// convertNode converts a YAML node to a JSON-like value, recording the
// position of every value under its JSON pointer.
func convertNode(file string, n *yaml.Node, ptr string, pos positions, errs *ErrorList) any {
	if _, ok := pos[ptr]; !ok {
		pos[ptr] = pos2(n)
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			*errs = append(*errs, Error{File: file, Line: 1, Column: 1, Message: "the file is empty"})
			return nil
		}
		return convertNode(file, n.Content[0], ptr, pos, errs)
	case yaml.AliasNode:
		return convertNode(file, n.Alias, ptr, pos, errs)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode || (k.Tag != "!!str" && k.Tag != "!!int" && k.Tag != "!!bool" && k.Tag != "!!float") {
				*errs = append(*errs, Error{File: file, Line: k.Line, Column: k.Column, Pointer: ptr, Message: "mapping keys must be scalars"})
				continue
			}
			if k.Value == "<<" && k.Tag == "!!merge" {
				*errs = append(*errs, Error{File: file, Line: k.Line, Column: k.Column, Pointer: ptr, Message: "YAML merge keys (<<) are not supported"})
				continue
			}
			if _, dup := m[k.Value]; dup {
				*errs = append(*errs, Error{File: file, Line: k.Line, Column: k.Column, Pointer: ptr, Message: fmt.Sprintf("duplicate key %q", k.Value)})
				continue
			}
			child := ptr + "/" + escape(k.Value)
			pos[child] = pos2(k)
			m[k.Value] = convertNode(file, v, child, pos, errs)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = convertNode(file, c, ptr+"/"+strconv.Itoa(i), pos, errs)
		}
		return s
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			return nil
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err == nil {
				return b
			}
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return i
			}
			var f float64
			if err := n.Decode(&f); err == nil {
				return f
			}
		case "!!float":
			var f float64
			if err := n.Decode(&f); err == nil {
				return f
			}
		}
		// Strings, timestamps and anything else keep their text.
		return n.Value
	}
	return nil
}

func pos2(n *yaml.Node) pos { return pos{n.Line, n.Column} }

// toJSONValue round-trips v through JSON so that numbers are json.Number,
// the form the schema validator expects.
func toJSONValue(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// schemaErrors flattens a validation error tree into located errors.
func schemaErrors(file string, ve *jsonschema.ValidationError, pos positions) ErrorList {
	var out ErrorList
	seen := map[string]bool{}
	walkSchemaError(ve, func(l schemaLeaf) {
		switch l.kind {
		case leafUnknownField:
			add(&out, seen, file, pos, l.ptr+"/"+escape(l.field), fmt.Sprintf("unknown field %q", l.field))
		case leafMissingField:
			add(&out, seen, file, pos, l.ptr, fmt.Sprintf("missing required field %q", l.field))
		case leafForbidden:
			// A property our meta-schema forbids by name.
			add(&out, seen, file, pos, l.ptr, "field not allowed here")
		default:
			add(&out, seen, file, pos, l.ptr, l.message)
		}
	})
	return out
}

func add(out *ErrorList, seen map[string]bool, file string, pos positions, ptr, msg string) {
	if seen[ptr+"\x00"+msg] {
		return
	}
	seen[ptr+"\x00"+msg] = true
	p := pos.at(ptr)
	*out = append(*out, Error{File: file, Line: p.line, Column: p.col, Pointer: ptr, Message: msg})
}
