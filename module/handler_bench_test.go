package module

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/config"
)

// fakeNamed answers every UPDATE with NOERROR and SOA queries with one SOA
// record, TSIG-signed: a stand-in below the handler, so that a benchmark
// measures the handler's own work, not named's.
func fakeNamed(tb testing.TB, keyName, secret string) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	soa, _ := dns.NewRR("bench.test. 3600 IN SOA ns1.bench.test. hostmaster.bench.test. 1 3600 600 604800 86400")
	srv := &dns.Server{Listener: l, MaxTCPQueries: -1, MsgAcceptFunc: func(dns.Header) dns.MsgAcceptAction { return dns.MsgAccept }, TsigSecret: map[string]string{dns.Fqdn(keyName): secret}, Handler: dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		if r.Opcode == dns.OpcodeQuery && len(r.Question) == 1 && r.Question[0].Qtype == dns.TypeSOA {
			m.Answer = []dns.RR{soa}
		}
		if t := r.IsTsig(); t != nil {
			m.SetTsig(t.Hdr.Name, t.Algorithm, 300, time.Now().Unix())
		}
		_ = w.WriteMsg(m)
	})}
	go func() { _ = srv.ActivateAndServe() }()
	tb.Cleanup(func() { _ = srv.Shutdown() })
	return l.Addr().String()
}

// BenchmarkAddRecordHandler is one POST /records through the handler
// (routing, auth, schema check, decoding, parsing, the writer, the JSON
// answer) against fakeNamed: the module's cost per add beyond named and
// HTTP.
func BenchmarkAddRecordHandler(b *testing.B) {
	const secret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"
	h := recordsHandler(b, &config.KeyConfig{Name: "zoneapi-update", Algorithm: "hmac-sha256", Secret: secret})
	h.conf.DNSServer = fakeNamed(b, "zoneapi-update", secret)
	i := 0
	for b.Loop() {
		i++
		w := serveRecords(h, "POST", "/api/v1/zones/bench.test/records", fmt.Sprintf(`{"name":"h%d","type":"A","value":"192.0.2.1","ttl":60}`, i), nil)
		if w.Code != 201 {
			b.Fatal(w.Code, w.Body)
		}
	}
}

// BenchmarkBatchHandler is one 1,000-change PATCH /records through the
// handler against fakeNamed: the body read once, checked against the
// schema and decoded, the changes parsed, the UPDATE built, signed and
// sent, the answer encoded.
func BenchmarkBatchHandler(b *testing.B) {
	const secret = "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"
	h := recordsHandler(b, &config.KeyConfig{Name: "zoneapi-update", Algorithm: "hmac-sha256", Secret: secret})
	h.conf.DNSServer = fakeNamed(b, "zoneapi-update", secret)
	body := addsBody(1000)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		w := serveRecords(h, "PATCH", "/api/v1/zones/bench.test/records", body, nil)
		if w.Code != 200 {
			b.Fatal(w.Code, w.Body)
		}
	}
}
