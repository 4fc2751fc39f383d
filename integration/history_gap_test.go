package integration

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestHistoryGapWholeZone: a change named applied that the history lacks
// (the process that made it was killed before its entry, or it was made
// elsewhere and no NOTIFY told the API) is recorded, with its records, by
// the API's next write of the zone (the gap fill), also when named
// answers the gap's IXFR with the whole zone (a zone just created: its
// first change outweighs it at named's default max-ixfr-ratio), which is
// then already at the write's serial. CI's TestEventStreamCrashSafety
// found such a gap recorded with its two serials and no records.
func TestHistoryGapWholeZone(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{}) // no notify_listen: no NOTIFY records the change first
	const zone = "gap.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	created, _ := soaOn(ns, zone)
	nsupdateView(t, ns, ns.TSIGKeyFile, zone, "update add x.gap.test. 60 IN A 192.0.2.1\n")
	gap, _ := soaOn(ns, zone)
	if gap == created {
		t.Fatalf("the nsupdate did not move the serial from %d", created)
	}
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "y", "type": "A", "value": "192.0.2.2", "ttl": 60}), http.StatusCreated, "add")
	after, _ := soaOn(ns, zone)

	flat := func(rs []changeRset) string { return strings.Join(changeRecords(rs), ", ") }
	var got []string
	for _, ch := range c.changes(testToken, "/api/v1/zones/"+zone+"/changes") {
		if ch.Type != "records.changed" {
			continue
		}
		var before, aft uint32
		if ch.SerialBefore != nil {
			before = *ch.SerialBefore
		}
		if ch.SerialAfter != nil {
			aft = *ch.SerialAfter
		}
		got = append(got, fmt.Sprintf("%s %d->%d added [%s] removed [%s]", ch.Source, before, aft, flat(ch.Added), flat(ch.Removed)))
	}
	want := []string{
		fmt.Sprintf("external %d->%d added [x.gap.test A 192.0.2.1] removed []", created, gap),
		fmt.Sprintf("api %d->%d added [y.gap.test A 192.0.2.2] removed []", gap, after),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the zone's record changes:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// named did send the whole zone: what this test is about.
	if log, _ := os.ReadFile(ns.LogFile); !strings.Contains(string(log), "AXFR-style IXFR") {
		t.Errorf("named answered the gap's IXFR with the changes; the test needs a zone whose changes outweigh it")
	}
}
