package module

import (
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apispec"
)

// TestEveryZoneRouteDocumentsView: every route that takes ?view= (the
// REST zone and record routes) documents the view query parameter in the
// served OpenAPI document, and no other route does.
func TestEveryZoneRouteDocumentsView(t *testing.T) {
	h := &Handler{}
	d, err := apispec.Service(h.docsMode())
	if err != nil {
		t.Fatal(err)
	}
	doc := d.T()
	n := 0
	for _, rt := range h.buildRoutes() {
		path := strings.TrimPrefix(rt.Template, "/api")
		item := doc.Paths.Find(path)
		if item == nil {
			t.Errorf("%s %s: not in the document", rt.Method, rt.Template)
			continue
		}
		op := item.GetOperation(rt.Method)
		if op == nil {
			t.Errorf("%s %s: no operation", rt.Method, rt.Template)
			continue
		}
		has := false
		for _, p := range append(item.Parameters, op.Parameters...) {
			if p.Value != nil && p.Value.Name == "view" && p.Value.In == "query" {
				has = true
			}
		}
		if want := rt.TakesView(); has != want {
			t.Errorf("%s %s: documents view %v, takes it %v", rt.Method, rt.Template, has, want)
		}
		if has {
			n++
		}
	}
	if n < 15 {
		t.Errorf("only %d routes document view", n)
	}
}
