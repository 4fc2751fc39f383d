package module

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// zeros is an endless body of spaces: a large body without the memory.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = ' '
	}
	return len(p), nil
}

// TestEvery413IsPayloadTooLarge: every 413 of the REST API says
// "Payload Too Large", the reason phrase DESIGN.md's contract lists
// (Go's StatusText is "Request Entity Too Large"): the body limit of
// every JSON route, the import's zone-file and JSON limits, and the
// zone service's limits mapped by fail.
func TestEvery413IsPayloadTooLarge(t *testing.T) {
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{})
	check := func(what string, w *httptest.ResponseRecorder) {
		t.Helper()
		var eb apitypes.Error
		if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != http.StatusRequestEntityTooLarge {
			t.Errorf("%s: %d %.200s, want 413 with a JSON error body", what, w.Code, w.Body)
			return
		}
		if eb.Error != "Payload Too Large" || eb.Message == "" {
			t.Errorf("%s: error %q message %q, want error \"Payload Too Large\" and a message", what, eb.Error, eb.Message)
		}
	}
	serve := func(method, path, ctype string, body io.Reader) *httptest.ResponseRecorder {
		w := httptest.NewRecorder()
		r := httptest.NewRequest(method, path, body)
		if ctype != "" {
			r.Header.Set("Content-Type", ctype)
		}
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		return w
	}
	big := func(n int64) io.Reader { return io.LimitReader(zeros{}, n) }
	check("create", serve("POST", "/api/v1/zones", "application/json", big(MaxBodyBytes+1)))
	check("records", serve("POST", "/api/v1/zones/example.test/records", "", big(MaxBodyBytes+1)))
	check("import text/dns", serve("POST", "/api/v1/zones/example.test/import", "text/dns", big(zonemodel.MaxImportBytes+1)))
	check("import JSON", serve("POST", "/api/v1/zones/example.test/import", "application/json", bytes.NewReader(make([]byte, MaxBodyBytes+1))))
	w := httptest.NewRecorder()
	rest.Failure{Status: http.StatusRequestEntityTooLarge, Message: fmt.Sprintf("the zone has more than %d records", 1000000)}.Write(w)
	check("service limit", w)
	w = httptest.NewRecorder()
	writeError(w, http.StatusRequestEntityTooLarge, "%s", strings.Repeat("x", 3))
	check("writeError", w)
}
