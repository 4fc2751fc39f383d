package integration

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestHistoryHugeChangeKeepsTheAPIUp: a token that may change records
// adds 400 TXT records of 64,000 '<' each (one request each) and deletes
// 180 of their RRsets in one batch: named's IXFR of that change holds
// their data, ~69 MB of JSON in the history entry ('<' is \u003c). The
// entry is written without the records' data, so a restart opens the
// history and the API answers. Before the fix the entry was one line of
// 69,360,469 bytes, past the 64 MiB a read takes back: after the restart
// every request answered 500 ("opening the change history: … bufio:
// buffer full") until the file was repaired by hand.
func TestHistoryHugeChangeKeepsTheAPIUp(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "huge.test"
	expect(t, c.do("POST", "/api/v1/zones", zoneBody(zone)), http.StatusCreated, "create")
	val := strings.Repeat("<", 64000)
	for i := 0; i < 400; i++ {
		r := c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": fmt.Sprintf("_acme-challenge.t%d", i), "type": "TXT", "value": val})
		if r.status != http.StatusCreated {
			t.Fatalf("add %d: %d %.300s", i, r.status, r.raw)
		}
	}
	var changes []map[string]any
	for i := 0; i < 180; i++ {
		changes = append(changes, map[string]any{"op": "delete", "name": fmt.Sprintf("_acme-challenge.t%d", i), "type": "TXT"})
	}
	expect(t, c.do("PATCH", "/api/v1/zones/"+zone+"/records", map[string]any{"changes": changes}), http.StatusOK, "batch delete")
	c.Stop()
	c.Start()
	expect(t, c.do("GET", "/api/v1/zones/"+zone, nil), http.StatusOK, "the zone after a restart")
	g := c.do("GET", "/api/v1/zones/"+zone+"/changes?limit=1000", nil)
	expect(t, g, http.StatusOK, "the zone's changes after a restart")
	chs, _ := g.body["changes"].([]any)
	if len(chs) != 402 {
		t.Fatalf("%d changes, want 402 (the create, 400 adds, the batch)", len(chs))
	}
	last := chs[len(chs)-1].(map[string]any)
	if rem, _ := last["removed"].([]any); len(rem) != 180 {
		t.Errorf("the batch's entry lists %d removed RRsets, want 180 (names and types kept)", len(rem))
	}
}
