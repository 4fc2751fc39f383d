package zoneservice

import (
	"context"
	"sync"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestHistoryEmitted: each mutating method appends one entry with the
// actor of its context; concurrent adds (merged by the zone's writer)
// get one entry each, in serial order; a failed change records nothing.
func TestHistoryEmitted(t *testing.T) {
	r := newOpsRig(t)
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r.svc.History = l
	ctx := WithActor(context.Background(), Actor{Identity: "static:ops", Frontend: "rest", RequestID: "r1"})

	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "new", Type: "A", Value: "192.0.2.9"}, nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "c" + string(rune('a'+i)), Type: "A", Value: "192.0.2.1"}, nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "not-an-ip"}, nil); err == nil {
		t.Fatal("an invalid add was accepted")
	}
	v := "192.0.2.9"
	if _, err := r.svc.Records().RemoveRecord(ctx, "rec.test", dnsupdate.Removal{Name: "new", Type: "A", Value: &v}, nil); err != nil {
		t.Fatal(err)
	}
	r.ans.set("freeze rec.test", rndc.Response{})
	if _, err := r.svc.Freeze(ctx, "rec.test"); err != nil {
		t.Fatal(err)
	}

	es, err := l.Read(0, history.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 11 {
		t.Fatalf("%d entries, want 11: %+v", len(es), es)
	}
	for i, e := range es {
		if e.Identity != "static:ops" || e.Frontend != "rest" || e.RequestID != "r1" || e.Source != history.SourceAPI || e.Zone != "rec.test" {
			t.Errorf("entry %d: %+v", i, e)
		}
		if i > 0 && i < 10 && (e.SerialBefore == nil || e.SerialAfter == nil) {
			t.Errorf("entry %d has no serials", i)
		}
		if i > 0 && i < 10 && *e.SerialBefore != *es[i-1].SerialAfter && *e.SerialAfter != *es[i-1].SerialAfter {
			t.Errorf("entry %d (%d->%d) does not follow %d", i, *e.SerialBefore, *e.SerialAfter, *es[i-1].SerialAfter)
		}
	}
	if a := es[0].Added; len(a) != 1 || a[0].Name != "new.rec.test" || a[0].Type != "A" || a[0].Records[0] != "192.0.2.9" {
		t.Errorf("add: %+v", a)
	}
	if rm := es[9].Removed; len(rm) != 1 || rm[0].Name != "new.rec.test" || len(es[9].Added) != 0 {
		t.Errorf("remove: %+v", es[9])
	}
	if es[10].Type != history.ZoneFrozen {
		t.Errorf("last entry %+v", es[10])
	}
	if s, ok := l.LastSerial("rec.test", ""); !ok || s != *es[9].SerialAfter {
		t.Errorf("LastSerial %d %v", s, ok)
	}
}

// TestHistoryFailureAnswersTheChange: with a change history that cannot
// be written (a closed Log), record changes and zone operations are made
// and return success, as the front ends then answer them (the policy of
// docs/history.md: the answer tells what was done to the zone); each
// entry not written is counted by NotRecorded. (Before: a record change
// returned ErrNotRecorded, which the REST API answered 500, while a zone
// operation returned success.)
func TestHistoryFailureAnswersTheChange(t *testing.T) {
	r := newOpsRig(t)
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	r.svc.History = l
	ctx := WithActor(context.Background(), Actor{Identity: "static:ops", Frontend: "rest", RequestID: "r1"})
	before := l.NotRecorded()
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "new", Type: "A", Value: "192.0.2.9"}, nil); err != nil {
		t.Fatalf("add: %v", err)
	}
	v := "192.0.2.9"
	if _, err := r.svc.Records().RemoveRecord(ctx, "rec.test", dnsupdate.Removal{Name: "new", Type: "A", Value: &v}, nil); err != nil {
		t.Fatalf("remove: %v", err)
	}
	r.ans.set("freeze rec.test", rndc.Response{})
	if _, err := r.svc.Freeze(ctx, "rec.test"); err != nil {
		t.Fatalf("freeze: %v", err)
	}
	if n := l.NotRecorded() - before; n != 3 {
		t.Errorf("NotRecorded grew by %d, want 3", n)
	}
	if rrs := r.dns.Records("rec.test"); len(rrs) != 5 {
		t.Errorf("the zone after an add and its removal has %d records, want 5", len(rrs))
	}
}
