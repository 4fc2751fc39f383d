package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// TestQueryProblemsBounded: a query repeating one bad value thousands of
// times gets a 400 whose message names each distinct problem once and at
// most a few of them, not one long line per repetition. Before the fix a
// 6 KB query (kind=x,x,… or type=x,x,…) was answered with about 500 KB
// (every repetition with the list of valid types), an 80-fold
// amplification for any token that may read.
func TestQueryProblemsBounded(t *testing.T) {
	h := streamHandler(t)
	bad := strings.Repeat("x,", 3000)
	zones := strings.Repeat("zone=..&", 1500)
	many := ""
	for i := 0; i < 500; i++ {
		many += "bogus" + strings.Repeat("y", i%7) + string(rune('a'+i%26)) + ","
	}
	for _, path := range []string{
		"/api/v1/changes?kind=" + bad,
		"/api/v1/zones/a.test/changes?kind=" + bad,
		"/api/v1/changes?kind=" + many,
		"/api/v1/events?type=" + bad,
		"/api/v1/events?" + zones,
		"/api/v1/events?type=" + many,
	} {
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, httptest.NewRequest("GET", path, nil), nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		var eb apitypes.Error
		if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != http.StatusBadRequest {
			t.Errorf("%.60s…: %d %.200s, want 400", path, w.Code, w.Body)
			continue
		}
		if w.Body.Len() > 4096 {
			t.Errorf("%.60s… (%d bytes): a %d-byte answer, want at most 4 KiB", path, len(path), w.Body.Len())
		}
	}
}
