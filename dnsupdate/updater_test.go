package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// startUpdater starts named with one dynamic zone (allow-update for the
// testbind TSIG key) and returns an Updater for it.
func startUpdater(t *testing.T, zone string) (*testbind.Server, *Updater) {
	t.Helper()
	return startUpdaterWith(t, zone, fmt.Sprintf(`allow-update { key %q; };`, testbind.TSIGKeyName))
}

// startUpdaterWith starts named with one primary zone whose statement
// also holds options, and returns an Updater for it.
func startUpdaterWith(t *testing.T, zone, options string) (*testbind.Server, *Updater) {
	t.Helper()
	ns := testbind.Start(t, nil)
	path, err := ns.WriteZone(zone, testbind.MinimalZone(zone, 1))
	if err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("addzone", zone, fmt.Sprintf(`{ type primary; file %q; %s };`, path, options)); err != nil {
		t.Fatalf("addzone: %v %s", err, out)
	}
	c, err := NewClient(ns.DNSAddr, &TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return ns, NewUpdater(c)
}

func rdatas(rrs []dns.RR, t uint16) []string {
	var out []string
	for _, rr := range rrs {
		if rr.Header().Rrtype == t {
			out = append(out, zonemodel.RDataText(rr))
		}
	}
	slices.Sort(out)
	return out
}

func u32p(v uint32) *uint32 { return &v }
func strp(s string) *string { return &s }

func TestUpdaterAgainstNamed(t *testing.T) {
	const zone = "upd.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	c := u.Client()

	res, err := u.Add(ctx, zone, zonemodel.Record{Name: "txt", Type: "TXT", Value: "v=spf1 mx -all"}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasSerial || res.Serial != 2 || res.Records[0].Header().Ttl != 300 {
		t.Fatalf("add result %+v %v", res, res.Records)
	}
	got, err := c.Query(ctx, zone, "txt.upd.test.", dns.TypeTXT)
	if err != nil || !slices.Equal(rdatas(got, dns.TypeTXT), []string{`"v=spf1 mx -all"`}) {
		t.Fatalf("txt: %v %v", got, err)
	}

	// CNAME rules.
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "www", Type: "CNAME", Value: "txt"}, WriteOptions{}); !isConflict(err) {
		t.Fatalf("CNAME beside A: %v", err)
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "www"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "www"}, WriteOptions{}); err != nil {
		t.Fatalf("same CNAME again: %v", err)
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "txt"}, WriteOptions{}); !isConflict(err) {
		t.Fatalf("second CNAME: %v", err)
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "A", Value: "192.0.2.9"}, WriteOptions{}); !isConflict(err) {
		t.Fatalf("A beside CNAME: %v", err)
	}

	// PUT.
	_, err = u.Replace(ctx, zone, Replacement{Name: "www", Type: "A", CurrentValue: "192.0.2.99", NewValue: "192.0.2.2"}, WriteOptions{})
	if !errors.Is(err, ErrRecordNotFound) {
		t.Fatalf("replace missing: %v", err)
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "www", Type: "A", Value: "192.0.2.3"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err = u.Replace(ctx, zone, Replacement{Name: "www.upd.test", Type: "A", CurrentValue: "192.0.2.1", NewValue: "192.0.2.2", TTL: u32p(60)}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ = c.Query(ctx, zone, "www.upd.test.", dns.TypeA)
	if !slices.Equal(rdatas(got, dns.TypeA), []string{"192.0.2.2", "192.0.2.3"}) {
		t.Fatalf("www after replace: %v", got)
	}

	// Delete by value, then RRset; apex NS.
	if _, err := u.Remove(ctx, zone, Removal{Name: "www", Type: "A", Value: strp("192.0.2.3")}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := u.Remove(ctx, zone, Removal{Name: "@", Type: "NS"}, WriteOptions{}); !isConflict(err) {
		t.Fatalf("apex NS delete: %v", err)
	}
	if _, err := u.Remove(ctx, zone, Removal{Name: "@", Type: "NS", Value: strp("ns1")}, WriteOptions{}); !isConflict(err) {
		t.Fatalf("last NS delete: %v", err)
	}

	// Batch: replace apex NS, a CNAME swap, conditional.
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	batch := []Change{
		{Op: OpReplace, Name: "@", Type: "NS", Values: []string{"ns2", "ns3"}},
		{Op: OpAdd, Name: "ns2", Type: "A", Value: "127.0.0.2"},
		{Op: OpAdd, Name: "ns3", Type: "AAAA", Value: "::1"},
		{Op: OpDelete, Name: "txt", Type: "TXT"},
		{Op: OpAdd, Name: "txt", Type: "CNAME", Value: "www"},
	}
	old := snap.Serial()
	res, err = u.Batch(ctx, zone, batch, WriteOptions{IfSerial: &old})
	if err != nil {
		t.Fatal(err)
	}
	if res.OldSerial != old || res.Serial != old+1 {
		t.Fatalf("batch serials %d -> %d", res.OldSerial, res.Serial)
	}
	got, _ = c.Query(ctx, zone, "upd.test.", dns.TypeNS)
	if !slices.Equal(rdatas(got, dns.TypeNS), []string{"ns2.upd.test.", "ns3.upd.test."}) {
		t.Fatalf("apex NS after batch: %v", got)
	}
	if _, err := u.Batch(ctx, zone, batch, WriteOptions{IfSerial: &old}); !errors.As(err, new(*PreconditionError)) {
		t.Fatalf("stale If-Match: %v", err)
	}

	// Export equals a fresh transfer.
	snap, err = u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	n := u.Transfers()
	if _, err := u.Snapshot(ctx, zone); err != nil || u.Transfers() != n {
		t.Fatalf("unchanged zone transferred again: %v", err)
	}
	zp := dns.NewZoneParser(strings.NewReader(string(snap.MasterFile())), "", "")
	var parsed []dns.RR
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		parsed = append(parsed, rr)
	}
	if zp.Err() != nil || len(parsed) != len(snap.RRs) {
		t.Fatalf("export parses to %d records (%v), want %d", len(parsed), zp.Err(), len(snap.RRs))
	}
	for i := range parsed {
		if !dns.IsDuplicate(parsed[i], snap.RRs[i]) || parsed[i].Header().Ttl != snap.RRs[i].Header().Ttl {
			t.Fatalf("record %d: %v != %v", i, parsed[i], snap.RRs[i])
		}
	}
}

func isConflict(err error) bool {
	var ce *ConflictError
	return errors.As(err, &ce)
}

// TestDNSClientCapsConnections: a burst of exchanges opens at most maxOpen
// connections and the rest wait for one: a burst of connects beyond
// named's listen queue loses SYNs, retried a second later.
func TestDNSClientCapsConnections(t *testing.T) {
	const zone = "burst.test"
	_, u := startUpdater(t, zone)
	c := u.Client()
	var dials atomic.Int32
	c.dialer.Control = func(string, string, syscall.RawConn) error {
		dials.Add(1)
		return nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, 48)
	for range 48 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.SOA(context.Background(), zone); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := dials.Load(); n < 1 || n > maxOpen {
		t.Fatalf("%d connections opened for 48 queries, want 1..%d", n, maxOpen)
	}
}

// TestAddBeyondMaxRecordsPerType: named answers SERVFAIL to the 101st
// record of an RRset (max-records-per-type); the client learns why.
func TestAddBeyondMaxRecordsPerType(t *testing.T) {
	const zone = "many.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	var batch []Change
	for i := range 100 {
		batch = append(batch, Change{Op: OpAdd, Name: "_acme-challenge", Type: "TXT", Value: fmt.Sprintf("token-%d", i)})
	}
	if _, err := u.Batch(ctx, zone, batch, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := u.Add(ctx, zone, zonemodel.Record{Name: "_acme-challenge", Type: "TXT", Value: "token-100"}, WriteOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || !strings.Contains(ce.Message, "max-records-per-type") || !strings.Contains(ce.Message, "100 records") {
		t.Fatalf("101st record: %v", err)
	}
}

// TestBatchSetsSOA: a batch given WriteOptions.SOA sets that SOA in the
// same UPDATE as its changes (PowerDNS's PATCH of the SOA RRset): its
// serial when higher than the zone's, the next one otherwise (named would
// ignore the SOA), and the answer's serial is the one named then serves.
// The batch's own changes still may not touch the SOA.
func TestBatchSetsSOA(t *testing.T) {
	ns, u := startUpdater(t, "soa.test")
	ctx := context.Background()
	ttl := uint32(300)
	set := func(content string, soaTTL uint32) *dns.SOA {
		rr, err := dns.NewRR("soa.test. " + fmt.Sprint(soaTTL) + " IN SOA " + content)
		if err != nil {
			t.Fatal(err)
		}
		return rr.(*dns.SOA)
	}
	served := func() *dns.SOA {
		t.Helper()
		rrs, err := ns.Query("", "soa.test.", dns.TypeSOA)
		if err != nil {
			t.Fatal(err)
		}
		for _, rr := range rrs {
			if soa, ok := rr.(*dns.SOA); ok {
				return soa
			}
		}
		t.Fatalf("no SOA served: %v", rrs)
		return nil
	}
	res, err := u.Batch(ctx, "soa.test", []Change{{Op: OpAdd, Name: "www", Type: "A", Value: "192.0.2.1", TTL: &ttl}},
		WriteOptions{SOA: set("ns1.example.org. test.example.org. 10 10800 3600 604800 1800", 3600)})
	if err != nil {
		t.Fatal(err)
	}
	got := served()
	if res.Serial != 10 || got.Serial != 10 || got.Ns != "ns1.example.org." || got.Mbox != "test.example.org." || got.Minttl != 1800 || got.Hdr.Ttl != 3600 {
		t.Fatalf("answered serial %d, named serves %v; want serial 10 with the SOA given", res.Serial, got)
	}
	if a, err := ns.Query("", "www.soa.test.", dns.TypeA); err != nil || len(a) != 1 {
		t.Fatalf("the batch's A record: %v %v", a, err)
	}
	// A serial not above the zone's: the next one, the rest as given.
	res, err = u.Batch(ctx, "soa.test", nil, WriteOptions{SOA: set("ns2.example.org. test.example.org. 5 10800 3600 604800 900", 600)})
	if err != nil {
		t.Fatal(err)
	}
	got = served()
	if res.OldSerial != 10 || res.Serial != 11 || got.Serial != 11 || got.Ns != "ns2.example.org." || got.Minttl != 900 || got.Hdr.Ttl != 600 {
		t.Fatalf("answered serials %d→%d, named serves %v; want 10→11 with the SOA given", res.OldSerial, res.Serial, got)
	}
	// Without the option an SOA change is refused as before.
	_, err = u.Batch(ctx, "soa.test", []Change{{Op: OpReplace, Name: "@", Type: "SOA", Values: []string{"ns1.example.org. test.example.org. 20 10800 3600 604800 1800"}}}, WriteOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("an SOA change in the batch: %v, want a conflict", err)
	}
	if got = served(); got.Serial != 11 {
		t.Fatalf("serial %d after a refused change, want 11", got.Serial)
	}
}
