package zoneservice

import (
	"context"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestCreateRecordsFileSerial: a create of a primary zone whose statement
// says dnssec-policy none records, in its history entry, the serial of
// the file it wrote (what named serves once addzone added the zone)
// without asking named for the zone's SOA: that query waited behind
// named's other addzones on every create. A zone without dnssec-policy
// in its statement inherits named.conf's, which may sign it and move its
// serial, so named is asked: the rig's DNS server does not serve the
// zone, so that create records no serial (and before, the file's serial
// was recorded for it unasked).
func TestCreateRecordsFileSerial(t *testing.T) {
	r, _ := importRig(t, false)
	log, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	r.s.History = log
	for _, name := range []string{"none.test", "inherit.test"} {
		req := zoneReq(name)
		if name == "none.test" {
			req.ZoneConfig.DNSSECPolicy = "none"
		}
		z, err := req.Normalize(testNow)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.s.Create(context.Background(), z, Fingerprint(req)); err != nil {
			t.Fatal(err)
		}
	}
	es, err := log.Read(0, history.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := *zoneReq("none.test").ZoneConfig.SOA.Serial
	if len(es) != 2 || es[0].Type != history.ZoneCreated || es[0].Zone != "none.test" || es[0].SerialAfter == nil || *es[0].SerialAfter != want {
		t.Fatalf("history %+v, want zone.created of none.test with serial_after %d", es, want)
	}
	if es[1].Zone != "inherit.test" || es[1].SerialAfter != nil {
		t.Fatalf("inherit.test's entry %+v: recorded a serial named was not asked for", es[1])
	}
}
