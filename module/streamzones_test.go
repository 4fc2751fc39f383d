package module

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/events"
)

// TestEventStreamZonesBounded: an event stream names at most
// events.MaxStreamZones distinct zones (a zone repeated counts once);
// more is 400 before the stream begins. Before the fix any number was
// taken, each new one looked for in the list of those before it: a
// request line of ~90,000 zone names (1 MB) cost a token that may read
// about 15 s of CPU before its stream began (10,000 names: 0.18 s,
// growing with the square), and every event replayed or sent was then
// compared with each name. The case of 101 zones answered 200 before.
func TestEventStreamZonesBounded(t *testing.T) {
	h := streamHandler(t)
	zones := func(n, distinct int) string {
		var q []string
		for i := 0; i < n; i++ {
			q = append(q, fmt.Sprintf("zone=z%d.test", i%distinct))
		}
		return "/api/v1/events?" + strings.Join(q, "&")
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{zones(events.MaxStreamZones+1, events.MaxStreamZones+1), http.StatusBadRequest},
		{zones(events.MaxStreamZones, events.MaxStreamZones), http.StatusOK},
		{zones(3*events.MaxStreamZones, 2), http.StatusOK}, // repeats count once
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, httptest.NewRequest("GET", tc.path, nil).WithContext(ctx), nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		cancel()
		if w.Code != tc.status {
			t.Errorf("%.60s… (%d bytes): %d %.300s, want %d", tc.path, len(tc.path), w.Code, w.Body, tc.status)
		}
		if tc.status == http.StatusBadRequest && !strings.Contains(w.Body.String(), fmt.Sprintf("at most %d", events.MaxStreamZones)) {
			t.Errorf("the 400 does not say how many zones a stream may name: %s", w.Body)
		}
	}
}
