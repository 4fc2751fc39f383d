package zoneservice

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

func TestRecordOperations(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	if !r.svc.Records().CanUpdate() {
		t.Fatal("CanUpdate false with a key")
	}
	res, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "new", Type: "A", Value: "192.0.2.9"}, nil)
	if err != nil || !res.HasSerial || res.Serial != 2024010102 {
		t.Fatalf("AddRecord = %+v, %v", res, err)
	}
	if st := zonemodel.StoredOf(res.Records[0]); st.Name != "new.rec.test." || st.Type != "A" || st.Value != "192.0.2.9" {
		t.Errorf("stored %+v", st)
	}
	if _, err := r.svc.Records().ReplaceRecord(ctx, "rec.test", dnsupdate.Replacement{Name: "new", Type: "A", CurrentValue: "192.0.2.9", NewValue: "192.0.2.10"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := r.svc.Records().ReplaceRecord(ctx, "rec.test", dnsupdate.Replacement{Name: "new", Type: "A", CurrentValue: "192.0.2.99", NewValue: "192.0.2.10"}, nil); !errors.Is(err, dnsupdate.ErrRecordNotFound) {
		t.Fatalf("replacing a missing record: %v", err)
	}
	v := "192.0.2.10"
	if _, err := r.svc.Records().RemoveRecord(ctx, "rec.test", dnsupdate.Removal{Name: "new", Type: "A", Value: &v}, nil); err != nil {
		t.Fatal(err)
	}
	batch := []dnsupdate.Change{{Op: "add", Name: "b1", Type: "TXT", Value: `"one"`}, {Op: "add", Name: "b2", Type: "TXT", Value: `"two"`}}
	res, err = r.svc.Records().ApplyChanges(ctx, "rec.test", batch, nil)
	if err != nil || res.Changes != 2 {
		t.Fatalf("ApplyChanges = %+v, %v", res, err)
	}
	// A stale serial condition changes nothing.
	old := uint32(1)
	var pe *dnsupdate.PreconditionError
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "192.0.2.1"}, &old); !errors.As(err, &pe) {
		t.Fatalf("If-Match of an old serial: %v", err)
	}
	var ve *zonemodel.ValidationError
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "not-an-ip"}, nil); !errors.As(err, &ve) {
		t.Fatalf("invalid record: %v", err)
	}

	// RFC 2136 messages as they are (the external-dns webhook's path).
	a := &dns.A{Hdr: dns.RR_Header{Name: "raw.rec.test.", Rrtype: dns.TypeA, Class: dns.ClassINET, Ttl: 60}, A: net.ParseIP("192.0.2.77")}
	if _, err := r.svc.Records().applyUpdate(ctx, "rec.test", nil, []dns.RR{a}); err != nil {
		t.Fatal(err)
	}

	// Reads.
	snap, sets, next, err := r.svc.Records().listRecords(ctx, "rec.test", dnsupdate.ListOptions{Limit: 100, Type: dns.TypeTXT})
	if err != nil || len(sets) != 2 || next != "" || snap.Serial() == 0 {
		t.Fatalf("ListRecords = %v, %q, %v", sets, next, err)
	}
	snap, err = r.svc.Records().snapshot(ctx, "rec.test")
	if err != nil || !strings.Contains(string(snap.MasterFile()), "raw.rec.test.") {
		t.Fatalf("Snapshot: %v", err)
	}
	keys, err := r.svc.Records().Keys(ctx, "rec.test")
	if err != nil || len(keys) != 1 || keys[0].Flags != 257 || len(keys[0].DS) != 2 || keys[0].Algorithm != "ECDSAP256SHA256" {
		t.Fatalf("Keys = %+v, %v", keys, err)
	}
	if typ, err := zonemodel.ParseListType("soa"); err != nil || typ != dns.TypeSOA {
		t.Errorf("ParseListType(soa) = %d, %v", typ, err)
	}
}

// TestRecordRefusalsExplained: when named refuses a record operation, the
// service asks zonestatus why and says so in the error's kind.
func TestRecordRefusalsExplained(t *testing.T) {
	ctx := context.Background()
	add := func(r *opsRig) error {
		_, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "192.0.2.1"}, nil)
		return err
	}
	for _, tc := range []struct {
		name   string
		rcode  int
		status *rndc.Response
		want   error
	}{
		{"frozen", dns.RcodeRefused, ptr(zonestatus("rec.test", "primary", true, true)), ErrFrozen},
		{"secondary", dns.RcodeRefused, ptr(zonestatus("rec.test", "secondary", false, false)), ErrNotPrimary},
		{"not dynamic", dns.RcodeRefused, ptr(zonestatus("rec.test", "primary", false, false)), ErrUpdateRefused},
		{"unknown zone", dns.RcodeRefused, &rndc.Response{Result: rndc.ResultNotFound, Err: "not found"}, ErrNotFound},
		{"zonestatus fails", dns.RcodeRefused, &rndc.Response{Result: 1, Err: "failure"}, ErrControl},
		{"notzone", dns.RcodeNotZone, nil, ErrNotZone},
		{"servfail", dns.RcodeServerFailure, nil, ErrServerFailure},
		{"formerr", dns.RcodeFormatError, nil, ErrRcode},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newOpsRig(t)
			r.dns.Refuse("rec.test", tc.rcode)
			if tc.status != nil {
				r.ans.set("zonestatus rec.test", *tc.status)
			}
			e := kind(t, add(r), tc.want)
			if e.Op != "add" || e.Rcode != dnsupdate.RcodeName(tc.rcode) {
				t.Errorf("error %+v: op or rcode wrong", e)
			}
			if tc.want == ErrNotPrimary && e.ZoneType != "secondary" {
				t.Errorf("zone type %q", e.ZoneType)
			}
		})
	}
}

// TestRecordChangeRetriedAfterThaw: right after a thaw named refuses
// updates although the zone is a dynamic primary that is not frozen; the
// service sends the change again once named takes it.
func TestRecordChangeRetriedAfterThaw(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.dns.Refuse("rec.test", dns.RcodeRefused)
	var asked atomic.Int32
	r.ans.setFunc("zonestatus rec.test", func() rndc.Response {
		if asked.Add(1) == 2 {
			r.dns.Refuse("rec.test", dns.RcodeSuccess) // the reload completed
		}
		return zonestatus("rec.test", "primary", true, false)
	})
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "192.0.2.1"}, nil); err != nil {
		t.Fatalf("the change was not retried: %v", err)
	}
	if n := asked.Load(); n != 2 {
		t.Errorf("zonestatus asked %d times, want 2", n)
	}

	// A change named keeps refusing ends after a few tries, explained.
	r.dns.Refuse("rec.test", dns.RcodeRefused)
	asked.Store(10)
	kind(t, func() error {
		_, err := r.svc.Records().ApplyChanges(ctx, "rec.test", []dnsupdate.Change{{Op: "add", Name: "y", Type: "A", Value: "192.0.2.2"}}, nil)
		return err
	}(), ErrUpdateRefused)
	// ...or when the caller gives up waiting.
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := r.svc.Records().RemoveRecord(short, "rec.test", dnsupdate.Removal{Name: "www", Type: "A"}, nil); err == nil {
		t.Fatal("a refused change succeeded")
	}
}

// TestRecordRefusalOfLoadedZoneNotRetried: a change named refuses again
// after a status showing the zone loaded, its load time unchanged since,
// is not refused for a reload after a thaw (an update-policy, named's
// check-integrity): it is answered after that one more try, explained,
// not sent three more times over half a second. A load time that changes
// between tries (a reload under way) keeps it tried.
func TestRecordRefusalOfLoadedZoneNotRetried(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.dns.Refuse("rec.test", dns.RcodeRefused)
	loadedAt := time.Now().Add(-time.Hour)
	var asked atomic.Int32
	r.ans.setFunc("zonestatus rec.test", func() rndc.Response {
		asked.Add(1)
		st := zonestatus("rec.test", "primary", true, false)
		st.Text += "last loaded: " + loadedAt.UTC().Format(time.RFC1123) + "\n"
		return st
	})
	kind(t, func() error {
		_, err := r.svc.Records().ApplyChanges(ctx, "rec.test", []dnsupdate.Change{{Op: "add", Name: "y", Type: "A", Value: "192.0.2.2"}}, nil)
		return err
	}(), ErrUpdateRefused)
	// Before the one retry, after it (the same load time: no more), and
	// to explain the refusal.
	if n := asked.Load(); n != 3 {
		t.Errorf("zonestatus asked %d times, want 3: the change was tried again after the zone's load time stayed the same", n)
	}

	// The load time moves (named reloading): tried until it takes.
	asked.Store(0)
	r.ans.setFunc("zonestatus rec.test", func() rndc.Response {
		n := asked.Add(1)
		if n == 3 {
			r.dns.Refuse("rec.test", dns.RcodeSuccess) // the reload completed
		}
		st := zonestatus("rec.test", "primary", true, false)
		st.Text += "last loaded: " + loadedAt.Add(time.Duration(n)*time.Second).UTC().Format(time.RFC1123) + "\n"
		return st
	})
	if _, err := r.svc.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "192.0.2.1"}, nil); err != nil {
		t.Fatalf("the change during a reload was not retried: %v", err)
	}
}

func TestRecordReadRefused(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.ans.set("zonestatus other.test", zonestatus("other.test", "primary", true, false))
	// The fake DNS port does not serve other.test: NOTAUTH to the AXFR.
	kind(t, func() error { _, err := r.svc.Records().snapshot(ctx, "other.test"); return err }(), ErrTransferRefused)
	kind(t, func() error {
		_, _, _, err := r.svc.Records().listRecords(ctx, "other.test", dnsupdate.ListOptions{Limit: 1})
		return err
	}(), ErrTransferRefused)
	kind(t, func() error { _, err := r.svc.Records().Keys(ctx, "other.test"); return err }(), ErrTransferRefused)
}

// TestRecordOutcomeUnknown: a change named received but did not answer
// may have been applied: ErrOutcomeUnknown, never a plain failure.
func TestRecordOutcomeUnknown(t *testing.T) {
	r := newOpsRig(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // reads and never answers
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	key := &dnsupdate.TSIGKey{Name: "zoneapi-update.", Algorithm: dns.HmacSHA256, Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"}
	c, err := dnsupdate.NewClient(ln.Addr().String(), key, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	r.svc.Updater = dnsupdate.NewUpdater(c)
	defer r.svc.Updater.Close()
	e := kind(t, func() error {
		_, err := r.svc.Records().ApplyChanges(context.Background(), "rec.test", []dnsupdate.Change{{Op: "delete", Name: "www", Type: "A"}}, nil)
		return err
	}(), ErrOutcomeUnknown)
	if e.Op != "batch" || !dnsupdate.OutcomeUnknown(e.Err) {
		t.Errorf("error %+v", e)
	}
	if dnsupdate.OutcomeUnknown(nil) || dnsupdate.OutcomeUnknown(errors.New("connection refused")) {
		t.Error("OutcomeUnknown of an error that changed nothing")
	}
}

func TestRecordsWithoutUpdater(t *testing.T) {
	s := &Service{}
	ctx := context.Background()
	if s.Records().CanUpdate() {
		t.Fatal("CanUpdate without an updater")
	}
	for name, f := range map[string]func() error{
		"add":   func() error { _, err := s.Records().AddRecord(ctx, "z.test", zonemodel.Record{}, nil); return err },
		"apply": func() error { _, err := s.Records().applyUpdate(ctx, "z.test", nil, nil); return err },
		"list": func() error {
			_, _, _, err := s.Records().listRecords(ctx, "z.test", dnsupdate.ListOptions{})
			return err
		},
		"snapshot": func() error { _, err := s.Records().snapshot(ctx, "z.test"); return err },
	} {
		if err := f(); !errors.Is(err, dnsupdate.ErrNoUpdateKey) {
			t.Errorf("%s: %v, want ErrNoUpdateKey", name, err)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestRefusalsWithoutControlChannel: a service of record operations only
// (the external-dns webhook's) classifies a refusal by its rcode alone.
func TestRefusalsWithoutControlChannel(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	s := &Service{Updater: r.svc.Updater}
	for rcode, want := range map[int]error{dns.RcodeRefused: ErrUpdateRefused, dns.RcodeNotZone: ErrNotZone, dns.RcodeServerFailure: ErrServerFailure} {
		r.dns.Refuse("rec.test", rcode)
		kind(t, func() error {
			_, err := s.Records().AddRecord(ctx, "rec.test", zonemodel.Record{Name: "x", Type: "A", Value: "192.0.2.1"}, nil)
			return err
		}(), want)
	}
	kind(t, func() error { _, err := s.Records().snapshot(ctx, "other.test"); return err }(), ErrTransferRefused)
}
