package testbind

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"
)

func TestStartStopRestart(t *testing.T) {
	s := Start(t, nil)
	out, err := s.RNDC("status")
	if err != nil {
		t.Fatalf("rndc status: %v\n%s", err, s.LogTail(20))
	}
	if !strings.Contains(out, "server is up and running") {
		t.Fatalf("unexpected status output:\n%s", out)
	}
	s.Stop()
	s.Stop() // idempotent
	if s.Running() {
		t.Fatal("still running after Stop")
	}
	if _, err := s.RNDC("status"); err == nil {
		t.Fatal("rndc status succeeded with named stopped")
	}
	s.Restart(t)
	if _, err := s.RNDC("status"); err != nil {
		t.Fatalf("rndc status after restart: %v", err)
	}
}

func TestParallelServers(t *testing.T) {
	for i := 0; i < 3; i++ {
		t.Run("", func(t *testing.T) {
			t.Parallel()
			s := Start(t, &Options{RNDCAlgorithm: "hmac-sha512"})
			if _, err := s.RNDC("status"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestPortCollisionRetry occupies the DNS port that the first attempt gets;
// Start must notice and retry on fresh ports.
func TestPortCollisionRetry(t *testing.T) {
	busy, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyTCP, err := net.Listen("tcp", busy.LocalAddr().String())
	if err != nil {
		t.Skip("cannot occupy TCP+UDP port:", err)
	}
	defer busyTCP.Close()
	port := busy.LocalAddr().(*net.UDPAddr).Port
	calls := 0
	pickPorts = func() (int, int, error) {
		calls++
		if calls == 1 {
			_, ctl, err := freePorts()
			return port, ctl, err
		}
		return freePorts()
	}
	defer func() { pickPorts = freePorts }()
	s := Start(t, nil)
	if calls < 2 || strings.HasSuffix(s.DNSAddr, fmt.Sprintf(":%d", port)) {
		t.Fatalf("calls = %d, DNSAddr = %s", calls, s.DNSAddr)
	}
}

// The statistics channel lists the zones named serves.
func TestStatisticsChannel(t *testing.T) {
	s := Start(t, nil)
	p, err := s.WriteZone("stats.test", MinimalZone("stats.test", 7))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := s.RNDC("addzone", "stats.test", fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
		t.Fatal(out, err)
	}
	resp, err := http.Get("http://" + s.StatsAddr + "/json/v1/zones")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"name":"stats.test"`) {
		t.Fatalf("GET /json/v1/zones: %d %.300s", resp.StatusCode, body)
	}
}

// TestZonesLoadedWhenReady: Start and Restart return once named has
// loaded its zones, not as soon as its ports answer: named opens its
// control channel and answers version.bind while it still loads the
// zones added with rndc addzone (its log shows "zone …: loaded serial"
// after "command channel listening"), so a test that queried such a
// zone right after Restart could get SERVFAIL.
func TestZonesLoadedWhenReady(t *testing.T) {
	const n = 120
	s := Start(t, nil)
	for i := range n {
		z := fmt.Sprintf("z%d.test", i)
		p := filepath.Join(s.ZoneDir, z+".zone")
		if err := os.WriteFile(p, []byte(MinimalZone(z, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := s.RNDC("addzone", z, fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
			t.Fatal(out, err)
		}
	}
	check := func(when string) {
		t.Helper()
		for i := range n {
			m := new(dns.Msg)
			m.SetQuestion(fmt.Sprintf("z%d.test.", i), dns.TypeSOA)
			r, _, err := (&dns.Client{Net: "tcp", Timeout: 5 * time.Second}).Exchange(m, s.DNSAddr)
			if err != nil || r.Rcode != dns.RcodeSuccess || len(r.Answer) != 1 {
				t.Fatalf("%s: SOA of z%d.test: %v %v", when, i, r, err)
			}
		}
	}
	check("after the addzones")
	running := func() int {
		b, _ := os.ReadFile(s.LogFile)
		return strings.Count(string(b), " running\n")
	}
	for i := range 5 {
		before := running()
		s.Restart(t)
		if after := running(); after != before+1 {
			t.Fatalf("Restart %d returned before named logged that it loaded its zones and runs", i+1)
		}
		check(fmt.Sprintf("after Restart %d", i+1))
	}
}
