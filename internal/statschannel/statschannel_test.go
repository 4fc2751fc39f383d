package statschannel

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
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
