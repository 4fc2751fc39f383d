package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// queueBatches holds the zone's writer busy, starts one Batch per change
// list, waits until all are queued behind the held lead, then lets them
// run (the first one queued leads). It returns each batch's result and
// error and what its Applied callback was told.
func queueBatches(t *testing.T, u *Updater, zone string, batches [][]Change) ([]*ChangeResult, []error, []Applied) {
	t.Helper()
	zw := holdLead(u, zone)
	res := make([]*ChangeResult, len(batches))
	errs := make([]error, len(batches))
	applied := make([]Applied, len(batches))
	var wg sync.WaitGroup
	for i, b := range batches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i], errs[i] = u.Batch(context.Background(), zone, b, WriteOptions{Applied: func(a Applied) { applied[i] = a }})
		}()
		waitQueued(t, zw, i+1) // in this order
	}
	zw.handOff()
	wg.Wait()
	return res, errs, applied
}

// txtReplace is a one-RRset batch: the TXT RRset at name replaced, as a
// PowerDNS PATCH REPLACE sends it.
func txtReplace(name, value string) []Change {
	ttl := uint32(60)
	return []Change{{Op: OpReplace, Name: name, Type: "TXT", Values: []string{`"` + value + `"`}, TTL: &ttl}}
}

// TestBatchesShareMessages: one-RRset batches of one zone queued behind
// each other (concurrent PATCHes) are sent as one UPDATE message, as
// single adds are (group commit): one serial bump for all, each answer
// naming that message's serials, and each Applied callback what its own
// batch changed, not the message's other changes. Before, each batch was
// a message of its own (six serial bumps).
func TestBatchesShareMessages(t *testing.T) {
	const zone = "bmerge.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	// Records enough that named answers the IXFR of the message with its
	// changes (max-ixfr-ratio) rather than the whole zone.
	if _, err := u.Batch(ctx, zone, append(adds("f", 40), txtReplace("r0", "old")...), WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := servedSerial(t, u, zone)
	var batches [][]Change
	for i := range 6 {
		batches = append(batches, txtReplace(fmt.Sprintf("r%d", i), fmt.Sprintf("v%d", i)))
	}
	res, errs, applied := queueBatches(t, u, zone, batches)
	for i := range batches {
		if errs[i] != nil {
			t.Fatalf("batch %d: %v", i, errs[i])
		}
		if res[i].OldSerial != before || res[i].Serial != before+1 {
			t.Errorf("batch %d: serials %d -> %d, want %d -> %d (one message)", i, res[i].OldSerial, res[i].Serial, before, before+1)
		}
		name := fmt.Sprintf("r%d.%s.", i, zone)
		rrs, err := u.Client().Query(ctx, zone, name, dns.TypeTXT)
		if err != nil || len(rrs) != 1 || !strings.Contains(rrs[0].String(), fmt.Sprintf(`"v%d"`, i)) {
			t.Errorf("%s: %v %v", name, rrs, err)
		}
		a := applied[i]
		if len(a.Added) != 1 || a.Added[0].Header().Name != name || a.Serial != before+1 {
			t.Errorf("batch %d applied: added %v at %d", i, a.Added, a.Serial)
		}
		wantRemoved := 0
		if i == 0 {
			wantRemoved = 1 // r0's old TXT
		}
		if len(a.Removed) != wantRemoved {
			t.Errorf("batch %d applied: removed %v", i, a.Removed)
		}
	}
	if got := servedSerial(t, u, zone); got != before+1 {
		t.Fatalf("serial %d after six batches from %d: want one message", got, before)
	}
}

// TestBatchMergedFailureIsolated: a batch that named refuses inside a
// merged message (an A record beside a CNAME) fails alone, with its
// conflict, and changes nothing; the batches merged with it are each
// applied, all or nothing, and their answers are true (each its own
// message's serials, its records served). Before, no batches shared a
// message.
func TestBatchMergedFailureIsolated(t *testing.T) {
	const zone = "bisolate.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "target.example."}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	before := servedSerial(t, u, zone)
	// Whether the culprit was sent in one message with the others.
	var mu sync.Mutex
	together := false
	u.beforeSend = func(m *dns.Msg) {
		names := map[string]bool{}
		for _, rr := range m.Ns {
			names[strings.SplitN(rr.Header().Name, ".", 2)[0]] = true
		}
		mu.Lock()
		together = together || names["alias"] && names["g0"] && names["g3"]
		mu.Unlock()
	}
	bad := []Change{{Op: OpAdd, Name: "alias", Type: "A", Value: "192.0.2.1"}, {Op: OpAdd, Name: "also", Type: "A", Value: "192.0.2.2"}}
	batches := [][]Change{txtReplace("g0", "a"), txtReplace("g1", "b"), bad, txtReplace("g3", "c")}
	res, errs, _ := queueBatches(t, u, zone, batches)
	var ce *ConflictError
	if !errors.As(errs[2], &ce) {
		t.Fatalf("the batch beside the CNAME: %v, want a conflict", errs[2])
	}
	expectNone(t, u, zone, "alias", dns.TypeA)
	expectNone(t, u, zone, "also", dns.TypeA)
	for _, i := range []int{0, 1, 3} {
		if errs[i] != nil {
			t.Fatalf("batch %d failed with the culprit: %v", i, errs[i])
		}
		if res[i].Serial != res[i].OldSerial+1 {
			t.Errorf("batch %d: serials %d -> %d", i, res[i].OldSerial, res[i].Serial)
		}
		name := fmt.Sprintf("g%d.%s.", i, zone)
		if rrs, err := u.Client().Query(ctx, zone, name, dns.TypeTXT); err != nil || len(rrs) != 1 {
			t.Errorf("%s: %v %v", name, rrs, err)
		}
	}
	if !together {
		t.Error("the batches were never sent as one message")
	}
	if got := servedSerial(t, u, zone); got != before+3 {
		t.Fatalf("serial %d from %d: want three messages (the refused merged one changed nothing)", got, before)
	}
}

// TestWriterTakeExclusive: a batch shares its message only with writes of
// other RRsets, so that its part of the message's IXFR is its own; single
// adds of one RRset still merge with each other. A batch that cannot join
// waits for the next message while writes of other RRsets behind it join
// (before, the message ended at it); writes of one RRset keep their order.
func TestWriterTakeExclusive(t *testing.T) {
	rr := func(s string) dns.RR {
		r, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	add := func(name string) *write {
		return &write{merge: true, size: 20, update: []dns.RR{rr(name + ".x.test. 60 IN A 192.0.2.1")}}
	}
	batch := func(name string) *write {
		return &write{merge: true, exclusive: true, size: 20, update: []dns.RR{rr(name + ".x.test. 60 IN A 192.0.2.2")}}
	}
	a1, a2, b1, b2, a3, b3 := add("a"), add("a"), batch("b"), batch("c"), add("c"), batch("c")
	zw := &zoneWriter{queue: []*write{a1, a2, b1, b2, a3, b3}}
	takes := func(what string, want ...[]*write) {
		t.Helper()
		for i, w := range append(want, nil) {
			if got := zw.take(); !slices.Equal(got, w) {
				t.Fatalf("%s: take %d: %d writes, want %d", what, i, len(got), len(w))
			}
		}
	}
	takes("in order", []*write{a1, a2, b1, b2}, []*write{a3}, []*write{b3})

	// A batch of an RRset the message has waits; a batch of another RRset
	// behind it goes ahead, a write of the held RRset does not.
	x1, x2, y, ax := batch("x"), batch("x"), batch("y"), add("x")
	zw.queue = []*write{x1, x2, y, ax}
	takes("held", []*write{x1, y}, []*write{x2}, []*write{ax})
	// Nothing overtakes a write that may not merge.
	c := &write{size: 20, update: []dns.RR{rr("z.x.test. 60 IN CNAME t.example.")}}
	x1, x2, y = batch("x"), batch("x"), batch("y")
	zw.queue = []*write{x1, x2, c, y}
	takes("stopped", []*write{x1}, []*write{x2}, []*write{c}, []*write{y})
}
