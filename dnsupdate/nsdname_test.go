package dnsupdate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestNSAndDNAMEExclusive: NS and DNAME records do not share a name
// below the apex (RFC 6672 §2.3: a DNAME below a delegation is never
// served): a batch or an add that would put them together is a conflict
// in PowerDNS's words and changes nothing, whichever comes first (at the
// apex they may). named takes such an UPDATE and serves the delegation
// without the DNAME, so the change was answered as made (before, every
// add here succeeded).
func TestNSAndDNAMEExclusive(t *testing.T) {
	const zone = "nsdname.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	ns := func(name string) Change { return Change{Op: OpAdd, Name: name, Type: "NS", Value: "ns.example.org."} }
	dname := func(name string) Change { return Change{Op: OpAdd, Name: name, Type: "DNAME", Value: "example.com."} }
	for _, c := range []Change{ns("deleg"), dname("dn")} {
		if _, err := u.Batch(ctx, zone, []Change{c}, WriteOptions{}); err != nil {
			t.Fatalf("%s %s: %v", c.Name, c.Type, err)
		}
	}
	conflict := func(what string, err error) {
		t.Helper()
		var ce *ConflictError
		if !errors.As(err, &ce) || !strings.Contains(ce.Message, "Cannot have both NS and DNAME except in zone apex") {
			t.Errorf("%s: %v, want the NS and DNAME conflict", what, err)
		}
	}
	before := servedSerial(t, u, zone)
	_, err := u.Batch(ctx, zone, []Change{dname("deleg")}, WriteOptions{})
	conflict("a batch's DNAME at a delegation", err)
	_, err = u.Batch(ctx, zone, []Change{ns("dn")}, WriteOptions{})
	conflict("a batch's NS at a DNAME", err)
	_, err = u.Batch(ctx, zone, []Change{ns("both"), dname("both")}, WriteOptions{})
	conflict("a batch with both", err)
	_, err = u.Add(ctx, zone, zonemodel.Record{Name: "deleg", Type: "DNAME", Value: "example.com."}, WriteOptions{})
	conflict("an add of a DNAME at a delegation", err)
	_, err = u.Add(ctx, zone, zonemodel.Record{Name: "dn", Type: "NS", Value: "ns.example.org."}, WriteOptions{})
	conflict("an add of an NS at a DNAME", err)
	if got := servedSerial(t, u, zone); got != before {
		t.Fatalf("serial %d after refused changes, was %d", got, before)
	}
	expectNone(t, u, zone, "dn", dns.TypeNS)
	expectNone(t, u, zone, "both", dns.TypeNS)
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range snap.At("deleg." + zone + ".") {
		if rr.Header().Rrtype == dns.TypeDNAME {
			t.Fatalf("a DNAME at the delegation: %v", rr)
		}
	}
	// A batch that deletes the NS RRset first may add the DNAME.
	if _, err := u.Batch(ctx, zone, []Change{{Op: OpDelete, Name: "deleg", Type: "NS"}, dname("deleg")}, WriteOptions{}); err != nil {
		t.Fatalf("DNAME once the delegation is gone: %v", err)
	}
}
