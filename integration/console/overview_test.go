package console

import (
	"regexp"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestOverviewJourney: the overview shows the version and zone count
// named reports, readiness, the managed and unmanaged zones, and a change
// made meanwhile appears in its latest changes without a reload.
func TestOverviewJourney(t *testing.T) {
	e := start(t)
	e.createZone("ov.test", [3]string{"www", "A", "192.0.2.1"})
	status, err := e.ns.RNDC("status")
	if err != nil {
		t.Fatal(err)
	}
	version := regexp.MustCompile(`(?m)^version: (BIND \S+)`).FindStringSubmatch(status)
	zones := regexp.MustCompile(`(?m)^number of zones: (\d+)`).FindStringSubmatch(status)
	if version == nil || zones == nil {
		t.Fatalf("rndc status: %s", status)
	}
	e.signIn("admin")
	e.waitText("za-overview .card", version[1])
	e.waitJS(`[...document.querySelectorAll('za-overview .card dd')].some((d) => d.previousSibling.textContent === 'zones' && d.textContent === '`+zones[1]+`')`, "named's zone count "+zones[1])
	e.waitText("za-overview .card", "Ready")
	e.waitJS(`[...document.querySelectorAll('za-overview .card dd')].some((d) => d.previousSibling.textContent === 'managed' && d.textContent === '1')`, "one managed zone")
	e.waitText("za-overview .card", "not managed")
	e.waitText("za-overview .changes", "ov.test")

	e.eval(`window.__notReloaded = true`)
	e.nsupdate("ov.test", "update add seen.ov.test. 60 IN TXT \"from nsupdate\"\n")
	e.waitText("za-overview .changes li.add", "from nsupdate")
	e.want("seen.ov.test", dns.TypeTXT, `"from nsupdate"`)
	if !evalAs[bool](e, `window.__notReloaded === true`) {
		t.Error("the page was reloaded")
	}
	e.noProblems()
}

// TestSearchJourney: search finds records across zones by value, name
// and type, as named serves them (one added behind the API's back too),
// and only in the zones the token may read.
func TestSearchJourney(t *testing.T) {
	e := start(t)
	e.createZone("one.test", [3]string{"www", "A", "192.0.2.10"})
	e.createZone("two.test", [3]string{"api", "A", "192.0.2.11"})
	e.createZone("a.scope.test", [3]string{"inscope", "A", "192.0.2.12"})
	e.nsupdate("two.test", "update add hidden.two.test. 60 IN A 192.0.2.13\n")
	e.want("hidden.two.test", dns.TypeA, "192.0.2.13")
	e.signIn("admin")
	search := func(q string) string {
		t.Helper()
		e.open("#/search")
		e.fill("za-search input", q)
		e.click("za-search button")
		e.waitJS(`!!document.querySelector('za-search table, za-search p:not(.msg)')`, "the results of "+q)
		return evalAs[string](e, `document.querySelector('za-search').textContent`)
	}
	got := search("192.0.2.1")
	for _, want := range []string{"one.test", "two.test", "a.scope.test", "192.0.2.13", "hidden"} {
		if !strings.Contains(got, want) {
			t.Errorf("search 192.0.2.1 does not show %q:\n%s", want, got)
		}
	}
	if got := search("api"); !strings.Contains(got, "192.0.2.11") || strings.Contains(got, "192.0.2.10") {
		t.Errorf("search api:\n%s", got)
	}
	e.click(".who button")
	e.typeToken("narrow")
	e.run("waiting for the sign-in", waitSignedIn)
	if got := search("192.0.2.1"); !strings.Contains(got, "192.0.2.12") || strings.Contains(got, "one.test") || strings.Contains(got, "192.0.2.13") {
		t.Errorf("search as a token of a.scope.test only:\n%s", got)
	}
	e.noProblems()
}
