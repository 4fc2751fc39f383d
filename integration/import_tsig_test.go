package integration

import (
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestImportAXFRBadTSIGRefusedBeforeDialling: an import by AXFR whose
// TSIG key cannot be a key (a secret that is not base64, a name that is
// not a domain name) is 400 naming the problem before any connection is
// made (issue 25, defect 4): a listener on the address given records
// whether anything connected, over TCP and UDP. Before, the secret
// "not base64!" dialled the server and answered 502. A well-formed key
// to the same listener does connect (the listener is reachable).
func TestImportAXFRBadTSIGRefusedBeforeDialling(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp", tcp.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	var connected atomic.Int32
	go func() {
		for {
			conn, err := tcp.Accept()
			if err != nil {
				return
			}
			connected.Add(1)
			conn.Close()
		}
	}()
	go func() {
		buf := make([]byte, 512)
		for {
			if _, _, err := udp.ReadFrom(buf); err != nil {
				return
			}
			connected.Add(1)
		}
	}()
	addr := tcp.Addr().String()
	for _, f := range []struct {
		name string
		tsig map[string]any
		msg  string
	}{
		{"secret not base64", map[string]any{"name": "transfer-key", "secret": "not base64!"}, "secret is not base64"},
		{"secret unpadded", map[string]any{"name": "transfer-key", "secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"[:45]}, "secret is not base64"},
		{"name not a domain name", map[string]any{"name": "a..b", "secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}, "not a domain name"},
	} {
		t.Run(f.name, func(t *testing.T) {
			const zone = "tsig-bad.test"
			r := c.do("POST", "/api/v1/zones/"+zone+"/import", map[string]any{"axfr": map[string]any{"address": addr, "tsig": f.tsig}})
			expectError(t, r, http.StatusBadRequest, "Bad Request", f.msg)
			nothingLeft(t, c, ns, zone)
		})
	}
	if n := connected.Load(); n != 0 {
		t.Fatalf("the refused imports made %d connections to %s", n, addr)
	}
	// The control: a well-formed key is tried, so the listener would
	// have seen the refused ones had they dialled.
	r := c.do("POST", "/api/v1/zones/tsig-good.test/import", map[string]any{"axfr": map[string]any{"address": addr,
		"tsig": map[string]any{"name": "transfer-key", "secret": "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}}})
	if r.status < 500 || !strings.Contains(r.str("message"), "tsig-good.test") {
		t.Errorf("the well-formed key's import: %d %s, want a 5xx failure of the transfer", r.status, r.raw)
	}
	for deadline := time.Now().Add(10 * time.Second); connected.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(50 * time.Millisecond)
	}
	if connected.Load() == 0 {
		t.Error("the well-formed key's import never connected: the listener cannot tell")
	}
}
