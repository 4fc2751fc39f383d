package integration

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// What PowerDNS keeps and BIND has no place for (comments, disabled
// records, the zone's kind, account, catalog, SOA-EDIT settings,
// metadata) is kept in the zone's side file, <zone>.pdns.json in the zone
// directory (docs/powerdns.md). These tests run it through the built
// Caddy against a real named.

// pdnsRecs are records of a PowerDNS RRset: content, and disabled when
// it starts with "!".
func pdnsRecs(contents ...string) []any {
	out := []any{}
	for _, c := range contents {
		d := strings.HasPrefix(c, "!")
		out = append(out, map[string]any{"content": strings.TrimPrefix(c, "!"), "disabled": d})
	}
	return out
}

// recordsOf lists an RRset's records as content, "!" before a disabled
// one, sorted.
func recordsOf(set map[string]any) []string {
	var out []string
	recs, _ := set["records"].([]any)
	for _, r := range recs {
		m := r.(map[string]any)
		c, _ := m["content"].(string)
		if m["disabled"] == true {
			c = "!" + c
		}
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// TestPowerDNSSideFile: a create keeps its comments, disabled records and
// attributes (test_create_zone_with_comments, _with_account, _with_catalog,
// _with_soa_edit); named serves only the enabled records; PATCH disables
// and enables records (test_zone_rr_update, test_get_zone_rrset) and
// changes comments (test_zone_comment_create, _stay_intact); PUT changes
// the attributes (test_update_zone); search finds comments
// (test_search_rr_comment); the side file is removed with the zone and a
// zone created again under the name has none of it. Before, comments and
// disabled records were refused (422), the zone came back Master with
// its attributes at their defaults, and PUT refused a catalog.
func TestPowerDNSSideFile(t *testing.T) {
	c := startPDNS(t, "")
	const z = "side.test."
	served := func(name string, qtype uint16) []string {
		got := answers(query(t, c.ns, name, qtype), qtype)
		slices.Sort(got)
		return got
	}
	r := createPDNSZone(t, c, z, map[string]any{"account": "acc1", "catalog": "catalog.invalid.", "soa_edit": "INCEPTION-INCREMENT", "soa_edit_api": "SOA-EDIT-INCREASE",
		"rrsets": []any{
			map[string]any{"name": z, "type": "SOA", "comments": []any{map[string]any{"account": "a", "content": "on the SOA", "modified_at": 11112}}},
			map[string]any{"name": z, "type": "AAAA", "ttl": 3600, "records": pdnsRecs("2001:db8::1"), "comments": []any{map[string]any{"account": "test AAAA", "content": "blah AAAA ö €", "modified_at": 11112}}},
			map[string]any{"name": "www." + z, "type": "A", "ttl": 120, "records": pdnsRecs("192.0.2.1", "!192.0.2.2")},
		}})
	for k, v := range map[string]string{"kind": "Native", "account": "acc1", "catalog": "catalog.invalid.", "soa_edit": "INCEPTION-INCREMENT", "soa_edit_api": "SOA-EDIT-INCREASE"} {
		if r.str(k) != v {
			t.Errorf("created zone's %s = %q, want %q", k, r.str(k), v)
		}
	}
	if got := served("www."+z, dns.TypeA); !slices.Equal(got, []string{"192.0.2.1"}) {
		t.Errorf("named serves www A %v, want only the enabled 192.0.2.1", got)
	}
	g := c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil)
	if got := recordsOf(rrsetOf(g, "www."+z, "A")); !slices.Equal(got, []string{"!192.0.2.2", "192.0.2.1"}) {
		t.Errorf("www A records = %v", got)
	}
	if cs := fmt.Sprint(rrsetOf(g, z, "AAAA")["comments"]); !strings.Contains(cs, "blah AAAA ö €") || !strings.Contains(cs, "11112") {
		t.Errorf("AAAA comments = %s", cs)
	}
	if cs := fmt.Sprint(rrsetOf(g, z, "SOA")["comments"]); !strings.Contains(cs, "on the SOA") {
		t.Errorf("SOA comments = %s", cs)
	}
	l := c.pdns(pdnsKey, "GET", zonesPath+"?zone="+z, nil)
	if !strings.Contains(string(l.raw), `"account":"acc1"`) || !strings.Contains(string(l.raw), `"catalog":"catalog.invalid."`) || !strings.Contains(string(l.raw), `"kind":"Native"`) {
		t.Errorf("list ?zone= = %s", l.raw)
	}

	// Every record of www A disabled: named serves none; GET shows them
	// unless include_disabled=false.
	expect(t, pdnsPatch(c, z, map[string]any{"name": "www." + z, "type": "A", "ttl": 120, "changetype": "REPLACE", "records": pdnsRecs("!192.0.2.1", "!192.0.2.2")}), 204, "disable")
	if got := served("www."+z, dns.TypeA); len(got) != 0 {
		t.Errorf("named serves disabled records: %v", got)
	}
	// Disabling changed what named serves: the history has it, as the
	// removal of the records (the zone API's changes of the zone).
	cs := c.changes(testToken, "/api/v1/zones/side.test/changes")
	if last := cs[len(cs)-1]; last.Type != "records.changed" || len(last.Removed) != 1 || last.Removed[0].Name != "www.side.test" || last.Removed[0].Type != "A" || len(last.Added) != 0 {
		t.Errorf("the history's last change = %v, want www A removed", last)
	}
	g = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"?rrset_name=www."+z, nil)
	if got := recordsOf(rrsetOf(g, "www."+z, "A")); !slices.Equal(got, []string{"!192.0.2.1", "!192.0.2.2"}) {
		t.Errorf("disabled www A = %v (%s)", got, g.raw)
	}
	if g = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"?rrset_name=www."+z+"&include_disabled=false", nil); rrsetOf(g, "www."+z, "A") != nil {
		t.Errorf("include_disabled=false shows %s", g.raw)
	}
	expect(t, pdnsPatch(c, z, map[string]any{"name": "www." + z, "type": "A", "ttl": 120, "changetype": "REPLACE", "records": pdnsRecs("192.0.2.2", "!192.0.2.1")}), 204, "enable one")
	if got := served("www."+z, dns.TypeA); !slices.Equal(got, []string{"192.0.2.2"}) {
		t.Errorf("named serves %v, want 192.0.2.2", got)
	}

	// Comments only, then records only: the comments stay.
	expect(t, pdnsPatch(c, z, map[string]any{"name": z, "type": "NS", "changetype": "REPLACE", "comments": []any{map[string]any{"account": "test1", "content": "oh hi there", "modified_at": 1111}}}), 204, "comments")
	expect(t, pdnsPatch(c, z, rrset(z, "NS", "REPLACE", 3600, "ns1.bar.com.")), 204, "NS")
	ns := rrsetOf(c.pdns(pdnsKey, "GET", zonesPath+"/"+z, nil), z, "NS")
	if cs := fmt.Sprint(ns["comments"]); !strings.Contains(cs, "oh hi there") || !slices.Equal(recordsOf(ns), []string{"ns1.bar.com."}) {
		t.Errorf("NS = %v", ns)
	}
	if got := served(z, dns.TypeNS); !slices.Equal(got, []string{"ns1.bar.com."}) {
		t.Errorf("named serves NS %v", got)
	}

	// Search finds the comment.
	s := c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/search-data?q=blah*", nil)
	if !strings.Contains(string(s.raw), `"object_type":"comment"`) || !strings.Contains(string(s.raw), `"type":"AAAA"`) {
		t.Errorf("search = %s", s.raw)
	}

	// PUT of attributes (test_update_zone).
	expect(t, c.pdns(pdnsKey, "PUT", zonesPath+"/"+z, map[string]any{"kind": "Master", "masters": []string{"192.0.2.1", "192.0.2.2"}, "catalog": "", "soa_edit_api": "EPOCH", "soa_edit": "EPOCH"}), 204, "PUT")
	g = c.pdns(pdnsKey, "GET", zonesPath+"/"+z+"?rrsets=false", nil)
	if g.str("kind") != "Master" || fmt.Sprint(g.body["masters"]) != "[192.0.2.1 192.0.2.2]" || g.str("catalog") != "" || g.str("soa_edit_api") != "EPOCH" || g.str("account") != "acc1" {
		t.Errorf("after PUT: %s", g.raw)
	}

	// The side file goes with the zone.
	side := filepath.Join(c.ns.ZoneDir, "side.test.pdns.json")
	if _, err := os.Stat(side); err != nil {
		t.Fatalf("no side file: %v", err)
	}
	expect(t, c.pdns(pdnsKey, "DELETE", zonesPath+"/"+z, nil), 204, "DELETE")
	if _, err := os.Stat(side); !os.IsNotExist(err) {
		t.Errorf("the side file outlived its zone: %v", err)
	}
	r = createPDNSZone(t, c, z, map[string]any{"kind": "Master"})
	if r.str("account") != "" || r.str("catalog") != "" || r.str("kind") != "Master" || strings.Contains(string(r.raw), "blah") {
		t.Errorf("the new zone shows the old one's data: %s", r.raw)
	}
}

// TestPowerDNSSideFileCrash: the side file is crash-safe as the zone:
// comments and disabled records survive a SIGKILL of Caddy and of named;
// and while PATCHes disable and enable records, Caddy is killed at random
// points (ZONEAPI_PDNS_KILLS, default 8): afterwards every record is
// either served by named or kept disabled (none lost, none both), and
// every acknowledged PATCH's state is what GET shows.
func TestPowerDNSSideFileCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test skipped in -short")
	}
	rng, _ := crashRand(t, 0x51de)
	r := newCrashRigOn(t, startNamed(t), "3s", caddyOpts{extra: "powerdns", handle: "/api*"})
	const z = "crashside.test."
	const n = 6
	sets := []any{map[string]any{"name": z, "type": "AAAA", "ttl": 3600, "records": pdnsRecs("2001:db8::1"),
		"comments": []any{map[string]any{"account": "ops", "content": "kept across crashes", "modified_at": 7}}}}
	for i := 0; i < n; i++ {
		sets = append(sets, map[string]any{"name": fmt.Sprintf("h%d.%s", i, z), "type": "A", "ttl": 60, "records": pdnsRecs("192.0.2.1", "!192.0.2.2")})
	}
	r.must("POST", zonesPath, map[string]any{"name": z, "kind": "Native", "nameservers": []string{"ns1.example.com."}, "account": "acc", "rrsets": sets}, http.StatusCreated)

	check := func(when string, acked map[int][2]bool) {
		t.Helper()
		st, body, raw := r.try("GET", zonesPath+"/"+z, nil)
		if st != 200 {
			t.Fatalf("%s: GET %d %s", when, st, raw)
		}
		gr := &response{status: st, body: body}
		if body["account"] != "acc" || body["kind"] != "Native" {
			t.Errorf("%s: attributes lost: %s", when, raw)
		}
		if cs := fmt.Sprint(rrsetOf(gr, z, "AAAA")["comments"]); !strings.Contains(cs, "kept across crashes") {
			t.Errorf("%s: comment lost: %s", when, cs)
		}
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("h%d.%s", i, z)
			got := recordsOf(rrsetOf(gr, name, "A"))
			srv := answers(query(t, r.ns, name, dns.TypeA), dns.TypeA)
			for _, v := range []string{"192.0.2.1", "192.0.2.2"} {
				on, off := slices.Contains(got, v), slices.Contains(got, "!"+v)
				if on == off {
					t.Errorf("%s: %s %s shown enabled %v and disabled %v: %v", when, name, v, on, off, got)
				}
				if on != slices.Contains(srv, v) {
					t.Errorf("%s: %s %s shown enabled %v, served by named %v", when, name, v, on, srv)
				}
			}
			if a, ok := acked[i]; ok && (slices.Contains(got, "192.0.2.1") != a[0] || slices.Contains(got, "192.0.2.2") != a[1]) {
				t.Errorf("%s: %s = %v, the last acknowledged PATCH made it %v", when, name, got, a)
			}
		}
	}
	check("after create", nil)
	r.killCaddy()
	check("after Caddy's SIGKILL", nil)
	r.killNamed()
	check("after named's SIGKILL", nil)

	kills := envInt("ZONEAPI_PDNS_KILLS", 8)
	acked := map[int][2]bool{}
	var (
		mu                 sync.Mutex
		nAcked, unanswered int
	)
	for round := 0; round < kills; round++ {
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 2; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for j := 0; ; j++ {
					select {
					case <-stop:
						return
					default:
					}
					i := w*n/2 + j%(n/2)
					first := (round+j)%2 == 0
					recs := pdnsRecs("192.0.2.1", "!192.0.2.2")
					if !first {
						recs = pdnsRecs("!192.0.2.1", "192.0.2.2")
					}
					st, _, _ := r.try("PATCH", zonesPath+"/"+z, map[string]any{"rrsets": []any{map[string]any{"name": fmt.Sprintf("h%d.%s", i, z), "type": "A", "ttl": 60, "changetype": "REPLACE", "records": recs}}})
					mu.Lock()
					if st == 204 {
						acked[i] = [2]bool{first, !first}
						nAcked++
					} else {
						unanswered++
						delete(acked, i) // unanswered: either state
					}
					mu.Unlock()
					if st == 0 {
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(30+rng.IntN(300)) * time.Millisecond)
		_ = r.c.Process().Signal(syscall.SIGKILL)
		close(stop)
		wg.Wait()
		<-r.c.Done()
		r.c.Start()
		check(fmt.Sprintf("after kill %d", round+1), acked)
	}
	r.killNamed()
	check("after named's SIGKILL at the end", acked)
	t.Logf("%d kills; %d PATCHes acknowledged, %d not", kills, nAcked, unanswered)
}

// TestPowerDNSCatalogMember: with zone_api's catalog option, every zone
// it creates is a member of that RFC 9432 catalog zone, and the PowerDNS
// API shows it as the zone's catalog, as PowerDNS shows its
// default-catalog-zone (test_create_zone_with_account); a catalog given
// is kept and shown. Before, catalog was always "".
func TestPowerDNSCatalogMember(t *testing.T) {
	c := startPDNS(t, "catalog default-catalog.example.com")
	r := createPDNSZone(t, c, "member.test.", map[string]any{"kind": "Master", "account": "anaccount"})
	if r.str("catalog") != "default-catalog.example.com." || r.str("account") != "anaccount" {
		t.Errorf("created zone = %s", r.raw)
	}
	if got := answers(query(t, c.ns, "version.default-catalog.example.com.", dns.TypeTXT), dns.TypeTXT); len(got) == 0 {
		t.Errorf("named serves no catalog zone")
	}
	m := c.do("GET", "/api/v1/catalog", nil)
	if !strings.Contains(string(m.raw), "member.test") {
		t.Errorf("the catalog lacks the zone: %s", m.raw)
	}
	r = createPDNSZone(t, c, "other.test.", map[string]any{"catalog": "catalog.invalid."})
	if r.str("catalog") != "catalog.invalid." {
		t.Errorf("catalog given = %s", r.str("catalog"))
	}
	// The catalog zone itself is a Producer zone, not a member of
	// itself; creating it is 409, as it exists (before: a Master zone
	// showing itself as its catalog).
	g := c.pdns(pdnsKey, "GET", zonesPath+"/default-catalog.example.com.", nil)
	if g.status != 200 || g.str("kind") != "Producer" || g.str("catalog") != "" {
		t.Errorf("GET the catalog zone = %d %s", g.status, g.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "default-catalog.example.com.", "kind": "Producer"}), 409, "Conflict")
}

// TestPowerDNSAutoprimaries: through Caddy, the autoprimaries routes
// answer as PowerDNS's API (an empty list; adding one 422 with why:
// named has none), where they were 404.
func TestPowerDNSAutoprimaries(t *testing.T) {
	c := startPDNS(t, "")
	r := c.pdns(pdnsKey, "GET", "/api/v1/servers/localhost/autoprimaries", nil)
	if r.status != 200 || strings.TrimSpace(string(r.raw)) != "[]" {
		t.Errorf("GET autoprimaries = %d %s", r.status, r.raw)
	}
	pdnsError(t, c.pdns(pdnsKey, "POST", "/api/v1/servers/localhost/autoprimaries", map[string]any{"ip": "192.0.2.1", "nameserver": "ns.example.com."}), 422, "autoprimaries are not supported")
	pdnsError(t, c.pdns(pdnsKey, "DELETE", "/api/v1/servers/localhost/autoprimaries/192.0.2.1/ns.example.com.", nil), 404, "Could not find autoprimary")
}
