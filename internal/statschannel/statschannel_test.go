package statschannel

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestServer: the PowerDNS API's read of named's counters asks the
// statistics channel's /json/v1/server, next to the zone list zone_api
// reads, through the one GET of the channel (Get); none without
// a channel, and a status other than 200 is an error.
func TestServer(t *testing.T) {
	const body = `{"opcodes":{"QUERY":3}}`
	var asked string
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked = r.URL.Path
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	if Server("") != nil {
		t.Error("a read without a statistics channel")
	}
	read := Server(srv.URL + "/json/v1/zones")
	b, err := read(context.Background())
	if err != nil || asked != "/json/v1/server" || string(b) != body {
		t.Errorf("read %s: %q, %v", asked, b, err)
	}
	status = http.StatusNotFound
	if _, err := read(context.Background()); err == nil {
		t.Error("a 404 read as counters")
	}
}

// TestOpen: the inventory's read of the zone list is the body as it
// comes, up to max bytes, and a status other than 200 is an error.
func TestOpen(t *testing.T) {
	const body = `{"views":{}}`
	status := http.StatusOK
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(status)
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()
	for _, max := range []int64{1 << 20, 5} {
		r, err := Open(srv.URL+"/json/v1/zones", time.Second, max)(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(r)
		r.Close()
		if want := body[:min(int64(len(body)), max)]; err != nil || string(b) != want {
			t.Errorf("max %d: read %q, %v, want %q", max, b, err, want)
		}
	}
	status = http.StatusServiceUnavailable
	if r, err := Open(srv.URL, time.Second, 1<<20)(context.Background()); err == nil {
		r.Close()
		t.Error("a 503 read as the zone list")
	}
}
