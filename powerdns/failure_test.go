package powerdns

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// TestFailureOf: the one mapping of the zone service's errors to
// PowerDNS's answers, by kind: 422 for what the request or the zone's
// state refuses (409 for a conflict of a create), 404 for an unknown zone
// named in PowerDNS's words, 5xx for the server's failures, with the
// import gate's Retry-After. Before, the PowerDNS API asked zone_api's
// REST mapping (pdnsService.Status) and changed its answer afterwards.
func TestFailureOf(t *testing.T) {
	rec := func(err error) error { return &frontend.CallError{Zone: "example.test", Op: "batch", Err: err} }
	life := func(err error) error { return &frontend.CallError{Zone: "example.test", Err: err} }
	for _, tc := range []struct {
		name    string
		err     error
		keep409 bool
		status  int
		want    string
	}{
		{"input", &InputError{Message: "Duplicate RRset www.example.test. IN A"}, false, 422, "Duplicate RRset"},
		{"invalid record", rec(&zonemodel.ValidationError{Problems: []zonemodel.Problem{{Field: "changes[0].value", Message: "bad"}}}), false, 422, "invalid record"},
		{"DNS rule", rec(&dnsupdate.ConflictError{Message: "CNAME and other data"}), false, 422, "CNAME and other data; nothing was changed"},
		{"DNS rule of a create", life(&dnsupdate.ConflictError{Message: "CNAME and other data"}), true, 409, "CNAME"},
		{"no update key", rec(dnsupdate.ErrNoUpdateKey), false, 422, "record changes are disabled"},
		{"unknown zone", rec(&zoneservice.Error{Kind: zoneservice.ErrNotFound, Rcode: "NOTAUTH", Op: "batch"}), false, 404, "Could not find domain 'example.test.'"},
		{"unknown zone, lifecycle", life(&zoneservice.Error{Kind: zoneservice.ErrNotFound, Msg: "zone example.test not found"}), false, 404, "Could not find domain 'example.test.'"},
		{"exists", life(&zoneservice.Error{Kind: zoneservice.ErrExists, Msg: "exists"}), true, 409, "Conflict: Domain 'example.test.' already exists"},
		{"frozen", rec(&zoneservice.Error{Kind: zoneservice.ErrFrozen, Rcode: "REFUSED"}), false, 422, "frozen"},
		{"secondary", rec(&zoneservice.Error{Kind: zoneservice.ErrNotPrimary, Rcode: "NOTAUTH", ZoneType: "secondary"}), false, 422, "secondary zone"},
		{"servfail", rec(&zoneservice.Error{Kind: zoneservice.ErrServerFailure, Rcode: "SERVFAIL"}), false, 500, "SERVFAIL"},
		{"outcome unknown", rec(&zoneservice.Error{Kind: zoneservice.ErrOutcomeUnknown, Err: context.DeadlineExceeded}), false, 504, "unknown"},
		{"busy", life(&zoneservice.Error{Kind: zoneservice.ErrBusy, Msg: "waiting for the lock"}), false, 503, "lock"},
		{"named.conf", life(&zoneservice.Error{Kind: zoneservice.ErrNamedConf, Msg: "zone example.test is configured in named.conf"}), false, 422, "named.conf"},
		{"imports at once", life(&frontend.ImportsBusy{Status: 429, Message: "this identity runs 2 imports already", RetryAfter: 5}), false, 429, "imports already"},
		{"local", errors.New("loading rndc key: no such file"), false, 500, "rndc key"},
	} {
		w := httptest.NewRecorder()
		(&API{}).fail(w, tc.err, nil, tc.keep409)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) || !strings.HasPrefix(w.Body.String(), `{"error":`) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, w.Code, w.Body.String(), tc.status, tc.want)
		}
		if tc.status == http.StatusTooManyRequests && w.Header().Get("Retry-After") != "5" {
			t.Errorf("%s: Retry-After %q", tc.name, w.Header().Get("Retry-After"))
		}
	}
}
