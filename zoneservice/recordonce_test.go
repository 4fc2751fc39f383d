package zoneservice

import (
	"context"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestChangeRecordedOnceAcrossWriters: the external-dns webhook has zone
// writers of its own, so its change and the catch-up that named's NOTIFY
// of that change starts in the REST service do not take turns. When the
// catch-up has read the history's last serial and asks named's IXFR
// while the webhook's write enqueues its entry, the change is still
// recorded once (the webhook's entry, with its actor), not again as
// external.
func TestChangeRecordedOnceAcrossWriters(t *testing.T) {
	r := newOpsRig(t)
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r.svc.History = l
	u := newTestUpdater(t, r.dns.Addr)
	webhook := &Service{Store: r.store, Control: r.svc.Control, Updater: u, UpdateKey: "zoneapi-update", Timeout: 5 * time.Second, History: l}

	ctx := context.Background()
	if err := r.svc.Noticed(ctx, "rec.test"); err != nil { // the baseline
		t.Fatal(err)
	}
	applied, answer, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.dns.SetHook(func(kind, zone string) {
		switch kind {
		case "UPDATE": // the webhook's change is in the zone, not yet answered
			close(applied)
			<-answer
		case "IXFR": // the catch-up read the last serial; the webhook goes on
			close(answer)
			<-done
		}
	})
	go func() {
		defer close(done)
		wctx := WithActor(ctx, Actor{Identity: "external-dns", Frontend: "externaldns"})
		if _, err := webhook.Records().AddRecord(wctx, "rec.test", zonemodel.Record{Name: "hook", Type: "A", Value: "192.0.2.7"}, nil); err != nil {
			t.Error(err)
		}
	}()
	<-applied
	if err := r.svc.Noticed(ctx, "rec.test"); err != nil {
		t.Fatal(err)
	}
	<-done
	r.dns.SetHook(nil)

	es, err := l.Read(0, history.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Source != history.SourceAPI || es[0].Frontend != "externaldns" {
		for _, e := range es {
			t.Logf("%s %s/%s %d->%d %+v", e.Type, e.Source, e.Frontend, *e.SerialBefore, *e.SerialAfter, e.Added)
		}
		t.Fatalf("%d entries, want the webhook's alone", len(es))
	}
	// A change made elsewhere after it is still found, as external.
	soa := dns.Copy(r.dns.Records("rec.test")[0]).(*dns.SOA)
	soa.Serial++
	a, _ := dns.NewRR("elsewhere.rec.test. 300 IN A 192.0.2.8")
	m := new(dns.Msg)
	m.SetUpdate("rec.test.")
	m.Insert([]dns.RR{soa, a})
	if err := u.Client().Update(ctx, "rec.test", m); err != nil {
		t.Fatal(err)
	}
	if err := r.svc.Noticed(ctx, "rec.test"); err != nil {
		t.Fatal(err)
	}
	es, _ = l.Read(0, history.Filter{}, 0)
	if len(es) != 2 || es[1].Source != history.SourceExternal || len(es[1].Added) != 1 || es[1].Added[0].Name != "elsewhere.rec.test" {
		t.Fatalf("after a change made elsewhere: %+v", es)
	}
}

// TestChangeOfAnotherWriterKeepsItsActor: the other order of the race
// above. named applied the webhook's change and its NOTIFY started the
// catch-up, which reads the change from named's IXFR before the webhook's
// writer has its answer: the catch-up waits for that write, so the change
// is recorded once, by the webhook, with its actor (before: at once as
// external, and the webhook's own entry was then dropped as a repeat;
// CI-like load showed it in TestHistoryExternalDNS).
func TestChangeOfAnotherWriterKeepsItsActor(t *testing.T) {
	changeOfAnotherWriter(t, newOpsRig(t), "rec.test")
}

// TestRootZoneChangeOfAnotherWriterKeepsItsActor: the same for the root
// zone, whose change in flight the writer registered under the empty
// name and the catch-up looked for under "." (failed before: the
// catch-up did not wait, and recorded the webhook's change as external).
func TestRootZoneChangeOfAnotherWriterKeepsItsActor(t *testing.T) {
	r := newOpsRig(t)
	r.dns = dnstest.NewServer(t, map[string]string{"": "$TTL 300\n@ IN SOA ns1.example. admin.example. 2024010101 3600 600 604800 300\n@ IN NS ns1.example.\n"})
	r.svc.Updater = newTestUpdater(t, r.dns.Addr)
	changeOfAnotherWriter(t, r, zonemodel.Root)
}

// changeOfAnotherWriter runs TestChangeOfAnotherWriterKeepsItsActor on
// the zone of r's fake named.
func changeOfAnotherWriter(t *testing.T, r *opsRig, zone string) {
	l, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	r.svc.History = l
	webhook := &Service{Store: r.store, Control: r.svc.Control, Updater: newTestUpdater(t, r.dns.Addr), UpdateKey: "zoneapi-update", Timeout: 5 * time.Second, History: l}

	ctx := context.Background()
	if err := r.svc.Noticed(ctx, zone); err != nil { // the baseline
		t.Fatal(err)
	}
	applied, answer, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	r.dns.SetHook(func(kind, zone string) {
		if kind == "UPDATE" { // the webhook's change is in the zone, not yet answered
			close(applied)
			<-answer
		}
	})
	go func() {
		defer close(done)
		wctx := WithActor(ctx, Actor{Identity: "external-dns", Frontend: "externaldns"})
		if _, err := webhook.Records().AddRecord(wctx, zone, zonemodel.Record{Name: "hook", Type: "A", Value: "192.0.2.7"}, nil); err != nil {
			t.Error(err)
		}
	}()
	<-applied
	noticed := make(chan error, 1)
	go func() { noticed <- r.svc.Noticed(ctx, zone) }()
	// The catch-up has the change from named's IXFR at once; the webhook
	// gets its answer once the catch-up has recorded it (before) or after
	// a second (the catch-up waits for the webhook's write).
	var nerr error
	finished := false
	select {
	case nerr = <-noticed:
		finished = true
	case <-time.After(time.Second):
	}
	close(answer)
	<-done
	if !finished {
		nerr = <-noticed
	}
	r.dns.SetHook(nil)
	if nerr != nil {
		t.Fatal(nerr)
	}
	es, err := l.Read(0, history.Filter{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 || es[0].Source != history.SourceAPI || es[0].Frontend != "externaldns" || es[0].Identity != "external-dns" {
		for _, e := range es {
			t.Logf("%s %s/%s %d->%d %+v", e.Type, e.Source, e.Frontend, *e.SerialBefore, *e.SerialAfter, e.Added)
		}
		t.Fatalf("%d entries, want the webhook's alone, with its actor", len(es))
	}
}
