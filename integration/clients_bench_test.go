package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/libdns/libdns"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/client/libdnsprovider"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// durations summarizes samples: mean, median, 99th percentile.
func durations(d []time.Duration) stats {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	var total time.Duration
	for _, v := range s {
		total += v
	}
	return stats{mean: total / time.Duration(len(s)), p50: s[len(s)/2], p99: s[(len(s)*99)/100]}
}

// rawPair returns a function that adds one TXT record with a raw,
// TSIG-signed RFC 2136 UPDATE on a persistent TCP connection and deletes
// it with a second one: the floor of any ACME DNS-01 client.
func rawPair(b testing.TB, ns *testbind.Server, zone string) func(i int) {
	conn, err := net.Dial("tcp", ns.DNSAddr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	secrets := map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}
	send := func(m *dns.Msg) {
		co := &dns.Conn{Conn: conn, TsigSecret: secrets}
		m.SetTsig(ns.TSIGKeyName+".", dns.HmacSHA256, 300, time.Now().Unix())
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if err := co.WriteMsg(m); err != nil {
			b.Fatal(err)
		}
		r, err := co.ReadMsg()
		if err != nil {
			b.Fatal(err)
		}
		if r.Rcode != dns.RcodeSuccess {
			b.Fatalf("raw update: %s", dns.RcodeToString[r.Rcode])
		}
	}
	return func(i int) {
		rr, _ := dns.NewRR(fmt.Sprintf(`_acme-challenge.raw.%s. 60 IN TXT "challenge-%d"`, zone, i))
		m := new(dns.Msg)
		m.SetUpdate(zone + ".")
		m.Insert([]dns.RR{rr})
		send(m)
		m = new(dns.Msg)
		m.SetUpdate(zone + ".")
		m.Remove([]dns.RR{rr})
		send(m)
	}
}

// BenchmarkACMEChallenge measures what an ACME DNS-01 challenge costs the
// record store: one TXT record added and deleted. Three ways in one run,
// alternating in ten rounds: the libdns provider (AppendRecords, then
// DeleteRecords, which reads the RRset to match libdns's rules), the Go
// client's POST and DELETE (no read), and the same two changes as raw
// RFC 2136 UPDATEs (TSIG, persistent TCP). ZONEAPI_BENCH_N sets the number
// of pairs per method (default 200).
func BenchmarkACMEChallenge(b *testing.B) {
	n, _ := strconv.Atoi(envOr("ZONEAPI_BENCH_N", "200"))
	ns := startNamed(b)
	cd := startCaddy(b, ns, caddyOpts{})
	ctx := context.Background()
	c, err := client.New(cd.Base, testToken)
	if err != nil {
		b.Fatal(err)
	}
	const zone = "bench-acme.test"
	createZone(b, c, zone)
	p := &libdnsprovider.Provider{Endpoint: cd.Base, Token: testToken}
	provider := func(i int) {
		rec := libdns.TXT{Name: "_acme-challenge.lib", TTL: time.Minute, Text: fmt.Sprintf("challenge-%d", i)}
		if _, err := p.AppendRecords(ctx, zone+".", []libdns.Record{rec}); err != nil {
			b.Fatal(err)
		}
		if del, err := p.DeleteRecords(ctx, zone+".", []libdns.Record{rec}); err != nil || len(del) != 1 {
			b.Fatalf("DeleteRecords: %v, %v", del, err)
		}
	}
	ttl := uint32(60)
	direct := func(i int) {
		v := fmt.Sprintf("challenge-%d", i)
		if _, err := c.AddRecord(ctx, zone, client.Record{Name: "_acme-challenge.cl", Type: "TXT", Value: v, TTL: &ttl}); err != nil {
			b.Fatal(err)
		}
		if _, err := c.RemoveRecord(ctx, zone, client.RemoveRecord{Name: "_acme-challenge.cl", Type: "TXT", Value: &v}); err != nil {
			b.Fatal(err)
		}
	}
	raw := rawPair(b, ns, zone)
	methods := []struct {
		name string
		f    func(int)
		d    []time.Duration
	}{
		{"libdns provider: AppendRecords + DeleteRecords (API)", provider, nil},
		{"Go client: POST + DELETE (API)", direct, nil},
		{"raw RFC 2136: add UPDATE + delete UPDATE", raw, nil},
	}
	for i := range methods { // warm up connections and caches
		methods[i].f(-1 - i)
	}
	b.ResetTimer()
	for round := range 10 {
		for i := range methods {
			for j := range n / 10 {
				t0 := time.Now()
				methods[i].f(round*n + j)
				methods[i].d = append(methods[i].d, time.Since(t0))
			}
		}
	}
	b.StopTimer()
	base := durations(methods[2].d)
	fmt.Printf("\nACME challenge round trip (one TXT added and deleted), %d pairs each, one named, one run:\n\n", n)
	fmt.Println("| method | mean | p50 | p99 | mean vs raw |")
	fmt.Println("|---|---|---|---|---|")
	for _, m := range methods {
		s := durations(m.d)
		fmt.Printf("| %s | %s | %s | %s | %.2fx |\n", m.name, ms(s.mean), ms(s.p50), ms(s.p99), ratio(s.mean, base.mean))
	}
	if got := answers(query(b, ns, "_acme-challenge.lib."+zone, dns.TypeTXT), dns.TypeTXT); len(got) != 0 {
		b.Errorf("challenge records left behind: %v", got)
	}
}

// BenchmarkExternalDNSRecords measures the webhook's GET /records over
// ZONEAPI_BENCH_ZONES zones (default 50) of ZONEAPI_BENCH_RECORDS records
// each (default 1,000): the first call (an AXFR of every zone), then the
// cached calls (one SOA query per zone; median of 5), then a call after
// one zone changed (one AXFR).
func BenchmarkExternalDNSRecords(b *testing.B) {
	nz, _ := strconv.Atoi(envOr("ZONEAPI_BENCH_ZONES", "50"))
	nr, _ := strconv.Atoi(envOr("ZONEAPI_BENCH_RECORDS", "1000"))
	ns := startNamed(b)
	port := testcaddy.FreePort(b)
	var zones []string
	for i := range nz {
		zones = append(zones, fmt.Sprintf("bench%02d.test", i))
	}
	cd := testcaddy.Start(b, ns, testcaddy.Options{Sites: fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	zone_api_external_dns {
		zones %s
		dns_server %s
		update_key_file %s
	}
}
`, port, strings.Join(zones, " "), ns.DNSAddr, ns.TSIGKeyFile)})
	c, err := client.New(cd.Base, testToken)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, z := range zones {
		recs := make([]client.Record, 0, nr)
		for j := range nr {
			if j%2 == 0 {
				recs = append(recs, client.Record{Name: fmt.Sprintf("h%04d", j), Type: "A", Value: fmt.Sprintf("192.0.2.%d", j%250+1)})
			} else {
				recs = append(recs, client.Record{Name: fmt.Sprintf("h%04d", j-1), Type: "TXT", Value: fmt.Sprintf("heritage=external-dns,external-dns/owner=bench,n=%d", j)})
			}
		}
		if _, err := c.CreateZone(ctx, client.CreateZone{ZoneName: z, ZoneType: "primary", ZoneConfig: &client.ZoneConfig{
			TTL: 3600, SOA: &client.SOA{PrimaryNS: "ns1.example.net.", AdminEmail: "hostmaster@" + z},
			NameServers: []string{"ns1.example.net."}, Records: recs,
		}}); err != nil {
			b.Fatal(err)
		}
	}
	url := fmt.Sprintf("http://127.0.0.1:%d/records", port)
	get := func() (time.Duration, int) {
		t0 := time.Now()
		resp, err := http.Get(url)
		if err != nil {
			b.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("GET /records: %d %v %s", resp.StatusCode, err, body)
		}
		var eps []json.RawMessage
		if err := json.Unmarshal(body, &eps); err != nil {
			b.Fatal(err)
		}
		return d, len(eps)
	}
	b.ResetTimer()
	first, count := get()
	var cached []time.Duration
	for range 5 {
		d, n := get()
		if n != count {
			b.Fatalf("cached call listed %d endpoints, the first %d", n, count)
		}
		cached = append(cached, d)
	}
	if _, err := c.AddRecord(ctx, zones[0], client.Record{Name: "changed", Type: "A", Value: "192.0.2.9"}); err != nil {
		b.Fatal(err)
	}
	afterChange, n2 := get()
	b.StopTimer()
	if n2 != count+1 {
		b.Errorf("after one add: %d endpoints, want %d", n2, count+1)
	}
	cs := durations(cached)
	fmt.Printf("\nexternal-dns webhook GET /records, %d zones of %d records (%d endpoints), one run:\n\n", nz, nr, count)
	fmt.Println("| call | time | vs first |")
	fmt.Println("|---|---|---|")
	fmt.Printf("| first (AXFR of every zone) | %s | 1.00x |\n", ms(first))
	fmt.Printf("| cached (one SOA query per zone; median of 5) | %s | %.3fx |\n", ms(cs.p50), ratio(cs.p50, first))
	fmt.Printf("| after one zone changed (one AXFR) | %s | %.3fx |\n", ms(afterChange), ratio(afterChange, first))
}
