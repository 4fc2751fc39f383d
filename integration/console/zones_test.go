package console

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestZonesJourney: the zone list searches as you type and pages; a zone
// created in the console is served by named; a delete needs the zone's
// name typed and then named no longer serves it.
func TestZonesJourney(t *testing.T) {
	e := start(t)
	for i := range 60 {
		e.createZone(fmt.Sprintf("z%02d.list.test", i))
	}
	e.signIn("admin")
	e.open("#/zones")
	e.waitText("za-zones .pager", "Page 1 of 2")
	e.fill("za-zones input[type=search]", "z4")
	e.waitJS(`document.querySelectorAll('za-zones tbody tr').length === 10`, "10 zones matching z4")
	e.waitText("za-zones tbody", "z41.list.test")
	e.docShot("zones")

	// Create.
	e.click("za-zones .titlebar button.primary")
	e.fill("za-zones input[name=zoneName]", "made.test")
	e.fill("za-zones input[name=ns]", "ns1.made.test.")
	e.fill("za-zones input[name=nsip]", "192.0.2.7")
	e.fill("za-zones input[name=email]", "hostmaster.made.test.")
	e.click("za-zones form.panel button[type=submit]")
	e.waitText("za-zone h1", "made.test")
	e.waitText("za-zone .records", "ns1")
	if got := e.served("ns1.made.test", dns.TypeA); len(got) != 1 || got[0] != "192.0.2.7" {
		t.Fatalf("named serves ns1.made.test A %v, want 192.0.2.7", got)
	}

	// Delete, with the name typed.
	e.open("#/zones")
	e.fill("za-zones input[type=search]", "made")
	e.click(`za-zones button[aria-label="Delete made.test"]`)
	e.fill("dialog.confirm input", "made.tes")
	if !evalAs[bool](e, `document.querySelector('dialog.confirm button[type=submit]').disabled`) {
		t.Fatal("the delete button is enabled before the zone's name is typed in full")
	}
	e.fill("dialog.confirm input", "made.test")
	e.click("dialog.confirm button[type=submit]")
	e.waitJS(`!document.querySelector('dialog.confirm')`, "the delete to finish")
	if rc := e.rcode("made.test"); rc != dns.RcodeRefused && rc != dns.RcodeServerFailure {
		t.Fatalf("named answers %s for the deleted zone's SOA, want REFUSED", dns.RcodeToString[rc])
	}
	e.noProblems()
}

// TestAdoptJourney: zones named serves outside the API (rndc addzone)
// are listed as not managed; two selected are adopted together, with the
// progress and each answer shown; the API then manages them and, with
// the update key granted, changes their records, which named serves.
func TestAdoptJourney(t *testing.T) {
	e := start(t)
	for _, z := range []string{"x1.adopt.test", "x2.adopt.test", "x3.adopt.test"} {
		// Outside the API's zone_dir: a file there would be taken for
		// one of the API's own creates (crash recovery).
		dir := filepath.Join(e.ns.Dir, "outside")
		p := filepath.Join(dir, z+".zone")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(testbind.MinimalZone(z, 5)), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := e.ns.RNDC("addzone", z, fmt.Sprintf(`{ type primary; file %q; };`, p)); err != nil {
			t.Fatalf("rndc addzone %s: %v %s", z, err, out)
		}
	}
	e.signIn("admin")
	e.open("#/zones")
	e.click("za-zones .field.check input")
	e.waitText("za-zones tbody", "x3.adopt.test")
	e.fill("za-zones input[type=search]", "adopt")
	e.waitJS(`document.querySelectorAll('za-zones .adoptpick input').length === 3`, "three adoptable zones")
	e.click(`za-zones tbody tr:nth-child(1) .adoptpick input`)
	e.click(`za-zones tbody tr:nth-child(2) .adoptpick input`)
	e.waitText("za-zones .adoptbar button", "Adopt selected (2)")
	e.click("za-zones .adoptbar button")
	e.waitText("za-zones .progress", "2 of 2 zones adopted")
	e.waitText("za-zones .progress li", "x1.adopt.test: adopted")
	e.docShot("adopt")
	st, b := e.api("admin", "GET", "/api/v1/zones", nil)
	if st != 200 || fmt.Sprint(b["zones"]) != "[x1.adopt.test x2.adopt.test]" {
		t.Fatalf("managed zones after the adoption: %d %v", st, b["zones"])
	}
	if st, b := e.api("admin", "POST", "/api/v1/zones/x2.adopt.test/records", map[string]any{"name": "hello", "type": "A", "value": "192.0.2.44"}); st != 201 {
		t.Fatalf("a record in the adopted zone: %d %v", st, b)
	}
	if got := e.served("hello.x2.adopt.test", dns.TypeA); len(got) != 1 || got[0] != "192.0.2.44" {
		t.Fatalf("named serves %v", got)
	}
	e.noProblems()
}

// TestCreateFormJourney: the create form's records (an MX with its
// preference among them), also-notify and allow-transfer lists reach
// named: it serves the records and its zone statement has the lists
// (rndc showzone). A record line that cannot be read is refused with its
// number and nothing is created. Fails on a create form without them.
func TestCreateFormJourney(t *testing.T) {
	e := start(t)
	e.createZone("seed.test")
	e.signIn("admin")
	e.open("#/zones")
	e.waitText("za-zones tbody", "seed.test")
	e.click("za-zones .titlebar button.primary")
	e.fill("za-zones input[name=zoneName]", "cf.test")
	e.fill("za-zones input[name=ns]", "ns1.cf.test.")
	e.fill("za-zones input[name=nsip]", "192.0.2.7")
	e.fill("za-zones input[name=email]", "hostmaster.cf.test.")
	setRecords := func(text string) {
		e.eval(fmt.Sprintf(`document.querySelector('za-zones textarea[name=records]').value = %q`, text))
	}
	setRecords("www 300 A 192.0.2.80\nmail A 192.0.2.25\n")
	e.fill("za-zones input[name=alsoNotify]", "127.0.0.1:5399")
	e.fill("za-zones input[name=allowTransfer]", "127.0.0.1 10.0.0.0/8")
	e.click("za-zones form.panel button[type=submit]")
	e.waitText("za-zones form.panel .error", "line 2")
	if got := e.served("cf.test", dns.TypeSOA); len(got) != 0 {
		t.Fatalf("named serves cf.test after a refused form: %q", got)
	}
	setRecords("www 300 A 192.0.2.80\nmail 300 A 192.0.2.25\n@ 300 MX 10 mail.cf.test.\n")
	e.click("za-zones form.panel button[type=submit]")
	e.waitText("za-zone h1", "cf.test")
	e.want("www.cf.test", dns.TypeA, "192.0.2.80")
	e.want("cf.test", dns.TypeMX, "10 mail.cf.test.")
	out, err := e.ns.RNDC("showzone", "cf.test")
	if err != nil || !strings.Contains(out, "also-notify { 127.0.0.1 port 5399; }") || !strings.Contains(out, "{ 127.0.0.1/32; 10.0.0.0/8;") {
		t.Fatalf("rndc showzone cf.test: %v %s", err, out)
	}
	e.noProblems()
}
