package provider

import (
	"context"
	"encoding/hex"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/frontend/adapter"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// updateRecorder is a fake named (dnsupdate/dnstest) behind a DNS server
// that keeps each UPDATE message it is sent.
type updateRecorder struct {
	named *dnstest.Server
	addr  string

	mu      sync.Mutex
	updates []*dns.Msg
}

func newUpdateRecorder(t *testing.T, zones map[string]string) *updateRecorder {
	t.Helper()
	r := &updateRecorder{named: dnstest.NewServer(t, zones)}
	ln, pc := dnstest.ListenPair(t)
	r.addr = ln.Addr().String()
	h := dns.HandlerFunc(func(w dns.ResponseWriter, m *dns.Msg) {
		if m.Opcode == dns.OpcodeUpdate {
			r.mu.Lock()
			r.updates = append(r.updates, m.Copy())
			r.mu.Unlock()
		}
		r.named.ServeDNS(w, m)
	})
	accept := func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }
	secrets := map[string]string{dnstest.TSIGKey: dnstest.TSIGSecret}
	tcp := &dns.Server{Listener: ln, Handler: h, TsigSecret: secrets, MsgAcceptFunc: accept}
	udp := &dns.Server{PacketConn: pc, Handler: h, TsigSecret: secrets, MsgAcceptFunc: accept}
	go func() { _ = tcp.ActivateAndServe() }()
	go func() { _ = udp.ActivateAndServe() }()
	t.Cleanup(func() { _ = tcp.Shutdown(); _ = udp.Shutdown() })
	return r
}

// wire is each UPDATE sent, packed without its ID and TSIG record (which
// change with every message), in hex.
func (r *updateRecorder) wire(t *testing.T) []string {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.updates {
		m = m.Copy()
		m.Id = 0
		var extra []dns.RR
		for _, rr := range m.Extra {
			if rr.Header().Rrtype != dns.TypeTSIG {
				extra = append(extra, rr)
			}
		}
		m.Extra = extra
		b, err := m.Pack()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, hex.EncodeToString(b))
	}
	return out
}

// wireProvider is the provider as the zone_api_external_dns handler
// builds it (externaldns/handler.go), over the zone service of an updater
// of addr.
func wireProvider(t *testing.T, addr string, zones ...string) *Provider {
	t.Helper()
	key := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: dns.HmacSHA256, Secret: dnstest.TSIGSecret}
	c, err := dnsupdate.NewClient(addr, key, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u := dnsupdate.NewUpdater(c)
	t.Cleanup(u.Close)
	srv := zoneservice.NewServer(zoneservice.ServerConfig{Root: zoneservice.ViewParts{Updater: u}})
	root := srv.Root()
	zs := adapter.Zones{Service: func(context.Context) (*zoneservice.Service, error) { return root, nil }}
	return &Provider{Zones: zones, Service: zs}
}

// TestApplyChangesWire: the UPDATE messages ApplyChanges sends named, byte
// for byte (their ID and TSIG aside), for every kind of change and
// prerequisite: the updateOld RRsets exactly as read (value-dependent
// RRset exists), the creates' RRset does not exist, the replaced RRsets
// deleted, the deletes record by record, a TTL taken from the zone's SOA,
// a TXT target quoted, names relative to the root. The bytes were
// recorded before the provider went over the front ends' contract
// (zonemodel.Precondition), which must send the same.
func TestApplyChangesWire(t *testing.T) {
	rec := newUpdateRecorder(t, map[string]string{
		"example.com": "@ 3600 IN SOA ns.example.com. admin.example.com. 1 3600 600 86400 300\n@ 3600 IN NS ns.example.com.\n" +
			"app 300 IN A 192.0.2.1\napp 300 IN A 192.0.2.2\nold 300 IN CNAME app\nmx 300 IN MX 10 mail.example.com.\n",
		"k8s.example.org": "@ 600 IN SOA ns.example.com. admin.example.com. 7 3600 600 86400 300\n@ 600 IN NS ns.example.com.\n",
	})
	pr := wireProvider(t, rec.addr, "example.com", "k8s.example.org")
	ch := &Changes{
		UpdateOld: []*Endpoint{
			{DNSName: "app.example.com", RecordType: "A", Targets: []string{"192.0.2.1", "192.0.2.2"}, RecordTTL: 300},
			{DNSName: "MX.example.com.", RecordType: "mx", Targets: []string{"10 mail.example.com"}},
		},
		UpdateNew: []*Endpoint{
			{DNSName: "app.example.com", RecordType: "A", Targets: []string{"192.0.2.3"}, RecordTTL: 120},
			{DNSName: "mx.example.com", RecordType: "MX", Targets: []string{"20 mail2.example.com", "30 mail3"}},
		},
		Create: []*Endpoint{
			{DNSName: "new.k8s.example.org", RecordType: "TXT", Targets: []string{`heritage=external-dns,"owner"`}},
			{DNSName: "srv.example.com", RecordType: "SRV", Targets: []string{"1 2 443 app.example.com"}, RecordTTL: 60},
			{DNSName: "www.k8s.example.org", RecordType: "CNAME", Targets: []string{"app.example.com"}, RecordTTL: 60},
		},
		Delete: []*Endpoint{
			{DNSName: "old.example.com", RecordType: "CNAME", Targets: []string{"app.example.com"}, RecordTTL: 300},
			{DNSName: "txt.k8s.example.org", RecordType: "TXT", Targets: []string{`"a" "b"`}},
		},
	}
	var applied []string
	if err := pr.ApplyChanges(context.Background(), ch, func(zone string, n int) {
		applied = append(applied, zone+":"+strings.Repeat("+", n))
	}); err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(applied, " "), "example.com:+++++++ k8s.example.org:+++"; got != want {
		t.Errorf("applied %s, want %s", got, want)
	}
	got := rec.wire(t)
	if len(got) != len(wireWant) {
		t.Fatalf("%d UPDATE messages sent, want %d:\n%s", len(got), len(wireWant), strings.Join(got, "\n"))
	}
	for i := range got {
		if got[i] != wireWant[i] {
			t.Errorf("UPDATE %d:\n got %s\nwant %s", i, got[i], wireWant[i])
		}
	}
}

// wireWant are the UPDATE messages of TestApplyChangesWire, as the
// provider sent them when it built its RRs itself (commit b19c293).
var wireWant = []string{
	"000028000001000500080000076578616d706c6503636f6d0000060001076578616d706c6503636f6d0000060001000000000037026e73076578616d706c6503636f6d000561646d696e076578616d706c6503636f6d000000000100000e1000000258000151800000012c03617070076578616d706c6503636f6d0000010001000000000004c000020103617070076578616d706c6503636f6d0000010001000000000004c0000202026d78076578616d706c6503636f6d00000f0001000000000014000a046d61696c076578616d706c6503636f6d0003737276076578616d706c6503636f6d00002100fe000000000006000000000000076578616d706c6503636f6d000006000100000e100037026e73076578616d706c6503636f6d000561646d696e076578616d706c6503636f6d000000000200000e1000000258000151800000012c03617070076578616d706c6503636f6d00000100ff00000000000003617070076578616d706c6503636f6d0000010001000000780004c0000203026d78076578616d706c6503636f6d00000f00ff0000000000020000026d78076578616d706c6503636f6d00000f000100000e1000150014056d61696c32076578616d706c6503636f6d00026d78076578616d706c6503636f6d00000f000100000e100009001e056d61696c330003737276076578616d706c6503636f6d00002100010000003c00170001000201bb03617070076578616d706c6503636f6d00036f6c64076578616d706c6503636f6d00000500fe00000000001103617070076578616d706c6503636f6d00",
	"000028000001000300040000036b3873076578616d706c65036f72670000060001036b3873076578616d706c65036f72670000060001000000000037026e73076578616d706c6503636f6d000561646d696e076578616d706c6503636f6d000000000700000e1000000258000151800000012c036e6577036b3873076578616d706c65036f726700001000fe00000000000003777777036b3873076578616d706c65036f726700000500fe000000000000036b3873076578616d706c65036f72670000060001000002580037026e73076578616d706c6503636f6d000561646d696e076578616d706c6503636f6d000000000800000e1000000258000151800000012c036e6577036b3873076578616d706c65036f7267000010000100000258001e1d68657269746167653d65787465726e616c2d646e732c226f776e65722203777777036b3873076578616d706c65036f726700000500010000003c001103617070076578616d706c6503636f6d0003747874036b3873076578616d706c65036f726700001000fe00000000000401610162",
}
