package dnsupdate

import (
	"fmt"
	"testing"

	"github.com/miekg/dns"
)

// BenchmarkModelBulkLoad: 50 batches of 1,000 adds of new names into a
// zone known whole from a snapshot, as a bulk load sends them.
func BenchmarkModelBulkLoad(b *testing.B) {
	zone := "bench.test"
	soa := &dns.SOA{Hdr: dns.RR_Header{Name: zone + ".", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300}, Serial: 1}
	snap := newSnapshot(zone, []dns.RR{soa})
	var updates [][]dns.RR
	for k := range 50 {
		var update []dns.RR
		for i := range 1000 {
			rr, _ := dns.NewRR(fmt.Sprintf("k%d-%04d.%s. 60 IN A 192.0.2.2", k, i, zone))
			update = append(update, rr)
		}
		updates = append(updates, update)
	}
	u := NewUpdater(nil)
	b.ReportAllocs()
	for b.Loop() {
		zw := u.writer(zone)
		zw.mu.Lock()
		zw.known = nil
		zw.learn(snap)
		cur := soa
		for _, update := range updates {
			next := *cur
			next.Serial++
			w := &write{guarded: true, update: update}
			zw.model(cur, &next, []*write{w})
			if w.local == nil || len(w.local.added) != 1000 {
				b.Fatal("not modelled")
			}
			cur = &next
		}
		zw.known.drop(zw.total)
		zw.mu.Unlock()
	}
}
