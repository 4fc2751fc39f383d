package module

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// TestImportAXFRAddressIsAnIP: an import by AXFR names its source as
// "ip", "ip:port" or "[v6]:port" (docs/import.md); anything else is 400
// before anything is tried. Before the fix a host name was looked up in
// the server's resolver and connected to (localhost:53 answered 502
// "dial tcp 127.0.0.1:53"), and port 0, a port over 65535 and an IPv6
// zone (fe80::1%eth0) were dialled too.
func TestImportAXFRAddressIsAnIP(t *testing.T) {
	h, _ := fakeNamedHandler(t, fakeNamedAnswers{})
	for _, addr := range []string{"localhost", "localhost:53", "ns1.example.net:53", "127.0.0.1:0", "127.0.0.1:99999", "[fe80::1%eth0]:53", "fe80::1%eth0", ":53", "127.0.0.1:domain", " 127.0.0.1"} {
		w := httptest.NewRecorder()
		body, _ := json.Marshal(map[string]any{"axfr": map[string]any{"address": addr}})
		r := httptest.NewRequest("POST", "/api/v1/zones/imp.test/import", strings.NewReader(string(body)))
		r.Header.Set("Content-Type", "application/json")
		_ = h.ServeHTTP(w, r, nextFunc(func(http.ResponseWriter, *http.Request) error { return nil }))
		var eb apitypes.Error
		if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil || w.Code != http.StatusBadRequest || !strings.Contains(eb.Message, "axfr.address") {
			t.Errorf("address %q: %d %s, want 400 naming axfr.address", addr, w.Code, w.Body)
		}
	}
}
