package webhook

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// fakeProvider applies the zones of applied, then fails with err.
type fakeProvider struct {
	applied []string
	err     error
	actor   zonemodel.Actor
}

func (f *fakeProvider) ZoneEndpoints(_ context.Context, zone string) ([]byte, error) {
	return []byte(`{"dnsName":"www.` + zone + `"}`), nil
}

func (f *fakeProvider) ApplyChanges(ctx context.Context, _ *apitypes.ExternalDNSChanges, applied func(string, int)) error {
	f.actor = zonemodel.ActorOf(ctx)
	for _, z := range f.applied {
		applied(z, 1)
	}
	return f.err
}

// TestApplyChangesAnswers: POST /records answers the contract's errors as
// the webhook did before it went over the contract: 400 for the changes'
// own (nothing sent), 409 for a zone changed meanwhile (named's rcode
// named) or a DNS rule, 500 for the rest, saying which zones changed
// before; 204 on success, with the webhook's identity in the context.
func TestApplyChangesAnswers(t *testing.T) {
	prereq := &zonemodel.PrerequisiteError{Rcode: "NXRRSET", Err: errors.New("update of b.test: named answered NXRRSET")}
	for _, tc := range []struct {
		name    string
		applied []string
		err     error
		status  int
		want    string
	}{
		{"ok", []string{"a.test"}, nil, 204, ""},
		{"plan", nil, errors.New(`create[0]: dnsName "x.org" is in none of the zones`), 400, `create[0]: dnsName \"x.org\" is in none of the zones; nothing was changed`},
		{"prerequisite", []string{"a.test"}, &zonemodel.ZoneError{Zone: "b.test", Err: prereq}, 409,
			"zone b.test changed since external-dns read it (named answered NXRRSET to the update's prerequisites: an updateOld RRset is no longer as read, or a created RRset exists); zone b.test was not changed; zones a.test were"},
		{"conflict", nil, &zonemodel.ZoneError{Zone: "b.test", Err: &zonemodel.ConflictError{Message: "CNAME and other data"}}, 409, "zone b.test: CNAME and other data; nothing was changed"},
		{"other", nil, &zonemodel.ZoneError{Zone: "b.test", Err: errors.New("connection refused")}, 500, "zone b.test: connection refused; nothing was changed"},
	} {
		f := &fakeProvider{applied: tc.applied, err: tc.err}
		a := &API{Zones: []string{"a.test", "b.test"}, Provider: func() (frontend.ExternalDNSProvider, error) { return f, nil }, Logger: zap.NewNop()}
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/external-dns/records", strings.NewReader(`{"create":[]}`))
		r.Header.Set("X-Request-Id", "req-1")
		a.ServeHTTP(w, r)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s: %d %s, want %d with %q", tc.name, w.Code, w.Body, tc.status, tc.want)
		}
		if f.actor != (zonemodel.Actor{Identity: "external-dns", Frontend: "externaldns", RequestID: "req-1"}) {
			t.Errorf("%s: actor %+v", tc.name, f.actor)
		}
	}
}

// TestGetRecordsJoinsZones: GET /records is one array of every zone's
// endpoints, in the configured zones' order.
func TestGetRecordsJoinsZones(t *testing.T) {
	a := &API{Zones: []string{"a.test", "b.test"}, Provider: func() (frontend.ExternalDNSProvider, error) { return &fakeProvider{}, nil }, Logger: zap.NewNop()}
	w := httptest.NewRecorder()
	a.ServeHTTP(w, httptest.NewRequest("GET", "/records", nil))
	if w.Code != 200 || w.Body.String() != `[{"dnsName":"www.a.test"},{"dnsName":"www.b.test"}]`+"\n" || w.Header().Get("Content-Type") != MediaType {
		t.Errorf("%d %q %q", w.Code, w.Body, w.Header().Get("Content-Type"))
	}
}
