package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// immutable makes the files chattr +i (their writes fail, even through a
// descriptor open already; a directory takes no new file) until the
// returned function or the test's end, or skips the test where chattr
// cannot (not root, a file system without the attribute).
func immutable(t *testing.T, paths ...string) (undo func()) {
	t.Helper()
	if out, err := exec.Command("chattr", append([]string{"+i"}, paths...)...).CombinedOutput(); err != nil {
		t.Skipf("cannot make files immutable here (chattr: %v: %s)", err, strings.TrimSpace(string(out)))
	}
	done := false
	undo = func() {
		if !done {
			done = true
			if out, err := exec.Command("chattr", append([]string{"-i"}, paths...)...).CombinedOutput(); err != nil {
				t.Errorf("chattr -i: %v: %s", err, out)
			}
		}
	}
	t.Cleanup(undo)
	return undo
}

// TestHistoryWriteFailure: while the change history cannot be written
// (its segment file and directory made immutable under the running
// Caddy), every change is made and answered as made, whichever the front
// end (REST records and zone operations, the PowerDNS-compatible API,
// the external-dns webhook): none answers an error, which would have the
// client retry what is done. Each entry is logged in full instead,
// counted by zoneapi_history_write_errors_total, and /api/v1/ready
// reports history_writable; once the history takes writes again, the
// readiness recovers and the next change is recorded, after the record
// changes made meanwhile, which its gap check reads from named's journal
// (source external). (Before: a REST record change answered 500 while
// zone operations answered success, and the record changes made
// meanwhile were never recorded.)
func TestHistoryWriteFailure(t *testing.T) {
	ns := startNamed(t)
	wport := testcaddy.FreePort(t)
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: "powerdns", sites: fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	zone_api_external_dns {
		zones hf.test
		dns_server %s
		update_key_file %s
		zone_dir %s
	}
}
`, wport, ns.DNSAddr, ns.TSIGKeyFile, ns.ZoneDir)})
	const zone = "hf.test"
	// A zone of some size: named answers an IXFR with the whole zone
	// when the changes would be larger than it (max-ixfr-ratio).
	body := zoneBody(zone)
	cfg := body["zoneConfig"].(map[string]any)
	for i := range 40 {
		cfg["records"] = append(cfg["records"].([]map[string]any), map[string]any{"name": fmt.Sprintf("h%d", i), "type": "A", "value": "192.0.2.100"})
	}
	expect(t, c.do("POST", "/api/v1/zones", body), http.StatusCreated, "create")
	recorded := len(c.changes(testToken, "/api/v1/changes"))
	if recorded != 1 {
		t.Fatalf("%d changes after the create, want 1", recorded)
	}

	dir := filepath.Join(ns.ZoneDir, ".zoneapi", "history")
	segs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no history segment in %s: %v", dir, err)
	}
	undo := immutable(t, segs[len(segs)-1], dir)

	// Every front end's changes are made and answered as made.
	// (The zone operations first: a freeze folds named's journal into
	// the zone file, so IXFR could not tell the record changes before
	// it, below.)
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/freeze", nil), http.StatusOK, "REST freeze")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/thaw", nil), http.StatusOK, "REST thaw")
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("hf2.test")), http.StatusCreated, "REST create")
	waitFor(t, "the zone takes updates after thaw", func() bool {
		return c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "rest", "type": "A", "value": "192.0.2.1"}).status == http.StatusCreated
	})
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "rest2", "type": "A", "value": "192.0.2.2"}), http.StatusCreated, "REST add")
	expect(t, pdnsPatch(c, zone+".", rrset("pdns."+zone+".", "A", "REPLACE", 300, "192.0.2.3")), http.StatusNoContent, "PowerDNS PATCH")
	wbody := `{"create":[{"dnsName":"edns.` + zone + `","targets":["192.0.2.4"],"recordType":"A","recordTTL":60}]}`
	req, _ := http.NewRequest("POST", fmt.Sprintf("http://127.0.0.1:%d/records", wport), strings.NewReader(wbody))
	req.Header.Set("Content-Type", "application/external.dns.webhook+json;version=1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("external-dns webhook create: %d, want 204", resp.StatusCode)
	}
	for _, name := range []string{"rest", "rest2", "pdns", "edns"} {
		if len(viewAnswers(t, ns, "", name+"."+zone)) != 1 {
			t.Errorf("%s.%s is not served", name, zone)
		}
	}

	// None is recorded; each is counted and logged in full.
	if n := len(c.changes(testToken, "/api/v1/changes")); n != recorded {
		t.Errorf("%d changes in the history, want %d (nothing written)", n, recorded)
	}
	const unrecorded = 7 // freeze, thaw, create, add, add, PATCH, webhook
	if m := scrape(t, c)["zoneapi_history_write_errors_total{}"]; m < unrecorded {
		t.Errorf("zoneapi_history_write_errors_total = %v, want at least %d", m, unrecorded)
	}
	log := c.Log()
	if n := strings.Count(log, "its change history entry could not be written"); n < unrecorded {
		t.Errorf("%d log lines of entries not written, want at least %d", n, unrecorded)
	}
	for _, want := range []string{`"type":"zone.created","source":"api"`, `"name":"pdns.hf.test"`, `"frontend":"externaldns"`, `"type":"zone.frozen"`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log has no entry with %s", want)
		}
	}
	r := c.do("GET", "/api/v1/ready", nil)
	expect(t, r, http.StatusServiceUnavailable, "ready while the history cannot be written")
	if !strings.Contains(string(r.raw), "history_writable") {
		t.Errorf("ready: %s", r.raw)
	}

	// Writable again: ready, and the next change is recorded.
	undo()
	expect(t, c.do("GET", "/api/v1/ready", nil), http.StatusOK, "ready once the history takes writes")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "after", "type": "A", "value": "192.0.2.5"}), http.StatusCreated, "REST add after")
	// The record changes made meanwhile are recorded before it, from
	// named's journal (source external: who asked is in the log only).
	cs := c.changes(testToken, "/api/v1/zones/"+zone+"/changes")
	last := cs[len(cs)-1]
	if last.Source != "api" || len(last.Added) != 1 || last.Added[0].Name != "after."+zone {
		t.Errorf("the last change: %s, want the add of after.%s", last, zone)
	}
	healed := map[string]bool{}
	for _, ch := range cs[1 : len(cs)-1] {
		if ch.Source != "external" {
			t.Errorf("between the create and the add after: %s, want external changes only", ch)
		}
		for _, a := range ch.Added {
			healed[strings.TrimSuffix(a.Name, "."+zone)] = true
		}
	}
	for _, name := range []string{"rest", "rest2", "pdns", "edns"} {
		if !healed[name] {
			t.Errorf("%s.%s, added while the history could not be written, is not in it from named's journal: %v", name, zone, cs)
		}
	}
	if cs[len(cs)-2].SerialAfter == nil || last.SerialBefore == nil || *cs[len(cs)-2].SerialAfter != *last.SerialBefore {
		t.Errorf("the serials do not chain: %s then %s", cs[len(cs)-2], last)
	}
	if _, err := os.Stat(filepath.Join(dir, ".probe")); !os.IsNotExist(err) {
		t.Errorf("the readiness probe's file is left: %v", err)
	}
}

// TestExternalDNSHealthzWhileHistoryFails: the external-dns webhook's
// GET /healthz reflects the change history as /api/v1/ready does: 200
// while it takes writes; 503 {error, message} naming history_writable
// once a write failed and its directory takes none (the webhook's own
// change, or the zone API's, whose history it shares), while its changes
// are still made and answered 204; 200 again once the directory takes
// writes. (Before: 200 throughout.)
func TestExternalDNSHealthzWhileHistoryFails(t *testing.T) {
	ns := startNamed(t)
	wport := testcaddy.FreePort(t)
	c := startCaddy(t, ns, caddyOpts{sites: fmt.Sprintf(`
http://127.0.0.1:%d {
	bind 127.0.0.1
	zone_api_external_dns {
		zones hz.test
		dns_server %s
		update_key_file %s
		zone_dir %s
	}
}
`, wport, ns.DNSAddr, ns.TSIGKeyFile, ns.ZoneDir)})
	const zone = "hz.test"
	webhook := fmt.Sprintf("http://127.0.0.1:%d", wport)
	healthz := func(want int, what string) {
		t.Helper()
		resp, err := http.Get(webhook + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var eb struct{ Error, Message string }
		switch {
		case resp.StatusCode != want:
			t.Errorf("%s: /healthz %d, want %d", what, resp.StatusCode, want)
		case want == http.StatusServiceUnavailable:
			if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil || eb.Error != "Service Unavailable" || !strings.HasPrefix(eb.Message, "history_writable: ") {
				t.Errorf("%s: /healthz body %+v (%v), want {error: Service Unavailable, message: history_writable: …}", what, eb, err)
			}
		}
	}
	create := func(name string) {
		t.Helper()
		body := `{"create":[{"dnsName":"` + name + `.` + zone + `","targets":["192.0.2.4"],"recordType":"A","recordTTL":60}]}`
		resp, err := http.Post(webhook+"/records", "application/external.dns.webhook+json;version=1", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNoContent {
			t.Fatalf("webhook create of %s: %d, want 204", name, resp.StatusCode)
		}
	}
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	healthz(http.StatusOK, "the history takes writes")
	create("before")
	healthz(http.StatusOK, "after a change recorded")

	dir := filepath.Join(ns.ZoneDir, ".zoneapi", "history")
	segs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(segs) == 0 {
		t.Fatalf("no history segment in %s: %v", dir, err)
	}
	undo := immutable(t, segs[len(segs)-1], dir)
	create("during")
	healthz(http.StatusServiceUnavailable, "after the webhook's change could not be recorded")
	expect(t, c.do("GET", "/api/v1/ready", nil), http.StatusServiceUnavailable, "ready, the same history")
	if len(viewAnswers(t, ns, "", "during."+zone)) != 1 {
		t.Errorf("during.%s, created while the history could not be written, is not served", zone)
	}
	undo()
	healthz(http.StatusOK, "once the history's directory takes writes")

	// A failure of the zone API's write, in the history both share.
	segs, _ = filepath.Glob(filepath.Join(dir, "*.jsonl"))
	undo = immutable(t, segs[len(segs)-1], dir)
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "rest", "type": "A", "value": "192.0.2.1"}), http.StatusCreated, "REST add")
	healthz(http.StatusServiceUnavailable, "after the zone API's change could not be recorded")
	undo()
	healthz(http.StatusOK, "once the history takes writes again")
}
