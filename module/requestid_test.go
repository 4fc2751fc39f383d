package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
)

// TestRequestIDRefusedWhenUnsafe: an X-Request-Id with a control
// character, a non-ASCII byte, more than 128 bytes, or given twice is
// refused with 400 before anything else happens (it goes into the audit
// line, the change history, the event stream and the webhooks' bodies,
// where a line break or an escape sequence would forge or hide lines); a
// usable one is taken as it is. Before the fix such values were
// accepted (or, over 128 bytes, silently replaced by Caddy's request
// UUID) and the request ran.
func TestRequestIDRefusedWhenUnsafe(t *testing.T) {
	h, srv := fakeNamedHandler(t, fakeNamedAnswers{"notify": {Text: "zone notify queued"}})
	serve := func(method, path string, ids ...string) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, nil)
		for _, id := range ids {
			r.Header.Add("X-Request-Id", id)
		}
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		return w
	}
	for _, tc := range []struct {
		name string
		ids  []string
	}{
		{"line feed", []string{"abc\nfake log line"}},
		{"carriage return", []string{"abc\r\nX-Injected: 1"}},
		{"NUL", []string{"abc\x00def"}},
		{"escape sequence", []string{"\x1b[2Jcleared"}},
		{"tab", []string{"a\tb"}},
		{"DEL", []string{"a\x7fb"}},
		{"non-ASCII", []string{"caf\u00e9"}},
		{"right-to-left override", []string{"id\u202egnp.exe"}},
		{"invalid UTF-8", []string{"a\xffb"}},
		{"129 bytes", []string{strings.Repeat("a", 129)}},
		{"a megabyte", []string{strings.Repeat("a", 1<<20)}},
		{"twice", []string{"one", "two"}},
	} {
		for _, target := range [][2]string{{"GET", "/api/v1/health"}, {"POST", "/api/v1/zones/example.test/notify"}} {
			before := len(srv.Commands())
			w := serve(target[0], target[1], tc.ids...)
			var eb apitypes.Error
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != http.StatusBadRequest || eb.Error != "Bad Request" || !strings.Contains(eb.Message, "X-Request-Id") {
				t.Errorf("%s: %s %s: %d %.300s, want 400 naming X-Request-Id", tc.name, target[0], target[1], w.Code, w.Body)
			}
			if strings.ContainsAny(eb.Message, "\n\r\x00\x1b") || len(eb.Message) > 400 {
				t.Errorf("%s: the message repeats the value: %q", tc.name, eb.Message)
			}
			if n := len(srv.Commands()); n != before {
				t.Errorf("%s: named received %v", tc.name, srv.Commands()[before:])
			}
		}
	}
	for _, id := range []string{"0f8fad5b-d9cb-469f-a165-70867728950e", strings.Repeat("a", 128), "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1", "req 42", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"} {
		if w := serve("GET", "/api/v1/health", id); w.Code != http.StatusOK {
			t.Errorf("X-Request-Id %q: %d %s, want 200", id, w.Code, w.Body)
		}
		r := httptest.NewRequest("GET", "/api/v1/health", nil)
		r.Header.Set("X-Request-Id", id)
		if got := frontend.RequestID(r); got != id {
			t.Errorf("frontend.RequestID = %q, want %q", got, id)
		}
	}
}
