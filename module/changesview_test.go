package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestChangesViewChecked: the change history's ?view= is read as every
// other route reads it: a name that is not a view name is 400, a view
// that is not configured 404, and the default view selects the entries
// of the zones addressed without a view (recorded with no view). Before
// the fix all three answered 200, the first two with no entries, and
// ?view=<the default view> showed none of its zones' changes.
func TestChangesViewChecked(t *testing.T) {
	h := streamHandler(t)
	h.views = newViewTable(config.Views{Names: []string{"internal", "lan"}, Default: "internal",
		Other: map[string]*config.View{"lan": {Name: "lan", DNSServer: "127.0.0.2:53"}}})
	h.router = h.newRouter()
	b, err := h.getBackend()
	if err != nil || b.Root().History == nil {
		t.Fatalf("backend %v, history %v", err, b)
	}
	for _, e := range []history.Entry{{Zone: "a.test", Type: history.ZoneCreated, Source: history.SourceAPI}, {Zone: "a.test", View: "lan", Type: history.ZoneCreated, Source: history.SourceAPI}} {
		if _, err := b.Root().History.Append(e); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		path   string
		status int
		views  []string // the entries' views, "" for the default
	}{
		{"/api/v1/changes", 200, []string{"", "lan"}},
		{"/api/v1/changes?view=lan", 200, []string{"lan"}},
		{"/api/v1/changes?view=internal", 200, []string{""}},
		{"/api/v1/zones/a.test/changes?view=internal", 200, []string{""}},
		{"/api/v1/zones/a.test/changes?view=lan", 200, []string{"lan"}},
		{"/api/v1/changes?view=%00", 400, nil},
		{"/api/v1/changes?view=", 400, nil},
		{"/api/v1/changes?view=lan&view=internal", 400, nil},
		{"/api/v1/zones/a.test/changes?view=..%2Fetc", 400, nil},
		{"/api/v1/changes?view=nope", 404, nil},
		{"/api/v1/zones/a.test/changes?view=nope", 404, nil},
	} {
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil), nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		if w.Code != tc.status {
			t.Errorf("%s: %d %s, want %d", tc.path, w.Code, w.Body, tc.status)
			continue
		}
		if tc.status != 200 {
			var eb apitypes.Error
			if json.Unmarshal(w.Body.Bytes(), &eb) != nil || eb.Message == "" {
				t.Errorf("%s: body %s, want the JSON error body", tc.path, w.Body)
			}
			continue
		}
		var body events.Changes
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range body.Changes {
			got = append(got, e.View)
		}
		if len(got) != len(tc.views) || len(got) > 0 && (got[0] != tc.views[0] || got[len(got)-1] != tc.views[len(tc.views)-1]) {
			t.Errorf("%s: the entries' views %q, want %q", tc.path, got, tc.views)
		}
	}
}
