package module

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/internal/specdrift"
)

// TestRequestBodiesMatchSpec: each request body the handlers decode has
// exactly the properties the served specification gives it, nested
// objects and array items included, so neither refuses what the other
// accepts (a DELETE with priority once passed the decoder and failed the
// schema).
func TestRequestBodiesMatchSpec(t *testing.T) {
	h := &Handler{}
	d, err := h.spec()
	if err != nil {
		t.Fatal(err)
	}
	type check struct {
		method, path string
		body         any
		nested       map[string]any // property path -> struct of that object (or of its items)
	}
	for _, c := range []check{
		{"POST", "/zones", createZoneRequest{}, map[string]any{
			"zoneConfig": apitypes.ZoneConfig{}, "zoneConfig.soa": apitypes.SOA{}, "zoneConfig.records": apitypes.Record{},
		}},
		{"PATCH", "/zones/{name}", ModifyZoneRequest{}, nil},
		{"POST", "/zones/{name}/records", addRecordRequest{}, nil},
		{"DELETE", "/zones/{name}/records", removeRecordRequest{}, nil},
		{"PUT", "/zones/{name}/records", updateRecordRequest{}, nil},
		{"PATCH", "/zones/{name}/records", batchRequest{}, map[string]any{"changes": changeRequest{}}},
	} {
		var item *openapi3.PathItem
		for _, prefix := range []string{"", "/v1", "/api/v1"} { // the server URL holds the rest
			if item = d.T().Paths.Value(prefix + c.path); item != nil {
				break
			}
		}
		if item == nil {
			t.Fatalf("%s not in the spec", c.path)
		}
		op := item.GetOperation(c.method)
		if op == nil || op.RequestBody == nil {
			t.Fatalf("%s %s has no request body in the spec", c.method, c.path)
		}
		root := op.RequestBody.Value.Content.Get("application/json").Schema.Value
		if got, want := specdrift.SchemaFields(root), specdrift.JSONFields(reflect.TypeOf(c.body)); !slices.Equal(got, want) {
			t.Errorf("%s %s: spec properties %v, decoder fields %v", c.method, c.path, got, want)
		}
		for path, body := range c.nested {
			s := root
			for p := range strings.SplitSeq(path, ".") {
				s = s.Properties[p].Value
				if s.Items != nil {
					s = s.Items.Value
				}
			}
			if got, want := specdrift.SchemaFields(s), specdrift.JSONFields(reflect.TypeOf(body)); !slices.Equal(got, want) {
				t.Errorf("%s %s %s: spec properties %v, decoder fields %v", c.method, c.path, path, got, want)
			}
		}
	}
}
