package rest

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
)

// maxBody is the body limit of these tests (module.MaxBodyBytes).
const maxBody = 1 << 20

// TestDecodeBody: the body read and decoded strictly (readBody, then
// decodeStrict), each failure a precise 4xx.
func TestDecodeBody(t *testing.T) {
	type inner struct {
		N uint32 `json:"n"`
	}
	type body struct {
		Name  string `json:"name"`
		Inner *inner `json:"inner"`
	}
	cases := []struct {
		name, ctype, body string
		status            int
		msg               string
	}{
		{"ok", "application/json", `{"name":"x","inner":{"n":1}}`, 0, ""},
		{"ok charset", "application/json; charset=utf-8", `{"name":"x"}`, 0, ""},
		{"ok no content type", "", `{"name":"x"}`, 0, ""},
		{"trailing space", "", "{\"name\":\"x\"}\n  ", 0, ""},
		{"form", "application/x-www-form-urlencoded", `name=x`, 415, "must be JSON"},
		{"syntax", "", `{"name":}`, 400, "malformed JSON at byte"},
		{"truncated", "", `{"name":"x"`, 400, "unexpected end"},
		{"unknown", "", `{"nam":"x"}`, 400, `unknown field "nam"`},
		{"nested unknown", "", `{"inner":{"m":1}}`, 400, `unknown field "m"`},
		{"type", "", `{"inner":{"n":"1"}}`, 400, "field inner.n: expected uint32, got JSON string"},
		{"negative", "", `{"inner":{"n":-1}}`, 400, "field inner.n"},
		{"array", "", `[1]`, 400, "expected rest.body"},
		{"two", "", `{} {}`, 400, "single JSON object"},
		{"empty", "", ``, 400, "empty"},
		{"large", "", `{"name":"` + strings.Repeat("x", maxBody) + `"}`, 413, "exceeds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", "/api/v1/zones", strings.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			w := httptest.NewRecorder()
			var b body
			raw, err := readBody(w, req, maxBody)
			if err == nil {
				err = decodeStrict(jsonbody.Parse(raw), &b)
			}
			if err != nil {
				WriteFailure(w, err)
			}
			ok := err == nil
			if tc.status == 0 {
				if !ok {
					t.Fatalf("decode failed: %d %s", w.Code, w.Body)
				}
				return
			}
			if ok || w.Code != tc.status {
				t.Fatalf("ok=%v status=%d, want %d (%s)", ok, w.Code, tc.status, w.Body)
			}
			var eb apitypes.Error
			if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil {
				t.Fatalf("error body is not JSON: %s", w.Body)
			}
			if eb.Error != apitypes.ReasonPhrase(tc.status) || !strings.Contains(eb.Message, tc.msg) {
				t.Errorf("error body %+v, want message containing %q", eb, tc.msg)
			}
		})
	}
}
