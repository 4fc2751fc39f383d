package console

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// openZone signs in as who and opens the zone's page, waiting for its
// records and its event stream.
func (e *env) openZone(who, zone, tab string) {
	e.t.Helper()
	e.signIn(who)
	e.open("#/zones/" + zone + "/" + tab)
	e.waitJS(`document.querySelector('za-zone')?.dataset.stream === 'live'`, "the zone page's event stream")
	e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the zone's records")
}

// stageEdit opens the editor of an RRset and stages new values.
func (e *env) stageEdit(label string, values ...string) {
	e.t.Helper()
	e.click(fmt.Sprintf(`za-zone button[aria-label="Edit %s"]`, label))
	e.eval(fmt.Sprintf(`document.querySelector('za-zone form.editor textarea').value = %q`, strings.Join(values, "\n")))
	e.click("za-zone form.editor button[type=submit]")
}

// changes reads the zone's history through the API.
func (e *env) changes(zone string) []map[string]any {
	e.t.Helper()
	st, b := e.api("admin", "GET", "/api/v1/zones/"+zone+"/changes?limit=1000", nil)
	if st != 200 {
		e.t.Fatalf("changes of %s: %d %v", zone, st, b)
	}
	var out []map[string]any
	for _, c := range b["changes"].([]any) {
		out = append(out, c.(map[string]any))
	}
	return out
}

// want fails the test unless named serves exactly values at name.
func (e *env) want(name string, qtype uint16, values ...string) {
	e.t.Helper()
	slices.Sort(values)
	if got := e.served(name, qtype); !slices.Equal(got, values) {
		e.t.Fatalf("named serves %s %s %q, want %q", name, dns.TypeToString[qtype], got, values)
	}
}

// TestStagedDiffJourney: an edit, an add and a delete are staged, not
// sent (named still serves the old records), shown as a diff per RRset,
// and applied as one change: one history entry, one serial step, and
// named serves all three.
func TestStagedDiffJourney(t *testing.T) {
	e := start(t)
	e.createZone("edit.test", [3]string{"www", "A", "192.0.2.1"}, [3]string{"old", "TXT", "bye"})
	before := len(e.changes("edit.test"))
	serial := e.soaSerial("edit.test")
	e.openZone("admin", "edit.test", "records")

	e.stageEdit("www A", "192.0.2.2", "192.0.2.3")
	e.click("za-zone .toolbar button.primary") // Add record
	e.fill("za-zone form.editor input[name=name]", "new")
	e.fill("za-zone form.editor input[name=type]", "AAAA")
	e.eval(`document.querySelector('za-zone form.editor textarea').value = '2001:db8::1'`)
	e.click("za-zone form.editor button[type=submit]")
	e.click(`za-zone button[aria-label="Delete old TXT"]`)

	e.waitText("za-zone .pending h2", "Pending changes (3)")
	for _, line := range []string{"− 300 A 192.0.2.1", "+ 300 A 192.0.2.2", "+ 300 A 192.0.2.3", "+ 3600 AAAA 2001:db8::1", `− 300 TXT "bye"`} {
		e.waitText("za-zone .pending li", line)
	}
	e.docShot("staged")
	// Staged only: named serves what it served.
	e.want("www.edit.test", dns.TypeA, "192.0.2.1")
	e.want("old.edit.test", dns.TypeTXT, `"bye"`)

	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 3 changes")
	e.want("www.edit.test", dns.TypeA, "192.0.2.2", "192.0.2.3")
	e.want("new.edit.test", dns.TypeAAAA, "2001:db8::1")
	e.want("old.edit.test", dns.TypeTXT)
	if got := e.soaSerial("edit.test"); got != serial+1 {
		t.Errorf("serial %d → %d: want one step for one atomic change", serial, got)
	}
	cs := e.changes("edit.test")
	if len(cs) != before+1 {
		t.Fatalf("%d history entries after the apply, want %d (one change)", len(cs), before+1)
	}
	if last := cs[len(cs)-1]; last["frontend"] != "rest" || last["identity"] != "static:admin" || len(last["added"].([]any)) != 2 || len(last["removed"].([]any)) != 2 {
		t.Errorf("the change recorded: %v", last)
	}
	e.waitJS(`document.querySelector('za-zone .pending').hidden`, "the pending changes to be gone")
	e.noProblems()
}

// TestConflictJourney: an edit made against a serial that someone else
// moved on is refused by the API (412, If-Match), nothing of it is
// applied, and the console shows what changed; "re-apply on top" applies
// it keeping the other change, "discard" drops it.
func TestConflictJourney(t *testing.T) {
	e := start(t)
	e.createZone("conf.test", [3]string{"www", "A", "192.0.2.1"})
	e.openZone("admin", "conf.test", "records")
	e.stageEdit("www A", "192.0.2.9")
	// Someone else, meanwhile.
	if st, b := e.api("admin", "POST", "/api/v1/zones/conf.test/records", map[string]any{"name": "other", "type": "A", "value": "192.0.2.50"}); st != 201 {
		t.Fatalf("the other change: %d %v", st, b)
	}
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .conflict", "Someone changed conf.test meanwhile")
	e.waitText("za-zone .conflict li.add", "192.0.2.50")
	e.docShot("conflict")
	e.want("www.conf.test", dns.TypeA, "192.0.2.1")

	e.click("za-zone .conflict button.primary") // re-apply on top
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("www.conf.test", dns.TypeA, "192.0.2.9")
	e.want("other.conf.test", dns.TypeA, "192.0.2.50")

	// Discard.
	e.stageEdit("www A", "192.0.2.10")
	if st, b := e.api("admin", "POST", "/api/v1/zones/conf.test/records", map[string]any{"name": "third", "type": "A", "value": "192.0.2.51"}); st != 201 {
		t.Fatalf("the third change: %d %v", st, b)
	}
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .conflict", "192.0.2.51")
	e.click("za-zone .conflict button:not(.primary)")
	e.waitJS(`document.querySelector('za-zone .pending').hidden`, "the discarded changes to be gone")
	e.waitText("za-zone .records", "third")
	e.want("www.conf.test", dns.TypeA, "192.0.2.9")
	e.noProblems()
}

// TestRevertJourney: reverting a change made in the console stages its
// inverse (named still serves the change), applying it restores the
// records; reverting a change whose records have moved on since is
// refused and changes nothing.
func TestRevertJourney(t *testing.T) {
	e := start(t)
	e.createZone("rev.test", [3]string{"www", "A", "192.0.2.1"})
	e.openZone("admin", "rev.test", "records")
	last := func() string {
		t.Helper()
		cs := e.changes("rev.test")
		return cs[len(cs)-1]["id"].(string)
	}
	e.stageEdit("www A", "192.0.2.2")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("www.rev.test", dns.TypeA, "192.0.2.2")
	id := last()

	e.open("#/zones/rev.test/history")
	e.click(fmt.Sprintf(`za-zone button[aria-label="Revert change %s"]`, id))
	e.waitText("za-zone .pending li.del", "192.0.2.2")
	e.waitText("za-zone .pending li.add", "192.0.2.1")
	e.docShot("revert")
	e.want("www.rev.test", dns.TypeA, "192.0.2.2")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change: serial")
	e.want("www.rev.test", dns.TypeA, "192.0.2.1")

	// Moved on: the record the change added has been removed since.
	e.stageEdit("www A", "192.0.2.3")
	e.click("za-zone .pending button.primary")
	e.waitJS(`document.querySelector('za-zone .pending').hidden`, "the apply")
	id = last()
	if st, b := e.api("admin", "PATCH", "/api/v1/zones/rev.test/records", map[string]any{"changes": []any{
		map[string]any{"op": "remove", "name": "www", "type": "A", "value": "192.0.2.3"},
		map[string]any{"op": "add", "name": "www", "type": "A", "ttl": 300, "value": "192.0.2.4"}}}); st != 200 {
		t.Fatalf("the later change: %d %v", st, b)
	}
	e.open("#/zones/rev.test/history")
	e.waitText("za-zone .changes", "192.0.2.4")
	e.click(fmt.Sprintf(`za-zone button[aria-label="Revert change %s"]`, id))
	e.waitText("za-zone .notice", "cannot be reverted")
	e.waitText("za-zone .notice", "192.0.2.3 no longer there")
	if !evalAs[bool](e, `document.querySelector('za-zone .pending').hidden`) {
		t.Error("a refused revert staged changes")
	}
	e.want("www.rev.test", dns.TypeA, "192.0.2.4")
	e.noProblems()
}

// TestLiveUpdateJourney: a change made with nsupdate, behind the API's
// back, appears on the open zone page and in its history without a
// reload.
func TestLiveUpdateJourney(t *testing.T) {
	e := start(t)
	e.createZone("live.test")
	e.openZone("admin", "live.test", "records")
	e.eval(`window.__notReloaded = true`)
	e.nsupdate("live.test", "update add fresh.live.test. 60 IN A 192.0.2.77\n")
	took := e.waitJS(`[...document.querySelectorAll('za-zone .records td')].some((td) => td.textContent === 'fresh')`, "the nsupdate change on the page")
	t.Logf("the nsupdate change appeared %v after nsupdate returned (goal ≤ 2 s)", took.Round(10*time.Millisecond))
	e.want("fresh.live.test", dns.TypeA, "192.0.2.77")
	e.open("#/zones/live.test/history")
	e.waitText("za-zone .changes li.change", "external (found in named)")
	if !evalAs[bool](e, `window.__notReloaded === true`) {
		t.Error("the page was reloaded")
	}
	e.noProblems()
}

// TestScopesJourney: a read-only token sees the zones and records but no
// control that changes them; a token limited to one zone gets the API's
// 403 message, shown as it is, for another.
func TestScopesJourney(t *testing.T) {
	e := start(t)
	e.createZone("ro.test", [3]string{"www", "A", "192.0.2.1"})
	e.createZone("a.scope.test")
	e.createZone("b.scope.test")
	e.openZone("reader", "ro.test", "records")
	e.waitText(".who .badge", "read-only")
	for _, sel := range []string{"za-zone .toolbar button", "za-zone .rowactions button", "za-zone .commands button"} {
		if n := evalAs[int](e, fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)); n != 0 {
			t.Errorf("a read-only token sees %d controls %s", n, sel)
		}
	}
	e.open("#/zones/ro.test/history")
	e.waitText("za-zone .changes", "zone.created")
	if n := evalAs[int](e, `document.querySelectorAll('za-zone button[aria-label^="Revert"]').length`); n != 0 {
		t.Errorf("a read-only token sees %d revert buttons", n)
	}
	e.open("#/zones/ro.test/settings")
	e.waitText("za-zone .settingsform .reason", "Your token may not change zones")
	if n := evalAs[int](e, `document.querySelectorAll('za-zone .settingsform button, za-zone .settingsform textarea:not([disabled])').length`); n != 0 {
		t.Errorf("a read-only token sees %d settings controls", n)
	}
	e.open("#/zones")
	e.waitText("za-zones tbody", "ro.test")
	if n := evalAs[int](e, `document.querySelectorAll('za-zones button').length`); n != 0 {
		t.Errorf("a read-only token sees %d buttons on the zone list", n)
	}
	e.click(".who button") // sign out
	e.typeToken("narrow")
	e.run("waiting for the sign-in", waitSignedIn)
	e.open("#/zones/b.scope.test")
	e.waitText("za-zone .error", "403 Forbidden")
	e.waitText("za-zone .error", "b.scope.test")
	e.waitText("za-zone .error", "Your token is not allowed to do this")
	e.noProblems()
}

// TestACMETokenJourney: a token limited to _acme-challenge TXT records of
// one zone sees only those RRsets and no zone command, and adds a
// challenge record through the console, which named then serves.
func TestACMETokenJourney(t *testing.T) {
	e := start(t)
	e.createZone("acme.test", [3]string{"www", "A", "192.0.2.1"}, [3]string{"_acme-challenge", "TXT", "old-token"})
	e.signIn("acme")
	e.open("#/zones/acme.test/records")
	e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the zone's records")
	rows := evalAs[[]string](e, `[...document.querySelectorAll('za-zone .records tbody tr')].map((tr) => tr.dataset.key)`)
	if len(rows) != 1 || rows[0] != "_acme-challenge.acme.test TXT" {
		t.Fatalf("an ACME token sees the RRsets %q, want only _acme-challenge TXT", rows)
	}
	if n := evalAs[int](e, `document.querySelectorAll('za-zone .commands button').length`); n != 0 {
		t.Errorf("an ACME token sees %d zone commands", n)
	}
	e.stageEdit("_acme-challenge TXT", `"old-token"`, "new-token")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("_acme-challenge.acme.test", dns.TypeTXT, `"new-token"`, `"old-token"`)
	e.noProblems()
}

// TestZoneCommandsJourney: freeze and thaw from the zone page reach
// named (rndc zonestatus says so), each button enabled only where the
// zone's state allows it. The zone's transfer and notify lists are
// edited on its settings tab: rndc showzone shows the new lists, and a
// transfer from an address the new list leaves out is refused. A zone
// of named.conf shows the lists read-only with the API's reason. Fails
// on a console without the settings tab.
func TestZoneCommandsJourney(t *testing.T) {
	confFile := filepath.Join(t.TempDir(), "conf.test.db")
	if err := os.WriteFile(confFile, []byte(testbind.MinimalZone("conf.test", 3)), 0o644); err != nil {
		t.Fatal(err)
	}
	e := startWith(t, testbind.Options{ExtraConfig: testbind.ZoneStatement("conf.test", confFile, "")})
	e.createZone("cmd.test")
	e.openZone("admin", "cmd.test", "records")
	if !evalAs[bool](e, `[...document.querySelectorAll('za-zone .commands button')].find((b) => b.textContent === 'Thaw').disabled`) {
		t.Error("Thaw is enabled on a zone that is not frozen")
	}
	e.click(`za-zone .commands button:first-child`) // Freeze
	e.waitText("za-zone .facts", "frozen")
	if out, err := e.ns.RNDC("zonestatus", "cmd.test"); err != nil || !strings.Contains(out, "frozen: yes") {
		t.Fatalf("rndc zonestatus after Freeze: %v %s", err, out)
	}
	e.click(`za-zone .commands button:nth-child(2)`) // Thaw
	e.waitText("za-zone .facts dd[data-fact=state]", "active")
	if out, err := e.ns.RNDC("zonestatus", "cmd.test"); err != nil || !strings.Contains(out, "frozen: no") {
		t.Fatalf("rndc zonestatus after Thaw: %v %s", err, out)
	}

	// Transfer and notify.
	if err := e.axfr("cmd.test"); err != nil {
		t.Fatalf("a transfer of cmd.test before the change: %v", err)
	}
	e.click(`za-zone a#tabbtn-settings`)
	e.fill(`za-zone textarea[name=alsoNotify]`, "127.0.0.1:5399\n192.0.2.9")
	e.fill(`za-zone textarea[name=allowTransfer]`, "10.0.0.0/8")
	e.click(`za-zone .settingsform button[type=submit]`)
	e.waitText("za-zone .settingsmsg .ok", "")
	e.waitJS(`document.querySelector('za-zone textarea[name=allowTransfer]').value.includes('10.0.0.0/8')`, "the saved list read back")
	e.docShot("settings")
	out, err := e.ns.RNDC("showzone", "cmd.test")
	if err != nil || !strings.Contains(out, "also-notify { 127.0.0.1 port 5399; 192.0.2.9; }") || !regexp.MustCompile(`allow-transfer\s+\{ 10\.0\.0\.0/8; \}`).MatchString(out) {
		t.Fatalf("rndc showzone cmd.test after the settings: %v %s", err, out)
	}
	if err := e.axfr("cmd.test"); err == nil {
		t.Fatal("named still transfers cmd.test to 127.0.0.1 after allow-transfer { 10.0.0.0/8; }")
	}
	e.open("#/zones/conf.test/settings")
	e.waitText("za-zone .settingsform .reason", "cannot be changed here")
	if !evalAs[bool](e, `document.querySelector('za-zone textarea[name=allowTransfer]').disabled && !document.querySelector('za-zone .settingsform button[type=submit]')`) {
		t.Error("the settings of a named.conf zone are editable")
	}
	e.noProblems()
}

// axfr transfers the zone from named (from 127.0.0.1, unsigned); an
// error when named refuses.
func (e *env) axfr(zone string) error {
	m := new(dns.Msg)
	m.SetAxfr(dns.Fqdn(zone))
	ch, err := (&dns.Transfer{}).In(m, e.ns.DNSAddr)
	if err != nil {
		return err
	}
	n := 0
	for env := range ch {
		if env.Error != nil {
			return env.Error
		}
		n += len(env.RR)
	}
	if n == 0 {
		return fmt.Errorf("an empty transfer")
	}
	return nil
}

// TestEditAsTextJourney: the zone's records as text; a changed line, a
// removed line and a new line are staged as their RRsets' diffs (named
// unchanged), then applied; a malformed line is refused with its number
// and stages nothing.
func TestEditAsTextJourney(t *testing.T) {
	e := start(t)
	e.createZone("text.test", [3]string{"www", "A", "192.0.2.1"}, [3]string{"mail", "A", "192.0.2.25"})
	e.openZone("admin", "text.test", "records")
	e.click("za-zone .toolbar button.astext")
	text := evalAs[string](e, `document.querySelector('za-zone textarea[name=zonetext]').value`)
	for _, want := range []string{"www\t300\tA\t192.0.2.1", "mail\t300\tA\t192.0.2.25", "@\t3600\tNS\tns1.text.test."} {
		if !strings.Contains(text, want) {
			t.Fatalf("the zone as text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "SOA") {
		t.Errorf("the zone as text has the SOA:\n%s", text)
	}
	setText := func(s string) {
		e.eval(fmt.Sprintf(`document.querySelector('za-zone textarea[name=zonetext]').value = %q`, s))
		e.click("za-zone form.text button[type=submit]")
	}
	setText("www 300 A 192.0.2.1\nbroken line\n")
	e.waitText("za-zone form.text .error", "line 2")
	text = strings.Replace(text, "www\t300\tA\t192.0.2.1", "www\t300\tA\t192.0.2.7", 1)
	text = strings.Replace(text, "mail\t300\tA\t192.0.2.25\n", "", 1)
	setText(text + "note 600 TXT \"from text\"\n")
	e.waitText("za-zone .pending h2", "Pending changes (3)")
	e.want("www.text.test", dns.TypeA, "192.0.2.1")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 3 changes")
	e.want("www.text.test", dns.TypeA, "192.0.2.7")
	e.want("mail.text.test", dns.TypeA)
	e.want("note.text.test", dns.TypeTXT, `"from text"`)
	e.want("ns1.text.test", dns.TypeA, "192.0.2.53")
	e.noProblems()
}

// servedTTL is the TTL of the RRset named serves at name.
func (e *env) servedTTL(name string, qtype uint16) uint32 {
	e.t.Helper()
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	r, _, err := (&dns.Client{Timeout: 3 * time.Second}).Exchange(m, e.ns.DNSAddr)
	if err != nil || len(r.Answer) == 0 {
		e.t.Fatalf("%s: %v %v", name, err, r)
	}
	return r.Answer[0].Header().Ttl
}

// TestBulkEditJourney: RRsets selected together get a new TTL or are
// deleted in one staged change set; named serves the result.
func TestBulkEditJourney(t *testing.T) {
	e := start(t)
	e.createZone("bulk.test", [3]string{"a", "A", "192.0.2.1"}, [3]string{"b", "A", "192.0.2.2"}, [3]string{"c", "A", "192.0.2.3"})
	e.openZone("admin", "bulk.test", "records")
	e.click(`za-zone input[aria-label="Select a A"]`)
	e.click(`za-zone input[aria-label="Select b A"]`)
	e.waitText("za-zone .bulk .count", "2 selected")
	e.fill("za-zone .bulk input.ttl", "120")
	e.click("za-zone .bulk button:not(.danger)")
	e.click(`za-zone input[aria-label="Select c A"]`)
	e.click("za-zone .bulk button.danger")
	e.waitText("za-zone .pending h2", "Pending changes (3)")
	e.want("c.bulk.test", dns.TypeA, "192.0.2.3")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 3 changes")
	for _, n := range []string{"a.bulk.test", "b.bulk.test"} {
		if ttl := e.servedTTL(n, dns.TypeA); ttl != 120 {
			t.Errorf("%s TTL %d, want 120", n, ttl)
		}
	}
	e.want("a.bulk.test", dns.TypeA, "192.0.2.1")
	e.want("c.bulk.test", dns.TypeA)
	e.noProblems()
}

// TestExportJourney: "Export zone file" saves the zone file the API
// exports, with the records named serves, under the zone's name.
func TestExportJourney(t *testing.T) {
	e := start(t)
	e.createZone("exp.test", [3]string{"www", "A", "192.0.2.1"})
	e.nsupdate("exp.test", "update add later.exp.test. 60 IN A 192.0.2.61\n")
	e.want("later.exp.test", dns.TypeA, "192.0.2.61")
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(e.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir}); err != nil {
		t.Fatal(err)
	}
	e.openZone("admin", "exp.test", "records")
	e.click("za-zone button.export")
	var b []byte
	deadline := time.Now().Add(20 * time.Second)
	for {
		var err error
		if b, err = os.ReadFile(filepath.Join(dir, "exp.test.zone")); err == nil && len(b) > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no exp.test.zone in %s after 20 s", dir)
		}
		time.Sleep(100 * time.Millisecond)
	}
	for _, want := range []string{"www.exp.test.", "192.0.2.1", "later.exp.test.", "192.0.2.61", "SOA"} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the exported file lacks %q:\n%s", want, b)
		}
	}
	e.noProblems()
}
