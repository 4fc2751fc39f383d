package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// TestQueryRepeatsAndCursors: a query parameter given twice is a 400
// naming it, on every route (the zone list, record reads, a PowerDNS
// route), except the event stream's zone and type, which the served
// specification declares as arrays; a zone list's cursor that no list
// answers is a 400 naming the cursor (issue 25, defect 5: before,
// ?all=true&all=yes and ?cursor=%00 answered 200 with the whole list).
func TestQueryRepeatsAndCursors(t *testing.T) {
	h := streamHandler(t)
	for _, c := range []struct {
		path, want string
	}{
		{"/api/v1/zones?all=true&all=yes", `query parameter "all" is given 2 times`},
		{"/api/v1/zones?limit=5&limit=6", `query parameter "limit" is given 2 times`},
		{"/api/v1/zones?cursor=%00", `cursor "\x00" is not a cursor of this list`},
		{"/api/v1/zones?cursor=a..b", `cursor "a..b" is not a cursor of this list`},
		{"/api/v1/zones?all=true&cursor=%00", `is not a cursor of the list of every zone`},
		{"/api/v1/zones?all=true&cursor=a.test@bad%20view", `its view`},
		{"/api/v1/zones/a.test/records?type=A&type=TXT", `query parameter "type" is given 2 times`},
		{"/api/v1/changes?kind=a&kind=b", `query parameter "kind" is given 2 times`},
	} {
		w := httptest.NewRecorder()
		_ = h.ServeHTTP(w, httptest.NewRequest("GET", c.path, nil), nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		var eb apitypes.Error
		if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != http.StatusBadRequest || eb.Error != "Bad Request" || !strings.Contains(eb.Message, c.want) {
			t.Errorf("%s: %d %s, want 400 with %q", c.path, w.Code, w.Body, c.want)
		}
	}
	// The event stream's zone is an array parameter: repeating it is no
	// repeat problem (the zone names are checked by the handler).
	w := httptest.NewRecorder()
	_ = h.ServeHTTP(w, httptest.NewRequest("GET", "/api/v1/events?zone=..&zone=..", nil), nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	if strings.Contains(w.Body.String(), "given 2 times") {
		t.Errorf("a repeated array parameter was refused as a repeat: %s", w.Body)
	}
}
