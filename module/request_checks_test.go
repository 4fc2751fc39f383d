package module

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Request checks that issue 10 (defect 8) found wrong: the media type
// checked before the schema, duplicate keys, non-ASCII in messages, a
// padding-only bearer token. Each test failed on the code before the fix.

// TestContentTypeBeforeSchema: a body declared as another type is 415
// even when it also breaks the schema (it was 400, the schema answered
// first).
func TestContentTypeBeforeSchema(t *testing.T) {
	h := docsHandler(t, "")
	req := httptest.NewRequest("POST", "/api/v1/zones", strings.NewReader(`{"zoneType":"bogus"}`))
	req.Header.Set("Content-Type", "text/plain")
	w := httptest.NewRecorder()
	var cz apitypes.CreateZone
	if h.router.Decode(w, req, routeParams(t, h, "POST", "/api/v1/zones"), &cz) || w.Code != 415 {
		t.Fatalf("status %d, want 415: %s", w.Code, w.Body)
	}
}

// TestDuplicateKeys: a key given twice in one object is refused (it was
// accepted silently, the last one winning), before the schema check and
// the decoder see the body (they share one read and one parse).
func TestDuplicateKeys(t *testing.T) {
	h := docsHandler(t, "")
	for _, body := range []string{
		`{"zoneName":"a.example","zoneName":"b.example","zoneType":"primary"}`,
		`{"zoneName":"a.example","ZONENAME":"b.example","zoneType":"primary"}`,
		`{"zoneName":"a.example","zoneType":"primary","zoneConfig":{"ttl":60,"soa":{"primaryNs":"x.","adminEmail":"a@b","primaryNs":"y."}}}`,
	} {
		req := httptest.NewRequest("POST", "/api/v1/zones", strings.NewReader(body))
		w := httptest.NewRecorder()
		var v apitypes.CreateZone
		if h.router.Decode(w, req, routeParams(t, h, "POST", "/api/v1/zones"), &v) || w.Code != 400 || !strings.Contains(w.Body.String(), "duplicate key") {
			t.Errorf("decodeRequest(%s): %d %s", body, w.Code, w.Body)
		}
	}
}

// TestNonASCIIInMessages: a name quoting a non-ASCII character names that
// character, not the Latin-1 reading of its first byte ("xé" showed 'Ã').
func TestNonASCIIInMessages(t *testing.T) {
	_, err := zonemodel.NormalizeZoneName("xé.example")
	if err == nil || strings.Contains(err.Error(), "Ã") || !strings.Contains(err.Error(), "'é'") {
		t.Errorf("error %v", err)
	}
	_, err = zonemodel.NormalizeZoneName("x\xff.example")
	if err == nil || !strings.Contains(err.Error(), "byte 0xff") {
		t.Errorf("error %v", err)
	}
	w := serve(docsHandler(t, ""), "GET", "/api/v1/zones/x%C3%A9.example", "tok")
	if strings.Contains(w.Body.String(), "Ã") || !strings.Contains(w.Body.String(), "é") {
		t.Errorf("GET: %d %s", w.Code, w.Body)
	}
}
