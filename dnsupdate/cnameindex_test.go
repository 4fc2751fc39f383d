package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// adds is a batch of n A records at prefix000, prefix001, ..., and at
// each of extra.
func adds(prefix string, n int, extra ...string) []Change {
	var out []Change
	for i := range n {
		out = append(out, Change{Op: OpAdd, Name: fmt.Sprintf("%s%03d", prefix, i), Type: "A", Value: "192.0.2.7"})
	}
	for _, name := range extra {
		out = append(out, Change{Op: OpAdd, Name: name, Type: "A", Value: "192.0.2.8"})
	}
	return out
}

// guards counts the "no CNAME" prerequisites of the UPDATEs u sends.
func guards(u *Updater) *atomic.Int64 {
	var n atomic.Int64
	u.beforeSend = func(m *dns.Msg) {
		for _, rr := range m.Answer {
			if rr.Header().Rrtype == dns.TypeCNAME {
				n.Add(1)
			}
		}
	}
	return &n
}

// expectNone fails unless named serves no record of the type at name.
func expectNone(t *testing.T, u *Updater, zone, name string, qtype uint16) {
	t.Helper()
	rrs, err := u.Client().Query(context.Background(), zone, name+"."+zone+".", qtype)
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range rrs {
		if rr.Header().Rrtype == qtype {
			t.Fatalf("%s %s: %v", name, dns.TypeToString[qtype], rrs)
		}
	}
}

// TestBatchCNAMEIndex: a large batch is checked against the zone's CNAME
// index, built by one transfer and kept by the updater's own writes, and
// sent without per-name prerequisites; the CNAME rule holds all the same,
// for CNAMEs that were there, that the updater added since, and that
// another writer adds while the batch is on its way (the batch is pinned
// to the index's SOA, so named refuses it; nothing of it is applied).
func TestBatchCNAMEIndex(t *testing.T) {
	const zone = "cnameindex.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "target.example."}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	n := guards(u)
	if _, err := u.Batch(ctx, zone, adds("a", indexMinAdds), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 0 || u.Transfers() != 1 {
		t.Fatalf("first large batch: %d prerequisites, %d transfers; want 0 and 1 (the index)", n.Load(), u.Transfers())
	}
	if _, err := u.Batch(ctx, zone, adds("b", 3), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if n.Load() != 0 || u.Transfers() != 1 {
		t.Fatalf("small batch with an index: %d prerequisites, %d transfers; want 0 and 1", n.Load(), u.Transfers())
	}

	// A CNAME from before the index, and one the updater added since.
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "late", Type: "CNAME", Value: "target.example."}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alias", "late"} {
		_, err := u.Batch(ctx, zone, adds("c-"+name, 5, name), WriteOptions{})
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Field != "changes[5]" {
			t.Fatalf("A beside the CNAME at %s: %v, want a conflict at changes[5]", name, err)
		}
		expectNone(t, u, zone, name, dns.TypeA)
		expectNone(t, u, zone, "c-"+name+"000", dns.TypeA)
	}

	// Another writer adds a CNAME after the batch was checked against the
	// index and before named reads it.
	var raced atomic.Bool
	send := u.beforeSend
	u.beforeSend = func(m *dns.Msg) {
		send(m)
		for _, rr := range m.Ns {
			if strings.HasPrefix(rr.Header().Name, "racy.") && raced.CompareAndSwap(false, true) {
				other := new(dns.Msg)
				other.SetUpdate(zone + ".")
				cname, _ := dns.NewRR("racy." + zone + ". 300 IN CNAME target.example.")
				other.Insert([]dns.RR{cname})
				if err := u.Client().Update(ctx, zone, other); err != nil {
					t.Errorf("the other writer: %v", err)
				}
			}
		}
	}
	before := n.Load()
	_, err := u.Batch(ctx, zone, adds("d", indexMinAdds, "racy"), WriteOptions{})
	var ce *ConflictError
	if !raced.Load() || !errors.As(err, &ce) {
		t.Fatalf("batch raced by a CNAME (raced %v): %v, want a conflict", raced.Load(), err)
	}
	if n.Load() == before {
		t.Fatal("the raced batch was not sent again with its prerequisites")
	}
	expectNone(t, u, zone, "racy", dns.TypeA)
	expectNone(t, u, zone, "d000", dns.TypeA)
	if rrs, err := u.Client().Query(ctx, zone, "racy."+zone+".", dns.TypeCNAME); err != nil || len(rrs) != 1 {
		t.Fatalf("the other writer's CNAME: %v %v", rrs, err)
	}
}

// TestBatchCNAMEIndexOtherWriters: after another writer moved the zone the
// index no longer matches named's SOA; the batch is sent again with its
// prerequisites and applied.
func TestBatchCNAMEIndexOtherWriters(t *testing.T) {
	const zone = "cnameother.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	n := guards(u)
	if _, err := u.Batch(ctx, zone, adds("a", indexMinAdds), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	other := new(dns.Msg)
	other.SetUpdate(zone + ".")
	txt, _ := dns.NewRR("other." + zone + ". 300 IN TXT \"x\"")
	other.Insert([]dns.RR{txt})
	if err := u.Client().Update(ctx, zone, other); err != nil {
		t.Fatal(err)
	}
	res, err := u.Batch(ctx, zone, adds("b", 3), WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n.Load() != 3 || len(res.Records) != 3 {
		t.Fatalf("%d prerequisites, %d records; want 3 and 3", n.Load(), len(res.Records))
	}
	if rrs, err := u.Client().Query(ctx, zone, "b002."+zone+".", dns.TypeA); err != nil || len(rrs) != 1 {
		t.Fatalf("b002: %v %v", rrs, err)
	}
}

// TestBatchCNAMEIndexBoundedTransfer: a zone much larger than the batch is
// not transferred to build an index (the transfer stops at
// indexSizeFactor records per add); the batch keeps its prerequisites.
func TestBatchCNAMEIndexBoundedTransfer(t *testing.T) {
	const zone = "cnamebig.test"
	ns, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Batch(ctx, zone, adds("big", indexSizeFactor*indexMinAdds/4*5), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	c, err := NewClient(ns.DNSAddr, &TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	fresh := NewUpdater(c) // knows nothing of the zone
	n := guards(fresh)
	for range 2 {
		if _, err := fresh.Batch(ctx, zone, adds(fmt.Sprint("x", n.Load()), indexMinAdds), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if fresh.Transfers() != 0 || n.Load() != 2*indexMinAdds {
		t.Fatalf("%d transfers, %d prerequisites; want 0 and %d", fresh.Transfers(), n.Load(), 2*indexMinAdds)
	}
}

// TestBatchCNAMEIndexTransferRefused: a zone named will not transfer
// takes its large batches with prerequisites, as before the index, and
// the updater does not ask for a transfer on every batch.
func TestBatchCNAMEIndexTransferRefused(t *testing.T) {
	const zone = "cnamenoxfr.test"
	_, u := startUpdaterWith(t, zone, fmt.Sprintf(`allow-update { key %q; }; allow-transfer { none; };`, testbind.TSIGKeyName))
	ctx := context.Background()
	n := guards(u)
	var soaQueries atomic.Int64
	u.Client().SetHooks(Hooks{Message: func(_ context.Context, dir string, m Message) {
		if dir == "send" && m.Opcode() == "QUERY" {
			soaQueries.Add(1)
		}
	}})
	for i := range 2 {
		if _, err := u.Batch(ctx, zone, adds(fmt.Sprint("r", i), indexMinAdds), WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if n.Load() != 2*indexMinAdds {
		t.Fatalf("%d prerequisites, want %d", n.Load(), 2*indexMinAdds)
	}
	if q := soaQueries.Load(); q > 2 {
		t.Fatalf("%d queries for two batches: the second tried to transfer again", q)
	}
}

// TestBatchDSNeedsDelegation: a DS added where the batch leaves no NS
// records is a conflict and nothing is sent, where named took the UPDATE,
// bumped the serial and kept no DS (the change was answered as made); a
// DS beside the delegation's NS, given in the same batch, is served.
func TestBatchDSNeedsDelegation(t *testing.T) {
	const zone = "dsdeleg.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	ds := "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"
	soa := func() uint32 {
		s, err := u.Client().SOA(ctx, zone)
		if err != nil {
			t.Fatal(err)
		}
		return s.Serial
	}
	before := soa()
	for _, name := range []string{"sub", "@"} {
		_, err := u.Batch(ctx, zone, []Change{{Op: OpAdd, Name: name, Type: "DS", Value: ds}}, WriteOptions{})
		var ce *ConflictError
		if !errors.As(err, &ce) || ce.Field != "changes[0]" {
			t.Fatalf("DS at %s without a delegation: %v, want a conflict", name, err)
		}
	}
	if got := soa(); got != before {
		t.Fatalf("refused batches moved the serial %d -> %d", before, got)
	}
	if _, err := u.Batch(ctx, zone, []Change{{Op: OpAdd, Name: "deleg", Type: "NS", Value: "ns.example.org."}, {Op: OpAdd, Name: "deleg", Type: "DS", Value: ds}}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	rrs, err := u.Client().Query(ctx, zone, "deleg."+zone+".", dns.TypeDS)
	if err != nil {
		t.Fatal(err)
	}
	if len(rrs) != 1 || rrs[0].Header().Rrtype != dns.TypeDS {
		t.Fatalf("DS at the delegation = %v", rrs)
	}
}
