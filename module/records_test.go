package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/config"
)

// recordsHandler is a handler with an inline rndc key, a zone directory
// and the given update key; it never reaches BIND in these tests.
func recordsHandler(t testing.TB, update *config.KeyConfig) *Handler {
	t.Helper()
	h := &Handler{
		conf: config.Settings{
			ZoneDir:    t.TempDir(),
			RNDCServer: "127.0.0.1:1",
			DNSServer:  "127.0.0.1:1",
			RNDCKey:    config.KeyConfig{Name: "rndc-key", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"},
			UpdateKey:  update,
		},
		authDisabled: true,
		cell:         new(backendCell),
	}
	h.setLoggers(zap.NewNop())
	h.router = h.newRouter()
	return h
}

func serveRecords(h *Handler, method, path, body string, hdr map[string]string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		r.Header.Set(k, v)
	}
	_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
	return w
}

// TestRecordsNeedKeySecret: without an update key secret, writes answer
// 400 explaining how to enable them, before any DNS (after the body is
// read and authorised: nothing touches the backend before that).
func TestRecordsNeedKeySecret(t *testing.T) {
	for _, tc := range []struct {
		key  *config.KeyConfig
		want string
	}{
		{nil, "no TSIG update key is configured"},
		{&config.KeyConfig{Name: "zoneapi-update"}, "configured by name only"},
	} {
		h := recordsHandler(t, tc.key)
		for m, body := range map[string]string{
			"POST":   `{"name":"www","type":"A","value":"192.0.2.1"}`,
			"PUT":    `{"name":"www","type":"A","currentValue":"192.0.2.1","newValue":"192.0.2.2"}`,
			"DELETE": `{"name":"www","type":"A"}`,
			"PATCH":  `{"changes":[{"op":"add","name":"www","type":"A","value":"192.0.2.1"}]}`,
		} {
			w := serveRecords(h, m, "/api/v1/zones/example.com/records", body, nil)
			var body apitypes.Error
			_ = json.Unmarshal(w.Body.Bytes(), &body)
			if w.Code != 400 || !strings.Contains(body.Message, tc.want) || !strings.Contains(body.Message, "update_key") {
				t.Errorf("%s with key %v: %d %s", m, tc.key, w.Code, w.Body)
			}
		}
	}
}

// TestRecordsRequestChecks: zone names, If-Match and query parameters are
// checked before BIND is asked.
func TestRecordsRequestChecks(t *testing.T) {
	h := recordsHandler(t, &config.KeyConfig{Name: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"})
	cases := []struct {
		method, path, body string
		hdr                map[string]string
		status             int
		part               string
	}{
		{"POST", "/api/v1/zones/bad..zone/records", `{}`, nil, 400, "invalid zone name"},
		{"POST", "/api/v1/zones/example.com/records", `{"name":"a","type":"A","value":"192.0.2.1","x":1}`, nil, 400, "unknown field"},
		{"POST", "/api/v1/zones/example.com/records", `{"name":"a","type":"A","value":"192.0.2.1"}`, map[string]string{"If-Match": `"abc"`}, 400, "If-Match"},
		{"GET", "/api/v1/zones/example.com/records?limit=0&type=NOPE&name=www.other.org.", "", nil, 400, "limit"},
		{"GET", "/api/v1/zones/example.com/records?name=www.other.org.", "", nil, 400, "outside the zone"},
		{"GET", "/api/v1/zones/example.com/records?type=NOPE", "", nil, 400, "not a known record type"},
	}
	for _, tc := range cases {
		w := serveRecords(h, tc.method, tc.path, tc.body, tc.hdr)
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.part) {
			t.Errorf("%s %s: %d %s; want %d containing %q", tc.method, tc.path, w.Code, w.Body, tc.status, tc.part)
		}
	}
}
