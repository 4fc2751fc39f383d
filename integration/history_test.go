package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// change is a history entry as the API answers it.
type change struct {
	ID           string       `json:"id"`
	Zone         string       `json:"zone"`
	View         string       `json:"view"`
	Type         string       `json:"type"`
	Source       string       `json:"source"`
	Identity     string       `json:"identity"`
	Frontend     string       `json:"frontend"`
	RequestID    string       `json:"request_id"`
	SerialBefore *uint32      `json:"serial_before"`
	SerialAfter  *uint32      `json:"serial_after"`
	Added        []changeRset `json:"added"`
	Removed      []changeRset `json:"removed"`
}

type changeRset struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	TTL     uint32   `json:"ttl"`
	Records []string `json:"records"`
}

// String is the change in one line, for failure messages.
func (c change) String() string {
	s := func(p *uint32) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	return fmt.Sprintf("%s %s %s/%s %s->%s +%v -%v", c.ID, c.Type, c.Source, c.Identity, s(c.SerialBefore), s(c.SerialAfter), c.Added, c.Removed)
}

// changes reads every change of path (a /changes URL) as tok, following
// next_cursor.
func (c *caddy) changes(tok, path string) []change {
	c.t.Helper()
	var all []change
	cursor := ""
	for {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		url := path
		if cursor != "" {
			url += sep + "cursor=" + cursor
		}
		r := c.as(tok, "GET", url, nil)
		expect(c.t, r, http.StatusOK, "GET "+url)
		var page struct {
			Changes    []change `json:"changes"`
			Count      int      `json:"count"`
			NextCursor string   `json:"next_cursor"`
		}
		if err := json.Unmarshal(r.raw, &page); err != nil {
			c.t.Fatal(err)
		}
		if page.Count != len(page.Changes) {
			c.t.Fatalf("count %d for %d changes", page.Count, len(page.Changes))
		}
		all = append(all, page.Changes...)
		if page.NextCursor == "" {
			return all
		}
		cursor = page.NextCursor
	}
}

// historyNamed starts named sending a NOTIFY for every change to a port
// of its own (returned, for the API's notify_listen), and keeping a
// journal of every reload (ixfr-from-differences), as docs/history.md
// asks of named.conf.
func historyNamed(t testing.TB) (*testbind.Server, int) {
	t.Helper()
	port, _, err := testbind.FreePorts()
	if err != nil {
		t.Fatal(err)
	}
	return testbind.Start(t, &testbind.Options{ExtraOptions: fmt.Sprintf("also-notify { 127.0.0.1 port %d; };\n\tixfr-from-differences yes;", port)}), port
}

// TestHistoryThroughCaddy: through the built Caddy and a real named, a
// sequence of API changes (by two identities), one nsupdate change and one
// zone file edited and reloaded by rndc appear in the history in order,
// each with its identity or "external", the RRsets added and removed, and
// serials that chain; a token scoped to _acme-challenge TXT sees only its
// part, in the zone's history and across zones.
func TestHistoryThroughCaddy(t *testing.T) {
	ns, port := historyNamed(t)
	tok, hash := tokens(t, "admin", "acme")
	extra := fmt.Sprintf(`auth static {
				token admin %s
				token acme %s {
					actions records read
					zones hist.test
					names _acme-challenge.*
					types TXT
				}
			}
			history {
				notify_listen 127.0.0.1:%d
			}`, hash["admin"], hash["acme"], port)
	c := startCaddy(t, ns, caddyOpts{extra: extra})
	const zone = "hist.test"
	expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", zoneBody("other.test")), http.StatusCreated, "create other")

	// API changes: an add with a request id of the client's, an add by
	// the scoped token, a replace, an RRset delete.
	r := c.send("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "www2", "type": "A", "value": "192.0.2.10", "ttl": 120},
		map[string]string{"Authorization": "Bearer " + tok["admin"], "X-Request-Id": "req-add-www2"})
	expect(t, r, http.StatusCreated, "add www2")
	expect(t, c.as(tok["acme"], "POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "_acme-challenge", "type": "TXT", "value": "tok-1"}), http.StatusCreated, "acme add")
	expect(t, c.as(tok["admin"], "PUT", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "www2", "type": "A", "currentValue": "192.0.2.10", "newValue": "192.0.2.11", "ttl": 120}), http.StatusOK, "replace www2")
	expect(t, c.as(tok["admin"], "POST", "/api/v1/zones/other.test/records", map[string]any{"name": "x", "type": "A", "value": "192.0.2.5"}), http.StatusCreated, "add in other")

	// nsupdate, behind the API's back.
	host, dport, _ := net.SplitHostPort(ns.DNSAddr)
	cmd := exec.Command(nsupdatePath, "-v", "-k", ns.TSIGKeyFile)
	cmd.Stdin = strings.NewReader(fmt.Sprintf("server %s %s\nzone %s\nupdate add ext.%s. 60 IN A 192.0.2.99\nupdate delete www.%s. A\nsend\n", host, dport, zone, zone, zone))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nsupdate: %v: %s", err, out)
	}
	waitFor(t, "the nsupdate change in the history", func() bool {
		cs := c.changes(tok["admin"], "/api/v1/zones/"+zone+"/changes")
		return len(cs) > 0 && cs[len(cs)-1].Source == "external"
	})

	// The zone file edited and reloaded with rndc: a dynamic zone is
	// frozen, edited and thawed (`rndc thaw` reloads it; named sends no
	// NOTIFY for a reload while the zone is frozen, see docs/history.md).
	if out, err := ns.RNDC("freeze", zone); err != nil {
		t.Fatalf("rndc freeze: %v %s", err, out)
	}
	file := filepath.Join(ns.ZoneDir, zone+".zone")
	if z := c.as(tok["admin"], "GET", "/api/v1/zones/"+zone, nil); z.str("file") != "" {
		file = z.str("file")
	}
	editZoneFile(t, ns, zone, file, "filed."+zone+". 300 IN A 192.0.2.77")
	if out, err := ns.RNDC("thaw", zone); err != nil {
		t.Fatalf("rndc thaw: %v %s", err, out)
	}
	defer func() {
		if t.Failed() {
			for _, ch := range c.changes(tok["admin"], "/api/v1/zones/"+zone+"/changes") {
				t.Log(ch)
			}
			t.Log(ns.LogTail(40))
		}
	}()
	waitFor(t, "the file edit in the history", func() bool {
		for _, ch := range c.changes(tok["admin"], "/api/v1/zones/"+zone+"/changes") {
			for _, a := range ch.Added {
				if a.Name == "filed."+zone {
					return true
				}
			}
		}
		return false
	})
	// And the API again, after both.
	waitFor(t, "the zone takes updates after thaw", func() bool {
		return c.as(tok["admin"], "DELETE", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "www2", "type": "A"}).status == http.StatusOK
	})

	cs := c.changes(tok["admin"], "/api/v1/zones/"+zone+"/changes")
	for _, ch := range cs {
		t.Log(ch)
	}
	type want struct {
		typ, source, identity string
		added, removed        string // "name TYPE data" of the first RRset, "" none
	}
	wants := []want{
		{"zone.created", "api", "static:admin", "", ""},
		{"records.changed", "api", "static:admin", "www2.hist.test A 192.0.2.10", ""},
		{"records.changed", "api", "static:acme", `_acme-challenge.hist.test TXT "tok-1"`, ""},
		{"records.changed", "api", "static:admin", "www2.hist.test A 192.0.2.11", "www2.hist.test A 192.0.2.10"},
		{"records.changed", "external", "", "ext.hist.test A 192.0.2.99", "www.hist.test A 192.0.2.80"},
		{"records.changed", "external", "", "filed.hist.test A 192.0.2.77", ""},
		{"records.changed", "api", "static:admin", "", "www2.hist.test A 192.0.2.11"},
	}
	if len(cs) != len(wants) {
		t.Fatalf("%d changes, want %d", len(cs), len(wants))
	}
	first := func(rs []changeRset) string {
		if len(rs) == 0 {
			return ""
		}
		return rs[0].Name + " " + rs[0].Type + " " + strings.Join(rs[0].Records, ",")
	}
	var prev *uint32
	for i, w := range wants {
		ch := cs[i]
		if ch.Type != w.typ || ch.Source != w.source || ch.Identity != w.identity || first(ch.Added) != w.added || first(ch.Removed) != w.removed {
			t.Errorf("change %d: %s; want %+v", i, ch, w)
		}
		if ch.SerialAfter == nil {
			t.Errorf("change %d has no serial after", i)
			continue
		}
		if i > 0 && (ch.SerialBefore == nil || prev == nil || *ch.SerialBefore != *prev) {
			t.Errorf("change %d: serial before does not follow the previous change's serial after: %s", i, ch)
		}
		if w.source == "api" && ch.Frontend != "rest" || w.source == "external" && ch.Frontend != "" {
			t.Errorf("change %d: frontend %q", i, ch.Frontend)
		}
		prev = ch.SerialAfter
	}
	if cs[1].RequestID != "req-add-www2" || cs[2].RequestID == "" {
		t.Errorf("request ids: %q, %q", cs[1].RequestID, cs[2].RequestID)
	}
	if serial, ok := soaOn(ns, zone); !ok || *prev != serial {
		t.Errorf("last serial %d, zone at %d", *prev, serial)
	}

	// The scoped token: only its TXT change, in the zone's history and
	// across zones; nothing of the other zone.
	for _, path := range []string{"/api/v1/zones/" + zone + "/changes", "/api/v1/changes"} {
		got := c.changes(tok["acme"], path)
		if len(got) != 1 || got[0].Identity != "static:acme" || len(got[0].Added) != 1 || got[0].Added[0].Type != "TXT" || len(got[0].Removed) != 0 {
			t.Errorf("acme's %s: %v", path, got)
		}
	}
	expect(t, c.as(tok["acme"], "GET", "/api/v1/zones/other.test/changes", nil), http.StatusForbidden, "acme reads another zone's history")
	// Filters: since a serial, name and type, kind; paging.
	since := c.changes(tok["admin"], fmt.Sprintf("/api/v1/zones/%s/changes?since=%d", zone, *cs[3].SerialAfter))
	if len(since) != 3 || since[0].ID != cs[4].ID {
		t.Errorf("since %d: %v", *cs[3].SerialAfter, since)
	}
	byName := c.changes(tok["admin"], "/api/v1/zones/"+zone+"/changes?name=www2&type=A&limit=1")
	if len(byName) != 3 {
		t.Errorf("name www2 type A: %v", byName)
	}
	created := c.changes(tok["admin"], "/api/v1/changes?kind=zone.created")
	if len(created) != 2 || created[0].Zone != zone || created[1].Zone != "other.test" {
		t.Errorf("kind zone.created: %v", created)
	}
	expectError(t, c.as(tok["admin"], "GET", "/api/v1/zones/"+zone+"/changes?cursor=x", nil), http.StatusBadRequest, "Bad Request", "cursor")
	expectError(t, c.as(tok["admin"], "GET", "/api/v1/changes?kind=zone.exploded", nil), http.StatusBadRequest, "Bad Request", "kind")

	// The history's metrics.
	m := scrape(t, c)
	count := func(typ, source string) float64 {
		n := 0.0
		for k, v := range m {
			if strings.HasPrefix(k, "zoneapi_history_entries_total{") && strings.Contains(k, `source="`+source+`"`) && strings.Contains(k, `type="`+typ+`"`) {
				n += v
			}
		}
		return n
	}
	if a, e, z := count("records.changed", "api"), count("records.changed", "external"), count("zone.created", "api"); a != 5 || e != 2 || z != 2 {
		t.Errorf("zoneapi_history_entries_total: records.changed api %v external %v, zone.created %v; want 5, 2, 2", a, e, z)
	}
	bytes := 0.0
	for k, v := range m {
		if strings.HasPrefix(k, "zoneapi_history_size_bytes{") {
			bytes += v
		}
	}
	if bytes <= 0 {
		t.Errorf("zoneapi_history_bytes: %v", bytes)
	}
}

// editZoneFile adds a record line to a zone's master file and raises its
// SOA serial by one, through miekg/dns's parser (the file is named's own
// dump after a freeze). named writes that dump after freeze has answered:
// the file is edited once it holds the serial named serves.
func editZoneFile(t testing.TB, ns *testbind.Server, zone, path, add string) {
	t.Helper()
	served, ok := soaOn(ns, zone)
	if !ok {
		t.Fatalf("no SOA of %s", zone)
	}
	waitFor(t, "named's dump of the frozen zone", func() bool {
		b, err := os.ReadFile(path)
		if err != nil {
			return false
		}
		zp := dns.NewZoneParser(strings.NewReader(string(b)), "", path)
		rr, ok := zp.Next()
		soa, isSOA := rr.(*dns.SOA)
		return ok && isSOA && soa.Serial == served
	})
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	zp := dns.NewZoneParser(f, "", path)
	var out []string
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if soa, isSOA := rr.(*dns.SOA); isSOA {
			soa.Serial++
		}
		out = append(out, rr.String())
	}
	f.Close()
	if err := zp.Err(); err != nil {
		t.Fatal(err)
	}
	out = append(out, add)
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryExternalDNS: the external-dns webhook, given zone_api's
// zone_dir, records its changes in the same history with frontend
// externaldns, each once (not again as external when named's NOTIFY
// comes back), in serial order with the REST API's.
func TestHistoryExternalDNS(t *testing.T) {
	ns, port := historyNamed(t)
	wport := testcaddy.FreePort(t)
	c := startCaddy(t, ns, caddyOpts{
		extra: fmt.Sprintf("history {\n\t\t\t\tnotify_listen 127.0.0.1:%d\n\t\t\t}", port),
		sites: fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	zone_api_external_dns {
		zones edns.test
		dns_server %s
		update_key_file %s
		zone_dir %s
	}
}
`, wport, ns.DNSAddr, ns.TSIGKeyFile, ns.ZoneDir)})
	const zone = "edns.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	webhook := func(i int) {
		body := fmt.Sprintf(`{"create":[{"dnsName":"app%d.%s","targets":["192.0.2.%d"],"recordType":"A","recordTTL":60}]}`, i, zone, i+1)
		req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/records", wport), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/external.dns.webhook+json;version=1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("webhook create: %d", resp.StatusCode)
		}
	}
	for i := range 5 {
		webhook(i)
		expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": fmt.Sprintf("rest%d", i), "type": "A", "value": "192.0.2.200"}), http.StatusCreated, "rest add")
	}
	serial, _ := soaOn(ns, zone)
	var cs []change
	waitFor(t, "the history at the zone's serial", func() bool {
		cs = c.changes(testToken, "/api/v1/zones/"+zone+"/changes")
		last := cs[len(cs)-1]
		return last.SerialAfter != nil && *last.SerialAfter == serial
	})
	time.Sleep(time.Second) // NOTIFYs still on their way would show as duplicates
	cs = c.changes(testToken, "/api/v1/zones/"+zone+"/changes")
	if len(cs) != 11 {
		for _, ch := range cs {
			t.Log(ch)
		}
		t.Fatalf("%d changes, want 11 (create, 5 webhook, 5 REST)", len(cs))
	}
	for i, ch := range cs[1:] {
		want := "externaldns"
		if i%2 == 1 {
			want = "rest"
		}
		if ch.Frontend != want || ch.Source != "api" || len(ch.Added) != 1 {
			t.Errorf("change %d: %s (frontend %q), want frontend %s", i+1, ch, ch.Frontend, want)
		}
		if ch.SerialBefore == nil || *ch.SerialBefore != *cs[i].SerialAfter {
			t.Errorf("change %d: %s does not follow %s", i+1, ch, cs[i])
		}
	}
	if cs[1].Identity != "external-dns" {
		t.Errorf("webhook identity %q", cs[1].Identity)
	}
}

// notifyOnly starts named sending a NOTIFY for every change to the API's
// notify_listen but with none of the IXFR settings docs/history.md asks
// for (no ixfr-from-differences, the default max-ixfr-ratio), and Caddy
// listening there.
func notifyOnly(t *testing.T) (*testbind.Server, *caddy) {
	t.Helper()
	port, _, err := testbind.FreePorts()
	if err != nil {
		t.Fatal(err)
	}
	ns := testbind.Start(t, &testbind.Options{ExtraOptions: fmt.Sprintf("also-notify { 127.0.0.1 port %d; };", port)})
	return ns, startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf("history {\n\t\t\t\tnotify_listen 127.0.0.1:%d\n\t\t\t}", port)})
}

// changeRecords lists the records of rs, each as "name TYPE data".
func changeRecords(rs []changeRset) []string {
	var out []string
	for _, r := range rs {
		for _, d := range r.Records {
			out = append(out, r.Name+" "+r.Type+" "+d)
		}
	}
	return out
}

// TestHistoryFileEditWithoutJournal: with a named that keeps no journal of
// reloads (no ixfr-from-differences), a zone file edited and thawed is
// answered by IXFR with the whole zone; the history then records the
// difference from the zone's content as the API last read it.
func TestHistoryFileEditWithoutJournal(t *testing.T) {
	ns, c := notifyOnly(t)
	const zone = "nojnl.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "a", "type": "A", "value": "192.0.2.1"}), http.StatusCreated, "add")
	expect(t, c.do("GET", "/api/v1/zones/"+zone+"/records", nil), http.StatusOK, "read")
	if out, err := ns.RNDC("freeze", zone); err != nil {
		t.Fatalf("rndc freeze: %v %s", err, out)
	}
	file := filepath.Join(ns.ZoneDir, zone+".zone")
	if z := c.do("GET", "/api/v1/zones/"+zone, nil); z.str("file") != "" {
		file = z.str("file")
	}
	editZoneFile(t, ns, zone, file, "filed."+zone+". 300 IN A 192.0.2.77")
	if out, err := ns.RNDC("thaw", zone); err != nil {
		t.Fatalf("rndc thaw: %v %s", err, out)
	}
	var last change
	waitFor(t, "the file edit in the history", func() bool {
		cs := c.changes(testToken, "/api/v1/zones/"+zone+"/changes")
		last = cs[len(cs)-1]
		return last.Source == "external"
	})
	if len(last.Added) != 1 || last.Added[0].Name != "filed."+zone || len(last.Removed) != 0 {
		t.Errorf("the file edit: %s", last)
	}
}

// readmeZoneBody is the body of README.md's first request for zone: a
// small zone (SOA, NS and its address), smaller than most changes of it.
func readmeZoneBody(zone string) map[string]any {
	return map[string]any{"zoneName": zone, "zoneType": "primary", "zoneConfig": map[string]any{"ttl": 3600,
		"soa":         map[string]any{"primaryNs": "ns1." + zone + ".", "adminEmail": "admin." + zone + ".", "serial": 1},
		"nameServers": []string{"ns1." + zone + "."}, "nameServerIps": map[string]string{"ns1." + zone + ".": "127.0.0.1"}}}
}

// TestHistoryFirstExternalChangeAfterCreate: named with the NOTIFY to the
// API but none of the IXFR settings docs/history.md recommends answers
// the IXFR of a small zone's change with the whole zone (max-ixfr-ratio,
// 100% by default: the change outweighs the zone); the first change made
// behind the API's back after the API created the zone is still recorded
// with its records (the difference from the file the API wrote), and so
// is the next (the difference from the zone as the first IXFR sent it).
// Issue 25, defect 6: the first was recorded without records.
func TestHistoryFirstExternalChangeAfterCreate(t *testing.T) {
	ns, c := notifyOnly(t)
	const zone = "first.test"
	expect(t, c.do("POST", "/api/v1/zones", readmeZoneBody(zone)), http.StatusCreated, "create")
	steps := []struct {
		update         string
		added, removed string // "name TYPE data", "" none
	}{
		{"update add a.first.test. 60 IN A 192.0.2.1\n", "a.first.test A 192.0.2.1", ""},
		{"update delete a.first.test. A\nupdate add b.first.test. 60 IN TXT \"b\"\n", `b.first.test TXT "b"`, "a.first.test A 192.0.2.1"},
	}
	flat := func(rs []changeRset) string { return strings.Join(changeRecords(rs), ", ") }
	for i, st := range steps {
		nsupdateView(t, ns, ns.TSIGKeyFile, zone, st.update)
		serial, _ := soaOn(ns, zone)
		var last change
		waitFor(t, "the nsupdate change in the history", func() bool {
			cs := c.changes(testToken, "/api/v1/zones/"+zone+"/changes")
			last = cs[len(cs)-1]
			return last.SerialAfter != nil && *last.SerialAfter == serial
		})
		if last.Source != "external" || flat(last.Added) != st.added || flat(last.Removed) != st.removed {
			t.Errorf("change %d: %s; want external, added %q, removed %q", i+1, last, st.added, st.removed)
		}
	}
	// named did send the whole zone: what this test is about.
	if log, _ := os.ReadFile(ns.LogFile); !strings.Contains(string(log), "AXFR-style IXFR") {
		t.Errorf("named answered every IXFR with the changes; the test needs a zone whose changes outweigh it")
	}
	if strings.Contains(c.Log(), "named sent the whole zone") {
		t.Errorf("a change was recorded without its records (caddy's log warns)")
	}
}
