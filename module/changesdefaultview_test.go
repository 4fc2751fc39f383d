package module

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/config"
	"github.com/zoneapi/caddy-zoneapi/events"
	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestChangesOfTheDefaultViewInScope: a token whose scope names the
// default view (views=internal, or a.test@internal) reads the changes of
// that view's zones, in GET /changes, /zones/{name}/changes and the event
// stream, as it reads their records: the default view's changes are
// recorded without a view, and the scope check now sees them in the
// default view. Before the fix it saw none of them (its
// /zones/a.test/changes was 200 with no entries, its stream sent none),
// though GET /zones/a.test/records was allowed to it; a token of another
// view sees them neither before nor after.
func TestChangesOfTheDefaultViewInScope(t *testing.T) {
	h, _, toks := scopedHandler(t, fakeNamedAnswers{}, map[string]string{
		"internal": "actions=read views=internal",
		"pattern":  "actions=read zones=a.test@internal",
		"lan":      "actions=read views=lan",
	})
	if err := h.sharedRefs.acquireHistory(h.conf.ZoneDir); err != nil {
		t.Fatal(err)
	}
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
		token, path string
		views       []string // the entries' views, "" for the default
	}{
		{"internal", "/api/v1/changes", []string{""}},
		{"internal", "/api/v1/zones/a.test/changes", []string{""}},
		{"internal", "/api/v1/zones/a.test/changes?view=internal", []string{""}},
		{"pattern", "/api/v1/changes", []string{""}},
		{"pattern", "/api/v1/zones/a.test/changes", []string{""}},
		{"lan", "/api/v1/changes", []string{"lan"}},
		{"lan", "/api/v1/zones/a.test/changes?view=lan", []string{"lan"}},
	} {
		w := serveAs(h, toks[tc.token], "GET", tc.path, "")
		if w.Code != http.StatusOK {
			t.Errorf("%s %s: %d %s", tc.token, tc.path, w.Code, w.Body)
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
		if strings.Join(got, ",") != strings.Join(tc.views, ",") || len(got) != len(tc.views) {
			t.Errorf("%s %s: the entries' views %q, want %q", tc.token, tc.path, got, tc.views)
		}
	}
	// The event stream, replayed from the start.
	for token, want := range map[string]int{"internal": 1, "pattern": 1, "lan": 1} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		r := httptest.NewRequest("GET", "/api/v1/events", nil).WithContext(ctx)
		r.Header.Set("Authorization", "Bearer "+toks[token])
		r.Header.Set("Last-Event-ID", "0")
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		cancel()
		if n := strings.Count(w.Body.String(), "\nevent: "); w.Code != http.StatusOK || n != want {
			t.Errorf("%s: the stream from the start: %d, %d events, want %d:\n%s", token, w.Code, n, want, w.Body)
		}
	}
}
