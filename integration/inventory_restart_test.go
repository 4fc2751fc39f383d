package integration

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// gatedStats is a reverse proxy in front of named's statistics channel
// that refuses every request (503) while closed is set and counts those
// it passes in reads. It returns the proxy's host:port.
func gatedStats(t testing.TB, statsAddr string, reads *atomic.Int64, closed *atomic.Bool) string {
	t.Helper()
	target, _ := url.Parse("http://" + statsAddr)
	rp := httputil.NewSingleHostReverseProxy(target)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if closed.Load() {
			http.Error(w, "closed by the test", http.StatusServiceUnavailable)
			return
		}
		reads.Add(1)
		rp.ServeHTTP(w, r)
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return ln.Addr().String()
}

// TestInventoryKeptAcrossRestart: Caddy keeps what its inventory learned
// (named's zones per view and where each comes from) in the zone
// directory. A new Caddy answers its first all=true page from that,
// sources included, while named's statistics channel refuses every read
// (none passes before the answer): before, the first page waited for a
// read of the statistics channel (seconds at 100,000 zones) and failed
// here. Once the channel answers, the refresh shows the zone removed and
// the zone added while Caddy was down.
func TestInventoryKeptAcrossRestart(t *testing.T) {
	ns := originServer(t)
	var reads atomic.Int64
	var closed atomic.Bool
	stats := gatedStats(t, ns.StatsAddr, &reads, &closed)
	opts := caddyOpts{extra: viewsCaddyfile(ns) + fmt.Sprintf(`
			statistics_channel %s
			inventory_refresh 1s`, stats)}
	c := startCaddy(t, ns, opts)
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("api1.test")), http.StatusCreated, "create in external (the default view)")
	want := []string{
		"api1.test/external true api",
		"conf1.test/external false named.conf",
		"conf2.test/internal false named.conf",
		"nzd1.test/external false nzd",
		"nzd2.test/external false nzd",
		"nzd3.test/internal false nzd",
	}
	kept := filepath.Join(ns.ZoneDir, ".zoneapi", "inventory.kept")
	waitFor(t, "the inventory to classify every zone and keep it", func() bool {
		data, _ := os.ReadFile(kept)
		return strings.Join(listAll(t, c, testToken, "", 100), "\n") == strings.Join(want, "\n") &&
			strings.Contains(string(data), "nzd3.test\tinternal\tprimary\t22\tnzd\n")
	})
	c.Stop()

	// While Caddy is down: a zone goes, another comes; and named's
	// statistics channel refuses every read.
	if out, err := ns.RNDC("delzone", "nzd2.test", "IN", "external"); err != nil {
		t.Fatalf("rndc delzone: %v %s", err, out)
	}
	p, err := ns.WriteViewZone("external", "nzd4.test", testbind.MinimalZone("nzd4.test", 33))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("addzone", "nzd4.test", "IN", "external", fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
		t.Fatalf("rndc addzone: %v %s", err, out)
	}
	closed.Store(true)
	reads.Store(0)
	c = startCaddy(t, ns, opts)
	first := listAll(t, c, testToken, "", 100)
	if n := reads.Load(); n != 0 {
		t.Errorf("%d statistics-channel reads passed while it was closed", n)
	}
	// The first page is what the last run kept (docs/performance.md):
	// nzd2 still, no nzd4 yet.
	if strings.Join(first, "\n") != strings.Join(want, "\n") {
		t.Errorf("first all=true list after the restart:\n%s\nwant what was kept:\n%s", strings.Join(first, "\n"), strings.Join(want, "\n"))
	}

	closed.Store(false)
	after := []string{
		"api1.test/external true api",
		"conf1.test/external false named.conf",
		"conf2.test/internal false named.conf",
		"nzd1.test/external false nzd",
		"nzd3.test/internal false nzd",
		"nzd4.test/external false nzd",
	}
	var got []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		got = listAll(t, c, testToken, "", 100)
		if strings.Join(got, "\n") == strings.Join(after, "\n") || time.Now().After(deadline) {
			break
		}
	}
	if strings.Join(got, "\n") != strings.Join(after, "\n") {
		t.Errorf("after the refresh:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(after, "\n"))
	}
	if reads.Load() == 0 {
		t.Error("no statistics-channel read after it opened")
	}
}
