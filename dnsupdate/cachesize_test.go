package dnsupdate

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/miekg/dns"
)

// transferred returns rrs as a transfer delivers them: each record
// unpacked from the wire, its names and data in their own allocations.
func transferred(t testing.TB, rrs []dns.RR) []dns.RR {
	m := new(dns.Msg)
	m.Answer = rrs
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	var back dns.Msg
	if err := back.Unpack(b); err != nil {
		t.Fatal(err)
	}
	return back.Answer
}

// hostingZone is a small zone as a hosting primary holds by the
// thousand: SOA, two NS, a few addresses, MX, TXT and a CNAME.
func hostingZone(zone string, serial uint32) []dns.RR {
	var rrs []dns.RR
	for _, s := range []string{
		zone + ". 3600 IN SOA ns1.provider.example. hostmaster.provider.example. " + fmt.Sprint(serial) + " 3600 600 86400 300",
		zone + ". 3600 IN NS ns1.provider.example.",
		zone + ". 3600 IN NS ns2.provider.example.",
		zone + ". 300 IN A 192.0.2.10",
		zone + ". 300 IN AAAA 2001:db8::10",
		zone + ". 300 IN MX 10 mail." + zone + ".",
		zone + ". 300 IN TXT \"v=spf1 mx -all\"",
		"www." + zone + ". 300 IN CNAME " + zone + ".",
		"mail." + zone + ". 300 IN A 192.0.2.11",
	} {
		rr, err := dns.NewRR(s)
		if err != nil {
			panic(err)
		}
		rrs = append(rrs, rr)
	}
	return rrs
}

// heapNow returns the live heap after a collection.
func heapNow() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestSnapshotSizeHonest builds the snapshots of a few thousand zones as
// a read does (records from the wire, RRsets built) and compares the
// heap they hold with the cache's estimate (snapshotSize), for zones of
// a few records as a hosting primary holds them and for larger ones: the
// estimate must count what a snapshot really holds, so that the cache's
// bound bounds memory.
func TestSnapshotSizeHonest(t *testing.T) {
	const zones = 3000
	for _, shape := range []struct {
		name string
		rrs  func(zone string) []dns.RR
	}{
		{"SOA+NS", func(z string) []dns.RR { return hostingZone(z, 1)[:2] }},
		{"hosting (9 records)", func(z string) []dns.RR { return hostingZone(z, 1) }},
		{"SOA+20 A", func(z string) []dns.RR { return fakeZone(z, 1, 20) }},
		{"SOA+200 A", func(z string) []dns.RR { return fakeZone(z, 1, 200) }},
	} {
		wire := make([]*dns.Msg, zones)
		for i := range zones {
			wire[i] = &dns.Msg{Answer: shape.rrs(fmt.Sprintf("zone-%d.example", i))}
		}
		snaps := make([]*Snapshot, zones)
		before := heapNow()
		for i := range zones {
			s := newSnapshot(fmt.Sprintf("zone-%d.example", i), transferred(t, wire[i].Answer))
			s.RRsets()
			snaps[i] = s
		}
		measured := int64(heapNow()) - int64(before)
		est := 0
		for _, s := range snaps {
			est += snapshotSize(s)
		}
		runtime.KeepAlive(snaps)
		runtime.KeepAlive(wire)
		ratio := float64(est) / float64(measured)
		t.Logf("%d zones %s: heap %d bytes (%d a zone), estimate %d (%.2fx)", zones, shape.name, measured, measured/zones, est, ratio)
		if ratio < 0.9 || ratio > 1.5 {
			t.Errorf("%d zones %s hold %d bytes of heap, the cache's estimate is %d (%.2fx, want 0.9x-1.5x)", zones, shape.name, measured, est, ratio)
		}
	}
}
