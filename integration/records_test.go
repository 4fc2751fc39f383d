package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// tcpAnswers asks named over TCP and returns the rdata of the records of
// name and type in the answer and authority sections, sorted.
func tcpAnswers(t testing.TB, ns *testbind.Server, name string, qtype uint16) []string {
	t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	cl := &dns.Client{Net: "tcp", Timeout: 2 * time.Second}
	in, _, err := cl.Exchange(m, ns.DNSAddr)
	if err != nil {
		t.Fatalf("query %s: %v", name, err)
	}
	var out []string
	for _, rr := range append(in.Answer, in.Ns...) {
		if rr.Header().Rrtype == qtype && strings.EqualFold(rr.Header().Name, dns.Fqdn(name)) {
			out = append(out, zonemodel.RDataText(rr))
		}
	}
	slices.Sort(out)
	return out
}

func serialOf(t testing.TB, ns *testbind.Server, zone string) uint32 {
	t.Helper()
	in := query(t, ns, zone, dns.TypeSOA)
	if len(in.Answer) != 1 {
		t.Fatalf("no SOA for %s: %v", zone, in)
	}
	return in.Answer[0].(*dns.SOA).Serial
}

// axfr transfers the zone with the TSIG key.
func axfr(t testing.TB, ns *testbind.Server, zone string) []dns.RR {
	t.Helper()
	tr := &dns.Transfer{TsigSecret: map[string]string{ns.TSIGKeyName + ".": ns.TSIGSecret}}
	m := new(dns.Msg)
	m.SetAxfr(zone + ".")
	m.SetTsig(ns.TSIGKeyName+".", dns.HmacSHA256, 300, time.Now().Unix())
	env, err := tr.In(m, ns.DNSAddr)
	if err != nil {
		t.Fatal(err)
	}
	var out []dns.RR
	for e := range env {
		if e.Error != nil {
			t.Fatal(e.Error)
		}
		out = append(out, e.RR...)
	}
	return out[:len(out)-1]
}

// TestRecordsTypes adds one record of every supported type through the
// API and checks that named serves exactly what the API says it stored.
func TestRecordsTypes(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "rt.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	hex64 := strings.Repeat("AB", 32)
	long := strings.Repeat("x", 300)
	cases := []struct {
		name, typ, value string
		prio             int
		want             string
	}{
		{"a", "A", "192.0.2.10", -1, "192.0.2.10"},
		{"a6", "aaaa", "2001:DB8::10", -1, "2001:db8::10"},
		{"alias", "CNAME", "www", -1, "www.rt.test."},
		{"mx", "MX", "ns1.rt.test.", 20, "20 ns1.rt.test."},
		{"spf", "TXT", "v=spf1 mx -all", -1, `"v=spf1 mx -all"`},
		{"quoted", "TXT", `say "hi"; ok`, -1, `"say \"hi\"; ok"`},
		{"multi", "TXT", `"part one" "part two"`, -1, `"part one" "part two"`},
		{"long", "TXT", long, -1, `"` + long[:255] + `" "` + long[255:] + `"`},
		{"sub", "NS", "ns1.example.net.", -1, "ns1.example.net."},
		{"sub", "DS", "12345 13 2 " + hex64, -1, "12345 13 2 " + hex64},
		{"ptr", "PTR", "host.example.net.", -1, "host.example.net."},
		{"_sip._tcp", "SRV", "5 5060 sip.rt.test.", 10, "10 5 5060 sip.rt.test."},
		{"@", "CAA", `0 issue "letsencrypt.org"`, -1, `0 issue "letsencrypt.org"`},
		{"_443._tcp.www", "TLSA", "3 1 1 " + hex64, -1, "3 1 1 " + strings.ToLower(hex64)},
		{"ssh", "SSHFP", "4 2 " + hex64, -1, "4 2 " + hex64},
		{"naptr", "NAPTR", `100 10 "S" "SIP+D2U" "" _sip._udp.rt.test.`, -1, `100 10 "S" "SIP+D2U" "" _sip._udp.rt.test.`},
		{"svc", "SVCB", "1 svc.rt.test. alpn=h2,h3 port=8443", -1, `1 svc.rt.test. alpn="h2,h3" port="8443"`},
		{"www", "HTTPS", "1 . alpn=h2", -1, `1 . alpn="h2"`},
		{"gen", "TYPE65280", `\# 3 abcdef`, -1, `\# 3 abcdef`},
	}
	for _, tc := range cases {
		body := map[string]any{"name": tc.name, "type": tc.typ, "value": tc.value, "ttl": 120}
		if tc.prio >= 0 {
			body["priority"] = tc.prio
		}
		r := c.do("POST", "/api/v1/zones/"+zone+"/records", body)
		expect(t, r, http.StatusCreated, tc.typ+" "+tc.name)
		rec, _ := r.body["record"].(map[string]any)
		fqdn := zone + "."
		if tc.name != "@" {
			fqdn = tc.name + "." + fqdn
		}
		if rec["name"] != fqdn || rec["ttl"] != float64(120) || rec["value"] != tc.want {
			t.Errorf("%s %s: stored %v, want %s %q", tc.typ, tc.name, rec, fqdn, tc.want)
		}
		if r.body["serial"] == nil || r.header.Get("ETag") == "" {
			t.Errorf("%s: no serial/ETag: %s", tc.typ, r.raw)
		}
		qt, _ := dns.StringToType[strings.ToUpper(tc.typ)]
		if qt == 0 {
			qt = 65280
		}
		if got := tcpAnswers(t, ns, fqdn, qt); !slices.Contains(got, tc.want) {
			t.Errorf("%s %s: named answers %q, want %q", tc.typ, tc.name, got, tc.want)
		}
		// Reads return the same.
		r = c.do("GET", "/api/v1/zones/"+zone+"/records?name="+tc.name+"&type="+tc.typ, nil)
		expect(t, r, 200, "read "+tc.typ)
		sets, _ := r.body["rrsets"].([]any)
		if len(sets) != 1 || !slices.Contains(sets[0].(map[string]any)["values"].([]any), any(tc.want)) {
			t.Errorf("read %s %s: %s", tc.typ, tc.name, r.raw)
		}
	}

	// Errors list every problem with its field; priority only for MX/SRV.
	r := c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "a b", "type": "A", "value": "300.1.1.1", "priority": 1})
	expectError(t, r, 400, "Bad Request", "name:")
	for _, f := range []string{"value:", "priority:"} {
		if !strings.Contains(r.str("message"), f) {
			t.Errorf("message %q lacks %s", r.str("message"), f)
		}
	}
	// named refuses an MX to an in-zone name without an address.
	r = c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "mx", "type": "MX", "value": "nowhere", "priority": 5})
	expectError(t, r, 409, "Conflict", "no A or AAAA")
	// Out of zone.
	for _, n := range []string{"www.other.test.", "xrt.test.", "rt.test.org."} {
		r = c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": n, "type": "A", "value": "192.0.2.1"})
		expectError(t, r, 400, "Bad Request", "outside the zone")
	}
	// SOA and apex NS rules.
	r = c.do("DELETE", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "@", "type": "NS"})
	expectError(t, r, 409, "Conflict", "without name servers")
	r = c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "@", "type": "SOA", "value": "a. b. 1 2 3 4 5"})
	expectError(t, r, 409, "Conflict", "SOA")
	// Unknown zone.
	r = c.do("POST", "/api/v1/zones/nope.test/records", map[string]any{"name": "a", "type": "A", "value": "192.0.2.1"})
	expectError(t, r, 404, "Not Found", "nope.test")
}

// TestRecordsLifecycle drives POST, PUT, DELETE, PATCH, reads, export,
// frozen zones and If-Match.
func TestRecordsLifecycle(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "life.test"
	base := "/api/v1/zones/" + zone + "/records"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")

	// Default TTL is the zone's; bindcar-style absolute name.
	r := c.do("POST", base, map[string]any{"name": "api.life.test", "type": "A", "value": "192.0.2.1"})
	expect(t, r, 201, "add")
	if rec := r.body["record"].(map[string]any); rec["ttl"] != float64(3600) || rec["name"] != "api.life.test." {
		t.Errorf("add: %s", r.raw)
	}
	expect(t, c.do("POST", base, map[string]any{"name": "api", "type": "A", "value": "192.0.2.2"}), 201, "add 2")
	expect(t, c.do("POST", base, map[string]any{"name": "api", "type": "A", "value": "192.0.2.3"}), 201, "add 3")

	// PUT on a missing value: 404, nothing changed.
	s0 := serialOf(t, ns, zone)
	r = c.do("PUT", base, map[string]any{"name": "api", "type": "A", "currentValue": "192.0.2.99", "newValue": "192.0.2.4"})
	expectError(t, r, 404, "Not Found", "not found")
	if serialOf(t, ns, zone) != s0 || len(tcpAnswers(t, ns, "api."+zone, dns.TypeA)) != 3 {
		t.Fatal("PUT on a missing value changed the zone")
	}
	r = c.do("PUT", base, map[string]any{"name": "api", "type": "A", "currentValue": "192.0.2.1", "newValue": "192.0.2.4", "ttl": 60})
	expect(t, r, 200, "put")
	if got := tcpAnswers(t, ns, "api."+zone, dns.TypeA); !slices.Equal(got, []string{"192.0.2.2", "192.0.2.3", "192.0.2.4"}) {
		t.Errorf("after PUT: %q", got)
	}
	// MX priority on PUT.
	r = c.do("PUT", base, map[string]any{"name": "@", "type": "MX", "currentValue": "mail.life.test.", "newValue": "ns1.life.test.", "priority": 10})
	expect(t, r, 200, "put MX")
	if got := tcpAnswers(t, ns, zone, dns.TypeMX); !slices.Equal(got, []string{"10 ns1.life.test."}) {
		t.Errorf("MX after PUT: %q", got)
	}
	// MX priority on DELETE (the documented body; the spec once refused it).
	expect(t, c.do("POST", base, map[string]any{"name": "@", "type": "MX", "value": "ns1.life.test.", "priority": 20}), 201, "add second MX")
	expect(t, c.do("DELETE", base, map[string]any{"name": "@", "type": "MX", "value": "ns1.life.test.", "priority": 20}), 200, "delete MX by value and priority")
	if got := tcpAnswers(t, ns, zone, dns.TypeMX); !slices.Equal(got, []string{"10 ns1.life.test."}) {
		t.Errorf("MX after DELETE: %q", got)
	}

	// Delete by value, then the RRset.
	v := "192.0.2.2"
	expect(t, c.do("DELETE", base, map[string]any{"name": "api", "type": "A", "value": v}), 200, "delete value")
	if got := tcpAnswers(t, ns, "api."+zone, dns.TypeA); len(got) != 2 {
		t.Errorf("after delete by value: %q", got)
	}
	expect(t, c.do("DELETE", base, map[string]any{"name": "api", "type": "A"}), 200, "delete rrset")
	if got := tcpAnswers(t, ns, "api."+zone, dns.TypeA); len(got) != 0 {
		t.Errorf("after delete rrset: %q", got)
	}
	expect(t, c.do("DELETE", base, map[string]any{"name": "api", "type": "A"}), 200, "delete nothing")

	// CNAME conflicts: 409, nothing changed.
	s0 = serialOf(t, ns, zone)
	r = c.do("POST", base, map[string]any{"name": "www", "type": "CNAME", "value": "api"})
	expectError(t, r, 409, "Conflict", "cannot coexist")
	expect(t, c.do("POST", base, map[string]any{"name": "alias", "type": "CNAME", "value": "www"}), 201, "cname")
	s1 := serialOf(t, ns, zone)
	r = c.do("POST", base, map[string]any{"name": "alias", "type": "TXT", "value": "x"})
	expectError(t, r, 409, "Conflict", "is a CNAME")
	r = c.do("POST", base, map[string]any{"name": "alias", "type": "CNAME", "value": "api"})
	expectError(t, r, 409, "Conflict", "already has a CNAME")
	if serialOf(t, ns, zone) != s1 || s1 != s0+1 || len(tcpAnswers(t, ns, "www."+zone, dns.TypeCNAME)) != 0 {
		t.Fatal("a refused CNAME change changed the zone")
	}

	// Frozen zone: 409; after thaw: 201.
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/freeze", nil), 200, "freeze")
	r = c.do("POST", base, map[string]any{"name": "cold", "type": "A", "value": "192.0.2.7"})
	expectError(t, r, 409, "Conflict", "zone "+zone+" is frozen")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/thaw", nil), 200, "thaw")
	expect(t, c.do("POST", base, map[string]any{"name": "cold", "type": "A", "value": "192.0.2.7"}), 201, "add after thaw")

	// Batch of 500: one serial bump, all visible.
	s0 = serialOf(t, ns, zone)
	var changes []map[string]any
	for i := 0; i < 500; i++ {
		changes = append(changes, map[string]any{"op": "add", "name": fmt.Sprintf("b%03d", i), "type": "A", "value": fmt.Sprintf("10.0.%d.%d", i/256, i%256)})
	}
	r = c.do("PATCH", base, map[string]any{"changes": changes})
	expect(t, r, 200, "batch 500")
	if r.body["oldSerial"] != float64(s0) || r.body["serial"] != float64(s0+1) || serialOf(t, ns, zone) != s0+1 {
		t.Fatalf("batch serials: %s (was %d)", r.raw, s0)
	}
	n := 0
	for _, rr := range axfr(t, ns, zone) {
		if strings.HasPrefix(rr.Header().Name, "b") && rr.Header().Rrtype == dns.TypeA {
			n++
		}
	}
	if n != 500 {
		t.Fatalf("%d of 500 batch records in the zone", n)
	}

	// A batch with one bad change changes nothing (400), nor one with a
	// CNAME conflict (409).
	bad := []map[string]any{
		{"op": "add", "name": "ok1", "type": "A", "value": "192.0.2.1"},
		{"op": "delete", "name": "b000", "type": "A"},
		{"op": "add", "name": "ok2", "type": "A", "value": "not-an-ip"},
	}
	r = c.do("PATCH", base, map[string]any{"changes": bad})
	expectError(t, r, 400, "Bad Request", "changes[2].value")
	bad[2] = map[string]any{"op": "add", "name": "alias", "type": "A", "value": "192.0.2.1"}
	r = c.do("PATCH", base, map[string]any{"changes": bad})
	expectError(t, r, 409, "Conflict", "changes[2]")
	if serialOf(t, ns, zone) != s0+1 || len(tcpAnswers(t, ns, "ok1."+zone, dns.TypeA)) != 0 || len(tcpAnswers(t, ns, "b000."+zone, dns.TypeA)) != 1 {
		t.Fatal("a refused batch changed the zone")
	}

	// If-Match: reads give the ETag; a stale one is 412.
	r = c.do("GET", base+"?type=A&limit=10", nil)
	expect(t, r, 200, "list")
	tag := r.header.Get("ETag")
	if tag != fmt.Sprintf(`"%d"`, s0+1) || r.body["count"] != float64(10) || r.body["nextCursor"] == nil {
		t.Fatalf("list: etag %s %s", tag, r.raw)
	}
	next := c.do("GET", base+"?type=A&limit=10&cursor="+r.str("nextCursor"), nil)
	expect(t, next, 200, "list page 2")
	if fmt.Sprint(next.body["rrsets"].([]any)[0]) == fmt.Sprint(r.body["rrsets"].([]any)[0]) {
		t.Error("page 2 repeats page 1")
	}
	swap := map[string]any{"changes": []map[string]any{
		{"op": "replace", "name": "b001", "type": "A", "values": []string{"192.0.2.50", "192.0.2.51"}},
		{"op": "delete", "name": "b002", "type": "A"},
		{"op": "add", "name": "b002", "type": "CNAME", "value": "b001"},
	}}
	r = c.doHdr("PATCH", base, swap, map[string]string{"If-Match": tag})
	expect(t, r, 200, "conditional batch")
	if got := tcpAnswers(t, ns, "b001."+zone, dns.TypeA); !slices.Equal(got, []string{"192.0.2.50", "192.0.2.51"}) {
		t.Errorf("replace: %q", got)
	}
	r = c.doHdr("PATCH", base, swap, map[string]string{"If-Match": tag})
	expectError(t, r, 412, "Precondition Failed", "changed")
	r = c.doHdr("POST", base, map[string]any{"name": "late", "type": "A", "value": "192.0.2.1"}, map[string]string{"If-Match": tag})
	expectError(t, r, 412, "Precondition Failed", "changed")

	// Export parses back and equals the AXFR.
	r = c.doHdr("GET", "/api/v1/zones/"+zone+"/export", nil, nil)
	expect(t, r, 200, "export")
	zp := dns.NewZoneParser(bytes.NewReader(r.raw), "", "")
	var got []dns.RR
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		got = append(got, rr)
	}
	if zp.Err() != nil {
		t.Fatal(zp.Err())
	}
	want := axfr(t, ns, zone)
	if len(got) != len(want) {
		t.Fatalf("export has %d records, AXFR %d", len(got), len(want))
	}
	for i := range want {
		if !dns.IsDuplicate(got[i], want[i]) || got[i].Header().Ttl != want[i].Header().Ttl {
			t.Fatalf("export record %d = %v, AXFR %v", i, got[i], want[i])
		}
	}
	if r = c.doHdr("GET", "/api/v1/zones/"+zone+"/export", nil, map[string]string{"If-None-Match": r.header.Get("ETag")}); r.status != 304 {
		t.Errorf("If-None-Match: %d", r.status)
	}
}

// TestRecordBodiesCheckedAgainstSpec: record bodies are validated with the
// schemas of the served API specification, every violation listed by JSON
// pointer, before anything reaches named.
func TestRecordBodiesCheckedAgainstSpec(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("spec.test")), http.StatusCreated, "create")
	cases := []struct {
		method string
		body   string
		ptrs   []string
	}{
		{"POST", `{"name":5,"type":"A","ttl":"60"}`, []string{"/name", "/value", "/ttl"}},
		{"PUT", `{"name":"www","type":"A","newValue":"192.0.2.9","extra":1}`, []string{"/currentValue", "/extra"}},
		{"PATCH", `{"changes":"all"}`, []string{"/changes"}},
	}
	for _, tc := range cases {
		r := c.do(tc.method, "/api/v1/zones/spec.test/records", tc.body)
		expect(t, r, http.StatusBadRequest, tc.method)
		vs, _ := r.body["violations"].([]any)
		var got []string
		for _, v := range vs {
			got = append(got, v.(map[string]any)["pointer"].(string))
		}
		for _, p := range tc.ptrs {
			if !slices.Contains(got, p) {
				t.Errorf("%s: violations %v lack %s (%s)", tc.method, got, p, r.raw)
			}
		}
	}
	if got := answers(query(t, ns, "www.spec.test", dns.TypeA), dns.TypeA); len(got) != 1 || got[0] != "192.0.2.80" {
		t.Errorf("www changed: %v", got)
	}
}

// TestRecordsConcurrentAdds sends adds from many clients at once, as ACME
// clients and controllers do: concurrent adds share UPDATE messages, yet
// every add lands, a conflicting one among them fails alone with 409, and
// the serials in the answers are the zone's.
func TestRecordsConcurrentAdds(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "burst.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "alias", "type": "CNAME", "value": "www"}), http.StatusCreated, "cname")
	before := serialOf(t, ns, zone)

	type result struct {
		status int
		serial float64
		body   string
	}
	const clients, each = 12, 6
	post := func(body map[string]any) result {
		j, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", c.Base+"/api/v1/zones/"+zone+"/records", bytes.NewReader(j))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return result{body: err.Error()}
		}
		defer resp.Body.Close()
		var out struct {
			Serial float64 `json:"serial"`
		}
		raw, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(raw, &out)
		return result{status: resp.StatusCode, serial: out.Serial, body: string(raw)}
	}
	results := make([][]result, clients)
	conflicts := make([]result, each)
	var wg sync.WaitGroup
	for g := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				name := fmt.Sprintf("h%d-%d", g, i)
				if i%2 == 0 { // several TXT values at one name, as for a wildcard certificate
					results[g] = append(results[g], post(map[string]any{"name": "_acme-challenge", "type": "TXT", "value": name}))
				} else {
					results[g] = append(results[g], post(map[string]any{"name": name, "type": "A", "value": "192.0.2.8"}))
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range each {
			conflicts[i] = post(map[string]any{"name": "alias", "type": "A", "value": "192.0.2.9"})
		}
	}()
	wg.Wait()

	top := float64(before)
	for g := range clients {
		for i, r := range results[g] {
			if r.status != http.StatusCreated || r.serial <= float64(before) {
				t.Fatalf("add %d-%d: %d %s", g, i, r.status, r.body)
			}
			top = max(top, r.serial)
		}
	}
	for i, r := range conflicts {
		if r.status != http.StatusConflict {
			t.Fatalf("conflicting add %d: %d %s", i, r.status, r.body)
		}
	}
	if got := serialOf(t, ns, zone); float64(got) != top {
		t.Fatalf("zone serial %d, highest answered %v", got, top)
	}
	var want []string
	for g := range clients {
		for i := 0; i < each; i += 2 {
			want = append(want, fmt.Sprintf("%q", fmt.Sprintf("h%d-%d", g, i)))
		}
		for i := 1; i < each; i += 2 {
			if got := tcpAnswers(t, ns, fmt.Sprintf("h%d-%d.%s", g, i, zone), dns.TypeA); !slices.Equal(got, []string{"192.0.2.8"}) {
				t.Fatalf("h%d-%d: %v", g, i, got)
			}
		}
	}
	slices.Sort(want)
	if got := tcpAnswers(t, ns, "_acme-challenge."+zone, dns.TypeTXT); !slices.Equal(got, want) {
		t.Fatalf("TXT set has %d values, want %d: %v", len(got), len(want), got)
	}
	if got := tcpAnswers(t, ns, "alias."+zone, dns.TypeA); len(got) != 0 {
		t.Fatalf("A beside the CNAME: %v", got)
	}
}
