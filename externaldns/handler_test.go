package externaldns

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedhistory"
)

func TestProvisionZones(t *testing.T) {
	t.Setenv("ZONEAPI_TEST_ZONES", "b.example, C.Example. b.example")
	h := &Handler{Zones: []string{"a.example.", "{env.ZONEAPI_TEST_ZONES}"}}
	if err := h.Provision(caddy.Context{Context: context.Background()}); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(h.zones, " "); got != "a.example b.example c.example" {
		t.Errorf("zones %q", got)
	}
	if err := (&Handler{Zones: []string{"bad..name"}}).Provision(caddy.Context{Context: context.Background()}); err == nil {
		t.Error("a bad zone name was accepted")
	}
}

// TestRequestIDRefusedWhenUnsafe: an X-Request-Id the change history
// would record unsafely (a non-ASCII byte, over 128 bytes, given twice)
// is refused with 400 before the request is routed, as the zone API
// refuses it.
func TestRequestIDRefusedWhenUnsafe(t *testing.T) {
	h := &Handler{}
	for _, tc := range []struct {
		ids    []string
		status int
	}{
		{nil, 200},
		{[]string{"0f8fad5b-d9cb-469f-a165-70867728950e"}, 200},
		{[]string{"a\tb"}, 400},
		{[]string{"id\u202egnp.exe"}, 400},
		{[]string{strings.Repeat("a", 129)}, 400},
		{[]string{"one", "two"}, 400},
	} {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/healthz", nil)
		for _, id := range tc.ids {
			r.Header.Add("X-Request-Id", id)
		}
		_ = h.ServeHTTP(w, r, nil)
		if w.Code != tc.status || tc.status == 400 && !strings.Contains(w.Body.String(), `"error":"Bad Request"`) {
			t.Errorf("X-Request-Id %q: %d %s, want %d", tc.ids, w.Code, w.Body, tc.status)
		}
	}
}

// TestHealthzWhenHistoryCannotOpen: with zone_dir, /healthz opens the
// change history (the first probe already sees it) and answers 503
// naming history_writable when it cannot be opened (here zone_dir is a
// file, so the history's directory cannot be made); without zone_dir
// there is nothing to check: 200.
func TestHealthzWhenHistoryCannotOpen(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-dir")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		zoneDir string
		status  int
	}{
		{"", http.StatusOK},
		{t.TempDir(), http.StatusOK},
		{file, http.StatusServiceUnavailable},
	} {
		h := &Handler{Zones: []string{"a.example"}, ZoneDir: tc.zoneDir}
		if err := h.Provision(caddy.Context{Context: context.Background()}); err != nil {
			t.Fatal(err)
		}
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil), nil)
		_ = h.Cleanup()
		if w.Code != tc.status {
			t.Errorf("zone_dir %q: /healthz %d %s, want %d", tc.zoneDir, w.Code, w.Body, tc.status)
		}
		if tc.status == http.StatusServiceUnavailable && !strings.Contains(w.Body.String(), `"message":"history_writable: opening the change history`) {
			t.Errorf("zone_dir %q: /healthz body %s, want history_writable named", tc.zoneDir, w.Body)
		}
	}
}

// TestWebhookKeepsTheHistoryRetention: the webhook writes into the zone
// API's change history but does not own its settings: opening it (its
// first request or /healthz probe) leaves the retention the zone API set
// (here max_age one year) and prunes nothing. Before, it opened the
// shared history with zero options, which reset the retention to the
// defaults (90 days) and deleted the older segment at once.
func TestWebhookKeepsTheHistoryRetention(t *testing.T) {
	zoneDir := t.TempDir()
	dir := filepath.Join(zoneDir, ".zoneapi", "history")
	now := time.Now()
	clock := now.Add(-200 * 24 * time.Hour)
	opts := history.Options{MaxAge: 365 * 24 * time.Hour, SegmentSize: 1, Now: func() time.Time { return clock }}
	owner, release, err := sharedhistory.Shared(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	entry := func(i int) history.Entry {
		return history.Entry{Zone: "a.example", Type: history.RecordsChanged, Source: history.SourceAPI,
			Added: []history.RRset{{Name: fmt.Sprintf("r%d.a.example.", i), Type: "A", TTL: 300, Records: []string{"192.0.2.1"}}}}
	}
	if _, err := owner.Append(entry(1)); err != nil {
		t.Fatal(err)
	}
	clock = now
	if _, err := owner.Append(entry(2)); err != nil {
		t.Fatal(err)
	}
	segments := func() int {
		m, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		return len(m)
	}
	if n := segments(); n != 2 {
		t.Fatalf("%d segments, want 2 (one 200 days old)", n)
	}
	h := &Handler{Zones: []string{"a.example"}, ZoneDir: zoneDir}
	if err := h.Provision(caddy.Context{Context: context.Background()}); err != nil {
		t.Fatal(err)
	}
	defer h.Cleanup()
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, httptest.NewRequest("GET", "/healthz", nil), nil)
	if w.Code != http.StatusOK {
		t.Fatalf("/healthz %d %s", w.Code, w.Body)
	}
	if h.st.hist != owner {
		t.Fatal("the webhook did not open the process's shared history")
	}
	if n := segments(); n != 2 {
		t.Errorf("%d segments after the webhook opened the history, want 2: the zone API's max_age keeps the older one", n)
	}
}
