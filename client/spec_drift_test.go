package client

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/specdrift"
)

// descend follows a dotted property path, stepping into array items.
func descend(t *testing.T, s *openapi3.Schema, path string) *openapi3.Schema {
	t.Helper()
	if s.Items != nil {
		s = s.Items.Value
	}
	if path == "" {
		return s
	}
	for p := range strings.SplitSeq(path, ".") {
		ref := s.Properties[p]
		if ref == nil {
			t.Fatalf("no property %q (in %q)", p, path)
		}
		s = ref.Value
		if s.Items != nil {
			s = s.Items.Value
		}
	}
	return s
}

// TestTypesMatchServedSpec: every request body the client sends and every
// answer it decodes has exactly the properties the served OpenAPI
// document gives it (nested objects and array items included), so the
// client neither sends a field the API refuses nor misses or invents one
// it answers.
func TestTypesMatchServedSpec(t *testing.T) {
	d, err := apispec.Service(apispec.DocsAuth)
	if err != nil {
		t.Fatal(err)
	}
	op := func(method, path string) *openapi3.Operation {
		t.Helper()
		for _, prefix := range []string{"", "/v1", "/api/v1"} {
			if item := d.T().Paths.Value(prefix + path); item != nil {
				if o := item.GetOperation(method); o != nil {
					return o
				}
			}
		}
		t.Fatalf("%s %s not in the served spec", method, path)
		return nil
	}
	type check struct {
		method, path string
		status       string // "" = the request body
		body         any
		nested       map[string]any // property path -> struct of that object (or its items)
	}
	for _, c := range []check{
		{"POST", "/zones", "", CreateZone{}, map[string]any{"zoneConfig": ZoneConfig{}, "zoneConfig.soa": SOA{}, "zoneConfig.records": Record{}}},
		{"POST", "/zones/{name}/records", "", Record{}, nil},
		{"DELETE", "/zones/{name}/records", "", RemoveRecord{}, nil},
		{"PUT", "/zones/{name}/records", "", UpdateRecord{}, nil},
		{"PATCH", "/zones/{name}/records", "", apitypes.BatchRequest{}, map[string]any{"changes": Change{}}},
		{"POST", "/zones/{name}/import", "", ImportZone{}, map[string]any{"axfr": ImportAXFR{}, "axfr.tsig": TSIGKey{}}},
		{"POST", "/zones/{name}/import", "201", ImportResult{}, map[string]any{"zone": ZoneInfo{}}},
		{"POST", "/zones/{name}/import", "200", ImportPreview{}, map[string]any{"rrsets": RRset{}}},

		{"GET", "/health", "200", Health{}, nil},
		{"GET", "/ready", "200", Readiness{}, nil},
		{"GET", "/ready", "503", Readiness{}, nil},
		{"POST", "/zones", "201", ZoneResponse{}, map[string]any{"zone": ZoneInfo{}}},
		{"GET", "/zones", "200", ZonePage{}, map[string]any{"items": ZoneEntry{}}},
		{"GET", "/zones/{name}", "200", ZoneInfo{}, map[string]any{"config": ZoneSettings{}}},
		{"PATCH", "/zones/{name}", "", ModifyZone{}, nil},
		{"PATCH", "/zones/{name}", "200", ModifyZoneResponse{}, map[string]any{"config": ZoneSettings{}}},
		{"DELETE", "/zones/{name}", "200", ZoneResponse{}, nil},
		{"GET", "/zones/{name}/status", "200", ZoneResponse{}, nil},
		{"POST", "/zones/{name}/freeze", "200", ZoneResponse{}, nil},
		{"POST", "/zones/{name}/records", "201", RecordChange{}, map[string]any{"details": RecordChangeDetails{}, "record": StoredRecord{}}},
		{"PUT", "/zones/{name}/records", "200", RecordChange{}, map[string]any{"details": RecordChangeDetails{}, "record": StoredRecord{}}},
		{"DELETE", "/zones/{name}/records", "200", RecordChange{}, map[string]any{"details": RecordChangeDetails{}}},
		{"PATCH", "/zones/{name}/records", "200", BatchResult{}, nil},
		{"GET", "/zones/{name}/records", "200", RecordPage{}, map[string]any{"rrsets": RRset{}}},
		{"POST", "/zones/{name}/notify", "200", NotifyResponse{}, map[string]any{"servers": NotifiedServer{}}},
	} {
		o := op(c.method, c.path)
		var root *openapi3.Schema
		if c.status == "" {
			if o.RequestBody == nil {
				t.Fatalf("%s %s has no request body in the spec", c.method, c.path)
			}
			root = o.RequestBody.Value.Content.Get("application/json").Schema.Value
		} else {
			r := o.Responses.Value(c.status)
			if r == nil || r.Value == nil || r.Value.Content.Get("application/json") == nil {
				t.Errorf("%s %s: no JSON %s answer in the spec", c.method, c.path, c.status)
				continue
			}
			root = r.Value.Content.Get("application/json").Schema.Value
		}
		what := c.method + " " + c.path + " " + c.status
		if got, want := specdrift.SchemaFields(root), specdrift.JSONFields(reflect.TypeOf(c.body)); !slices.Equal(got, want) {
			t.Errorf("%s: spec properties %v, client fields %v", what, got, want)
		}
		for path, body := range c.nested {
			s := descend(t, root, path)
			if got, want := specdrift.SchemaFields(s), specdrift.JSONFields(reflect.TypeOf(body)); !slices.Equal(got, want) {
				t.Errorf("%s %s: spec properties %v, client fields %v", what, path, got, want)
			}
		}
	}
}
