package apirouter

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/reqlog"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestChangeRequestIDLookedUpOnce: a change's request id, which its
// history entry (the actor) and its audit line both carry, is looked up
// once per request: Caddy's {http.request.uuid} goes through the
// replacer's providers and sets the access log's uuid field at each
// lookup.
func TestChangeRequestIDLookedUpOnce(t *testing.T) {
	var lookups int
	var actor zonemodel.Actor
	var audited []string
	rr := New([]Route{{Method: http.MethodPost, Template: Prefix + "/reconcile", Op: "reconcile",
		Handle: func(w http.ResponseWriter, r *http.Request, _ Params) {
			actor = zonemodel.ActorOf(r.Context())
			w.WriteHeader(http.StatusNoContent)
		}}}, Host{
		Authenticate: func(_ http.ResponseWriter, r *http.Request) (*http.Request, bool) { return r, true },
		Access:       func() *auth.RequestGuard { return &auth.RequestGuard{} },
		Limits:       func() *auth.RequestGuard { return nil },
		Audit: func(_ *http.Request, action string, status int, requestID string) {
			audited = append(audited, requestID)
		},
		WriteError: func(w http.ResponseWriter, status int, format string, args ...any) { w.WriteHeader(status) },
	})
	repl := caddy.NewReplacer()
	repl.Map(func(key string) (any, bool) {
		if key == "http.request.uuid" {
			lookups++
			return "1b4e28ba-2fa1-11d2-883f-0016d3cca427", true
		}
		return nil, false
	})
	r := httptest.NewRequest(http.MethodPost, Prefix+"/reconcile", nil)
	r = r.WithContext(context.WithValue(r.Context(), caddy.ReplacerCtxKey, repl))
	w := httptest.NewRecorder()
	rr.Serve(&reqlog.Recorder{ResponseWriter: w}, r)
	if w.Code != http.StatusNoContent {
		t.Fatalf("status %d", w.Code)
	}
	if actor.RequestID != "1b4e28ba-2fa1-11d2-883f-0016d3cca427" || len(audited) != 1 || audited[0] != actor.RequestID {
		t.Fatalf("actor's request id %q, audit lines' %q", actor.RequestID, audited)
	}
	if lookups != 1 {
		t.Errorf("the request id was looked up %d times, want once", lookups)
	}
}

// TestRoutePatternNotBuiltPerRequest: the matched route's pattern (the
// request's Pattern, the expensive-read limit's key) and the metrics
// label are not concatenated again for each request.
func TestRoutePatternNotBuiltPerRequest(t *testing.T) {
	rr := New([]Route{{Method: http.MethodPost, Template: Prefix + "/zones/{name}/records/reconcile"}}, Host{})
	rt, _, _ := rr.Match(httptest.NewRequest(http.MethodPost, Prefix+"/zones/example.com/records/reconcile", nil))
	if rt == nil {
		t.Fatal("no route matched")
	}
	var pattern string
	if n := testing.AllocsPerRun(100, func() { pattern = rt.Pattern() }); n != 0 {
		t.Errorf("Pattern allocates %v times per call", n)
	}
	if pattern != "POST "+Prefix+"/zones/{name}/records/reconcile" {
		t.Errorf("pattern %q", pattern)
	}
}
