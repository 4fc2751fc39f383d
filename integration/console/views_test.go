package console

import (
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// TestViewsJourney: with named in two views (internal, matched by its
// key; external, the API's default) and the same zone name in both, the
// zone list links each to its view's page; the internal zone's page
// reads and edits that view's records only: named serves the edit to
// internal's clients and the old record to external's. A zone created
// in the console in view internal is served there only. Fails on a
// console whose zone pages do not pass ?view=, or whose search and
// history do not name the view (the search would find the default
// view's record only).
func TestViewsJourney(t *testing.T) {
	var ns *testbind.Server
	e := startWith(t, testbind.Options{
		Views:       []testbind.View{{Name: "internal", Key: true}, {Name: "external"}},
		BeforeStart: func(s *testbind.Server) error { ns = s; return nil },
	}, func(o *testcaddy.Options) {
		o.APIExtra += "\nview internal {\n\tupdate_key_file " + ns.ViewKeys["internal"].File + "\n}\nview external {\n\tdefault\n}\n"
	})
	for view, addr := range map[string]string{"internal": "10.0.0.80", "external": "192.0.2.80"} {
		body := map[string]any{"zoneName": "same.test", "zoneType": "primary", "zoneConfig": map[string]any{"ttl": 3600,
			"soa":         map[string]any{"primaryNs": "ns1.same.test.", "adminEmail": "admin.same.test."},
			"nameServers": []string{"ns1.same.test."}, "nameServerIps": map[string]string{"ns1.same.test.": "192.0.2.53"},
			"records": []map[string]any{{"name": "www", "type": "A", "value": addr, "ttl": 300}}}}
		if st, b := e.api("admin", "POST", "/api/v1/zones?view="+view, body); st != 201 {
			t.Fatalf("creating same.test in %s: %d %v", view, st, b)
		}
	}
	// want checks what named serves for name's A records to a client of
	// view (NXDOMAIN, or REFUSED from a view without the zone: nothing).
	want := func(view, name string, addrs ...string) {
		t.Helper()
		rrs, err := ns.Query(view, name, dns.TypeA)
		if err != nil && !strings.HasSuffix(err.Error(), "NXDOMAIN") && !strings.HasSuffix(err.Error(), "REFUSED") {
			t.Fatalf("query %s in view %s: %v", name, view, err)
		}
		var got []string
		for _, rr := range rrs {
			if a, ok := rr.(*dns.A); ok {
				got = append(got, a.A.String())
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, addrs) {
			t.Fatalf("view %s serves %s A %q, want %q", view, name, got, addrs)
		}
	}

	e.signIn("admin")
	e.open("#/zones")
	e.waitText("za-zones tbody", "(internal)")
	e.waitText("za-zones tbody", "(external)")
	e.click(`za-zones a[href="#/zones/same.test/records?view=internal"]`)
	e.waitText("za-zone h1", "in view internal")
	e.waitText("za-zone .records", "10.0.0.80")
	e.stageEdit("www A", "10.0.0.81")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change")
	want("internal", "www.same.test", "10.0.0.81")
	want("external", "www.same.test", "192.0.2.80")

	// Search reads each view's zone and names the view; the history
	// across zones names the view of the change and links to its page.
	e.open("#/search")
	e.fill("za-search input[type=search]", "www")
	e.click("za-search button[type=submit]")
	e.waitText("za-search tbody", "10.0.0.81")
	rows := evalAs[[]string](e, `[...document.querySelectorAll('za-search tbody tr')].map((tr) => tr.cells[0].querySelector('a').getAttribute('href') + '|' + tr.cells[0].textContent + '|' + tr.cells[4].textContent).sort()`)
	if want := []string{
		"#/zones/same.test/records?view=external|same.test (external)|192.0.2.80",
		"#/zones/same.test/records?view=internal|same.test (internal)|10.0.0.81",
	}; !slices.Equal(rows, want) {
		t.Fatalf("search rows %q, want %q", rows, want)
	}
	e.open("#/history")
	e.waitText("za-history li.change", "same.test (internal)")
	if !evalAs[bool](e, `[...document.querySelectorAll('za-history li.change')].some((li) => li.textContent.includes('records.changed') && li.querySelector('a[href="#/zones/same.test/records?view=internal"]'))`) {
		t.Fatal("the history's change of the internal view does not link to the zone's page in that view")
	}
	e.docShot("views")

	e.open("#/zones")
	e.click("za-zones .titlebar button.primary")
	e.fill("za-zones input[name=zoneName]", "inside.test")
	e.fill("za-zones input[name=ns]", "ns1.inside.test.")
	e.fill("za-zones input[name=nsip]", "10.0.0.53")
	e.fill("za-zones input[name=email]", "hostmaster.inside.test.")
	e.fill("za-zones input[name=view]", "internal")
	e.click("za-zones form.panel button[type=submit]")
	e.waitText("za-zones form.panel", "Created inside.test in view internal")
	want("internal", "ns1.inside.test", "10.0.0.53")
	want("external", "ns1.inside.test")
	e.noProblems()
}
