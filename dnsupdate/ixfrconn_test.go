package dnsupdate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// TestIXFRPooled: the writer's diff read on a pooled connection answers
// exactly what IXFR on a connection of its own answers (a step, the
// whole zone when the journal does not reach back, nothing when up to
// date), and opens no connection of its own.
func TestIXFRPooled(t *testing.T) {
	const zone = "ixfr.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	c := u.Client()
	ttl := uint32(60)
	// A zone larger than one step, so that named answers a step by step
	// (max-ixfr-ratio: 100% by default).
	var fill []Change
	for i := 0; i < 20; i++ {
		fill = append(fill, Change{Op: OpAdd, Name: fmt.Sprintf("h%d", i), Type: "A", Value: "192.0.2.7"})
	}
	if _, err := u.Batch(ctx, zone, fill, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	var last *ChangeResult
	for i := 0; i < 3; i++ {
		res, err := u.Batch(ctx, zone, []Change{{Op: OpReplace, Name: "t", Type: "TXT", Values: []string{fmt.Sprintf(`"v%d"`, i)}, TTL: &ttl}}, WriteOptions{})
		if err != nil {
			t.Fatalf("batch %d: %v", i, err)
		}
		last = res
	}
	open := len(c.open)
	text := func(deltas []Delta, full []dns.RR) string {
		s := ""
		for _, d := range deltas {
			s += fmt.Sprintf("%d->%d -%v +%v;", d.From, d.To, d.Deleted, d.Added)
		}
		return s + fmt.Sprint(full)
	}
	for _, from := range []uint32{last.OldSerial, last.OldSerial - 1, last.Serial, 0} {
		pd, pf, err := c.ixfrPooled(ctx, zone, from)
		if err != nil {
			t.Fatalf("pooled from %d: %v", from, err)
		}
		d, f, err := c.IXFR(ctx, zone, from)
		if err != nil {
			t.Fatalf("ixfr from %d: %v", from, err)
		}
		if got, want := text(pd, pf), text(d, f); got != want {
			t.Errorf("from %d: pooled answered\n%s\nIXFR\n%s", from, got, want)
		}
		if from == last.OldSerial && (len(pd) != 1 || len(pd[0].Added) != 1 || len(pd[0].Deleted) != 1) {
			t.Errorf("from %d: want one step deleting and adding one TXT, got %s", from, text(pd, pf))
		}
		if from == 0 && pf == nil {
			t.Errorf("from 0: want the whole zone, got %s", text(pd, pf))
		}
	}
	if got := len(c.open); got != open {
		t.Errorf("open connections went from %d to %d: the pooled IXFR dialled", open, got)
	}
}

// TestAXFRPooled: a zone read by AXFR on a pooled connection is what
// AXFR on a connection of its own reads, record for record, also for a
// zone named answers in several messages (400 TXT records of 250 bytes),
// twice on the same connection, without opening another; an unknown zone
// fails, as AXFR's does, and the next read works.
func TestAXFRPooled(t *testing.T) {
	const zone = "axfr.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	c := u.Client()
	var fill []Change
	long := `"` + strings.Repeat("x", 250) + `"`
	for i := range 400 { // some 100 KB: more than one message of 64 KiB
		fill = append(fill, Change{Op: OpAdd, Name: fmt.Sprintf("h%d", i), Type: "TXT", Value: long})
	}
	for i := 0; i < len(fill); i += 100 {
		if _, err := u.Batch(ctx, zone, fill[i:i+100], WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want, err := c.transferUpTo(ctx, zone, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SOA(ctx, zone); err != nil { // a pooled connection
		t.Fatal(err)
	}
	open := len(c.open)
	for range 2 {
		got, err := c.axfrPooled(ctx, zone)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("pooled AXFR: %d records, AXFR: %d records, or they differ", len(got), len(want))
		}
	}
	if got := len(c.open); got != open {
		t.Errorf("open connections went from %d to %d: the pooled AXFR dialled", open, got)
	}
	// named's answer for a zone it does not serve fails TSIG's check
	// here as in the library's AXFR (its TSIG error is BADKEY).
	_, terr := c.transferUpTo(ctx, "unknown.test", 0)
	if _, err := c.axfrPooled(ctx, "unknown.test"); err == nil || terr == nil {
		t.Errorf("unknown zone: pooled %v, AXFR %v; want errors", err, terr)
	}
	if got, err := c.axfrPooled(ctx, zone); err != nil || len(got) != len(want) {
		t.Errorf("after the failure: %d records, %v", len(got), err)
	}
}
