// Package specdrift holds what the drift tests between Go types and the
// served OpenAPI document share: the JSON field names of a struct and the
// property names of a schema, each sorted, so that a test compares them
// with reflect.DeepEqual.
package specdrift

import (
	"reflect"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// JSONFields lists the JSON names of t's fields (a struct type), sorted;
// fields without a name or tagged "-" are left out.
func JSONFields(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// SchemaFields lists the property names of s, sorted.
func SchemaFields(s *openapi3.Schema) []string {
	var out []string
	for k := range s.Properties {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
