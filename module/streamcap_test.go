package module

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/internal/apimetrics"
)

// streamHandler is fakeNamedHandler with the change history on (in
// its zone directory), so that the event stream is served.
func streamHandler(t *testing.T) *Handler {
	t.Helper()
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{})
	if err := h.sharedRefs.acquireHistory(h.conf.ZoneDir); err != nil {
		t.Fatal(err)
	}
	return h
}

// openStreams serves h on a test server and opens n event streams on it,
// each read up to its first line (the stream has begun); it returns the
// server and a function that closes stream i.
func openStreams(t *testing.T, h *Handler, n int) (*httptest.Server, []context.CancelFunc) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	}))
	t.Cleanup(srv.Close)
	var cancels []context.CancelFunc
	for i := 0; i < n; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/events", nil)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %s", i, resp.Status)
		}
		if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		cancels = append(cancels, cancel)
	}
	return srv, cancels
}

// streamRefused checks that one more stream is refused: 503 with
// Retry-After and the JSON error body naming max_streams.
func streamRefused(t *testing.T, srv *httptest.Server) {
	t.Helper()
	resp, err := srv.Client().Get(srv.URL + "/api/v1/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var eb apitypes.Error
	_ = json.NewDecoder(resp.Body).Decode(&eb)
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		eb.Error != "Service Unavailable" || !strings.Contains(eb.Message, "max_streams") {
		t.Fatalf("one stream too many: %s Retry-After %q %+v, want 503 with Retry-After naming max_streams", resp.Status, resp.Header.Get("Retry-After"), eb)
	}
}

// TestEventStreamClientsCappedByDefault: without a setting, at most 100
// event streams are open at once; the 101st is refused with 503 and
// Retry-After (on main it was served: there was no cap at all).
func TestEventStreamClientsCappedByDefault(t *testing.T) {
	h := streamHandler(t)
	srv, _ := openStreams(t, h, 100)
	streamRefused(t, srv)
}

// TestEventStreamClientsCapped: events max_streams bounds the open
// streams; one more is 503 with Retry-After (and counted in
// zoneapi_events_streams_refused_total), and a slot is free again once a
// client leaves.
func TestEventStreamClientsCapped(t *testing.T) {
	h := streamHandler(t)
	h.Events = &EventsConfig{MaxStreams: 2}
	h.router = h.newRouter()
	before := counterValue(t)
	srv, cancels := openStreams(t, h, 2)
	streamRefused(t, srv)
	if got := counterValue(t) - before; got != 1 {
		t.Errorf("zoneapi_events_streams_refused_total went up by %v, want 1", got)
	}
	cancels[0]()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := srv.Client().Get(srv.URL + "/api/v1/events?lastEventId=0")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a slot left by a closed stream: still %s", resp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// counterValue reads zoneapi_events_streams_refused_total.
func counterValue(t *testing.T) float64 {
	t.Helper()
	reg := prometheus.NewRegistry()
	if err := apimetrics.Register(reg, nil); err != nil {
		t.Fatal(err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatalf("gather: %v", err)
	}
	for _, mf := range mfs {
		if mf.GetName() == "zoneapi_events_streams_refused_total" {
			return mf.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("gather: no zoneapi_events_streams_refused_total in %v", mfs)
	return 0
}

// TestEventStreamsPerIdentity: one identity holds at most events
// max_streams_per_identity streams (default 10) open at once, so that one
// token cannot take every stream; others are still served, and a closed
// stream frees its identity's slot. (Before, one token could hold all of
// max_streams.)
func TestEventStreamsPerIdentity(t *testing.T) {
	h := streamHandler(t)
	h.authDisabled = false // basic mode: any well-formed token, its own identity
	h.router = h.newRouter()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	}))
	t.Cleanup(srv.Close)
	open := func(tok string) (*http.Response, context.CancelFunc) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/v1/events", nil)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			if _, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil {
				t.Fatal(err)
			}
		}
		return resp, cancel
	}
	const a, b = "zoneapi-test-token-aaaaaaaa", "zoneapi-test-token-bbbbbbbb"
	var cancels []context.CancelFunc
	for i := range DefaultMaxStreamsPerIdentity {
		resp, cancel := open(a)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of one token: %s", i, resp.Status)
		}
		cancels = append(cancels, cancel)
	}
	resp, _ := open(a)
	var eb apitypes.Error
	_ = json.NewDecoder(resp.Body).Decode(&eb)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(eb.Message, "max_streams_per_identity") {
		t.Fatalf("one stream too many for one token: %s %+v", resp.Status, eb)
	}
	if resp, _ := open(b); resp.StatusCode != http.StatusOK {
		t.Fatalf("another token's stream: %s", resp.Status)
	}
	cancels[0]()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, _ := open(a)
		if resp.StatusCode == http.StatusOK {
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("the slot of a closed stream: still %s", resp.Status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
