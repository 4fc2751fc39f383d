package console

import (
	"fmt"
	"testing"

	"github.com/miekg/dns"
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
