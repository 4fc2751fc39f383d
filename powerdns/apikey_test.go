package powerdns

import (
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAPIKeyAsBearer: the key becomes the bearer token of the request
// returned, the request given keeps its headers (Caddy's access log reads
// it), an Authorization header sent wins, and the copy costs at most 5
// allocations (a Clone of the request made 8).
func TestAPIKeyAsBearer(t *testing.T) {
	r := httptest.NewRequest("PATCH", "http://127.0.0.1/api/v1/servers/localhost/zones/a.test.", strings.NewReader("{}"))
	r.Header.Set("X-API-Key", "k1")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Add("Accept", "a/b")
	r2 := APIKeyAsBearer(r)
	if got := r2.Header.Get("Authorization"); got != "Bearer k1" {
		t.Fatalf("Authorization %q, want the key as a bearer token", got)
	}
	if r2.Header.Get("Content-Type") != "application/json" || r2.Header.Get("X-API-Key") != "k1" || r2.URL.Path != r.URL.Path || r2.Context() != r.Context() {
		t.Fatal("the request returned lost what the request given holds")
	}
	if r.Header.Get("Authorization") != "" {
		t.Fatal("the request given was changed")
	}
	r2.Header.Add("Accept", "c/d")
	if got := r.Header.Values("Accept"); len(got) != 1 || got[0] != "a/b" {
		t.Fatalf("an Add to the returned request's header changed the given one's: %q", got)
	}
	sent := httptest.NewRequest("GET", "http://127.0.0.1/api/v1/servers", nil)
	sent.Header.Set("X-API-Key", "k1")
	sent.Header.Set("Authorization", "Bearer other")
	if APIKeyAsBearer(sent) != sent {
		t.Fatal("an Authorization header sent does not win")
	}
	if n := testing.AllocsPerRun(200, func() { _ = APIKeyAsBearer(r) }); n > 5 {
		t.Fatalf("APIKeyAsBearer: %.0f allocations, want at most 5", n)
	}
}

func BenchmarkAPIKeyAsBearer(b *testing.B) {
	r := httptest.NewRequest("PATCH", "http://127.0.0.1/api/v1/servers/localhost/zones/bench.test.", strings.NewReader("{}"))
	r.Header.Set("X-API-Key", "zoneapi-test-token-7c1e")
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("User-Agent", "Go-http-client/1.1")
	r.Header.Set("Accept-Encoding", "gzip")
	b.ReportAllocs()
	for b.Loop() {
		_ = APIKeyAsBearer(r)
	}
}
