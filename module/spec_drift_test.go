package module

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/specdrift"
)

// TestRequestBodiesMatchSpec: the route table and the served
// specification agree on request bodies. Every route whose operation has
// a JSON request body in the spec declares a body type and no other route
// does; each body type has exactly the properties the spec gives it, at
// every level (nested objects and array items included), so neither
// refuses what the other accepts (a DELETE with priority once passed the
// decoder and failed the schema).
func TestRequestBodiesMatchSpec(t *testing.T) {
	h := &Handler{}
	d, err := h.spec()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, rt := range h.buildRoutes() {
		if rt.PDNS {
			continue // the PowerDNS API's bodies are its own (package powerdns)
		}
		path := strings.TrimPrefix(rt.Template, apiPrefix)
		var item *openapi3.PathItem
		for _, prefix := range []string{"", "/v1", "/api/v1"} { // the server URL holds the rest
			if item = d.T().Paths.Value(prefix + path); item != nil {
				break
			}
		}
		var schema *openapi3.Schema
		if item != nil {
			if op := item.GetOperation(rt.Method); op != nil && op.RequestBody != nil {
				if c := op.RequestBody.Value.Content.Get("application/json"); c != nil {
					schema = c.Schema.Value
				}
			}
		}
		switch {
		case schema == nil && rt.Body == nil:
			continue
		case schema == nil:
			t.Errorf("%s %s declares body %v; the spec gives it none", rt.Method, rt.Template, rt.Body)
			continue
		case rt.Body == nil:
			t.Errorf("%s %s has a request body in the spec; the route declares no body type", rt.Method, rt.Template)
			continue
		}
		checked++
		compareBody(t, rt.Method+" "+rt.Template, schema, rt.Body)
	}
	if checked < 6 {
		t.Errorf("%d routes with bodies checked, want at least 6", checked)
	}
}

// compareBody compares a schema's properties with a struct's JSON fields,
// then descends into each property whose Go type is a struct (or a pointer
// to, or a slice of, one).
func compareBody(t *testing.T, where string, s *openapi3.Schema, typ reflect.Type) {
	t.Helper()
	if got, want := specdrift.SchemaFields(s), specdrift.JSONFields(typ); !slices.Equal(got, want) {
		t.Errorf("%s: spec properties %v, decoder fields %v", where, got, want)
		return
	}
	for f := range typ.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		if ft.Kind() != reflect.Struct || ft.PkgPath() == "time" {
			continue
		}
		ps := s.Properties[name].Value
		if ps.Items != nil {
			ps = ps.Items.Value
		}
		compareBody(t, where+" "+name, ps, ft)
	}
}
