package zoneservice

import (
	"testing"

	"github.com/zoneapi/caddy-zoneapi/history"
)

// TestCreateRecordsFileSerial: a create of an unsigned primary zone
// records, in its history entry, the serial of the file it wrote (what
// named serves once addzone added the zone) without asking named for the
// zone's SOA: that query waited behind named's other addzones on every
// create. The rig's DNS server does not serve the zone, so asking it (as
// before) recorded no serial.
func TestCreateRecordsFileSerial(t *testing.T) {
	r, _ := importRig(t, false)
	log, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	r.s.History = log
	if _, err := r.create("c.test"); err != nil {
		t.Fatal(err)
	}
	es, err := log.Read(0, history.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := *zoneReq("c.test").ZoneConfig.SOA.Serial
	if len(es) != 1 || es[0].Type != history.ZoneCreated || es[0].SerialAfter == nil || *es[0].SerialAfter != want {
		t.Fatalf("history %+v, want zone.created of c.test with serial_after %d", es, want)
	}
}
