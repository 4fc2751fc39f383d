package zoneservice

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// viewNamed is one view of a fake named: it serves z.test at a serial the
// test sets, counts the SOA queries it answers, and answers an IXFR with
// the whole zone (no journal), which Noticed records with its two serials.
type viewNamed struct {
	addr   string
	serial atomic.Uint32
	soas   atomic.Int32
}

func newViewNamed(t testing.TB, serial uint32) *viewNamed {
	t.Helper()
	v := &viewNamed{}
	v.serial.Store(serial)
	ln, pc := dnstest.ListenPair(t)
	v.addr = ln.Addr().String()
	h := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		m.Authoritative = true
		soa := &dns.SOA{Hdr: dns.RR_Header{Name: "z.test.", Rrtype: dns.TypeSOA, Class: dns.ClassINET, Ttl: 300},
			Ns: "ns1.z.test.", Mbox: "admin.z.test.", Serial: v.serial.Load(), Refresh: 3600, Retry: 600, Expire: 604800, Minttl: 300}
		switch q := r.Question[0]; {
		case q.Name != "z.test.":
			m.Rcode = dns.RcodeRefused
		case q.Qtype == dns.TypeSOA:
			v.soas.Add(1)
			m.Answer = []dns.RR{soa}
		case q.Qtype == dns.TypeIXFR:
			ns := &dns.NS{Hdr: dns.RR_Header{Name: "z.test.", Rrtype: dns.TypeNS, Class: dns.ClassINET, Ttl: 300}, Ns: "ns1.z.test."}
			m.Answer = []dns.RR{soa, ns, soa}
		default:
			m.Rcode = dns.RcodeNotImplemented
		}
		_ = w.WriteMsg(m)
	})
	tcp := &dns.Server{Listener: ln, Handler: h}
	udp := &dns.Server{PacketConn: pc, Handler: h}
	go func() { _ = tcp.ActivateAndServe() }()
	go func() { _ = udp.ActivateAndServe() }()
	t.Cleanup(func() { _ = tcp.Shutdown(); _ = udp.Shutdown() })
	return v
}

// viewService is the zone service of one view, on its own fake named and
// zone store, recording in log.
func viewService(t testing.TB, view string, named *viewNamed, log *history.Log) *Service {
	t.Helper()
	c, err := dnsupdate.NewClient(named.addr, nil, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u := dnsupdate.NewUpdater(c)
	t.Cleanup(u.Close)
	st, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &Service{Store: st, Updater: u, History: log, View: view, Timeout: 5 * time.Second}
}

// TestViewNotices: a NOTIFY of z.test, which names no view, is handed to
// the default view's service and to each other view's service that
// follows the zone (the history has a serial of it in the view, its
// index holds it, or named's statistics list it there), and to no other:
// each asks its own view's named for the SOA and records a change where
// the serial moved, with its view, nothing where it did not (or takes
// the serial as its baseline the first time); a view that does not
// follow the zone is not asked.
func TestViewNotices(t *testing.T) {
	log, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	nDef, nIndexed, nFollowed, nListed, nOther := newViewNamed(t, 10), newViewNamed(t, 10), newViewNamed(t, 10), newViewNamed(t, 10), newViewNamed(t, 10)
	def := viewService(t, "external", nDef, log)
	indexed := viewService(t, "indexed", nIndexed, log)
	followed := viewService(t, "followed", nFollowed, log)
	listed := viewService(t, "listed", nListed, log)
	other := viewService(t, "other", nOther, log)
	// named's statistics list z.test in view listed (a named.conf zone of
	// it), and y.test in view other.
	inv := &inventory.Inventory{Fetch: func(context.Context) ([]byte, error) {
		return []byte(`{"views":{"listed":{"zones":[{"name":"z.test","class":"IN","serial":10,"type":"primary"}]},` +
			`"other":{"zones":[{"name":"y.test","class":"IN","serial":1,"type":"primary"}]}}}`), nil
	}, Status: func(context.Context, string, string) (bool, error) { return false, nil }}
	defer inv.Stop()
	for _, s := range []*Service{def, indexed, followed, listed, other} {
		s.Inventory = inv
	}
	if err := indexed.Store.Put(zonestore.Entry{Name: "z.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	log.Baseline("z.test", "external", 10)
	log.Baseline("z.test", "indexed", 10)
	log.Baseline("z.test", "followed", 10) // as a recorded change would
	bg := context.Background()
	if !indexed.Follows(bg, "z.test") || !followed.Follows(bg, "Z.test.") || !listed.Follows(bg, "z.test") || other.Follows(bg, "z.test") || indexed.Follows(bg, "y.test") {
		t.Fatalf("Follows: indexed %v, followed %v, listed %v, other %v, indexed y.test %v",
			indexed.Follows(bg, "z.test"), followed.Follows(bg, "z.test"), listed.Follows(bg, "z.test"), other.Follows(bg, "z.test"), indexed.Follows(bg, "y.test"))
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	notice := ViewNotices(ctx, def, []*Service{indexed, followed, listed, other})
	nIndexed.serial.Store(11)
	nFollowed.serial.Store(12)
	nListed.serial.Store(13)
	nOther.serial.Store(14)
	notice("z.test")

	var es []history.Entry
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if es, err = log.Read(0, history.Filter{}, 0); err != nil {
			t.Fatal(err)
		}
		if len(es) >= 2 && nDef.soas.Load() > 0 && nListed.soas.Load() > 0 || time.Now().After(deadline) {
			break
		}
	}
	time.Sleep(100 * time.Millisecond) // an entry recorded too many would show
	if es, err = log.Read(0, history.Filter{}, 0); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range es {
		got[e.View] = fmt.Sprintf("%s %s %d->%d", e.Type, e.Source, *e.SerialBefore, *e.SerialAfter)
	}
	// listed, asked for the first time, takes the serial as its baseline.
	want := map[string]string{"indexed": "records.changed external 10->11", "followed": "records.changed external 10->12"}
	if len(es) != 2 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("entries %v, want %v", got, want)
	}
	if d, i, f, l, o := nDef.soas.Load(), nIndexed.soas.Load(), nFollowed.soas.Load(), nListed.soas.Load(), nOther.soas.Load(); d != 1 || i != 1 || f != 1 || l != 1 || o != 0 {
		t.Errorf("SOA queries: default %d, indexed %d, followed %d, listed %d, other %d; want 1, 1, 1, 1, 0", d, i, f, l, o)
	}
	if s, ok := log.LastSerial("z.test", "listed"); !ok || s != 13 {
		t.Errorf("listed's baseline: %d %v, want 13", s, ok)
	}
}

// BenchmarkViewNoticeRouting is what a NOTIFY costs before any query at
// many views: deciding which of the other views' services follow the zone
// (ViewNotices runs Follows for each, on a goroutine of its own). One view
// of the N follows it; the SOA queries (one per view that follows the
// zone, plus the default view's) come on top.
func BenchmarkViewNoticeRouting(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("views=%d", n), func(b *testing.B) {
			log, err := history.Open(b.TempDir(), history.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer log.Close()
			svcs := make([]*Service, n)
			for i := range svcs {
				st, err := zonestore.Open(b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				svcs[i] = &Service{Store: st, History: log, View: fmt.Sprintf("v%d", i)}
				if err := st.Put(zonestore.Entry{Name: fmt.Sprintf("zone%d.test", i), Type: "primary"}); err != nil {
					b.Fatal(err)
				}
			}
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				followers := 0
				for _, s := range svcs {
					if s.Follows(ctx, "zone7.test") {
						followers++
					}
				}
				if followers != 1 {
					b.Fatalf("%d followers", followers)
				}
			}
		})
	}
}

// wholeZoneAnswers is the set-up of the tests of changes named answers
// IXFRs with the whole zone for: a fake named serving z.test whole, the
// service over it with a history in which the API created z.test at
// serial 1, the warnings it logs, and a function that returns the
// history's last entry of z.test.
func wholeZoneAnswers(t *testing.T) (*viewNamed, *Service, *observer.ObservedLogs, func() history.Entry) {
	t.Helper()
	log, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { log.Close() })
	named := newViewNamed(t, 1) // z.test: its SOA and NS, always whole
	svc := viewService(t, "", named, log)
	core, logs := observer.New(zap.WarnLevel)
	svc.Logger = zap.New(core)
	if _, err := log.Append(history.Entry{Zone: "z.test", Type: history.ZoneCreated, Source: history.SourceAPI, SerialAfter: history.Serial(1)}); err != nil {
		t.Fatal(err)
	}
	last := func() history.Entry {
		es, err := log.Read(0, history.Filter{Zone: "z.test"}, 0)
		if err != nil {
			t.Fatal(err)
		}
		return es[len(es)-1]
	}
	return named, svc, logs, last
}

// TestNoticedDiffsAWholeZoneAnswer: when named answers the IXFR with the
// whole zone, the change is recorded as the difference from the zone's
// content at the history's serial: the seed of a zone created here, then
// the zone as the last such answer sent it; without either, with its two
// serials, no records and a warning (issue 25, defect 6).
func TestNoticedDiffsAWholeZoneAnswer(t *testing.T) {
	named, svc, logs, last := wholeZoneAnswers(t)
	ctx := context.Background()
	// The file written at create: one record more than named has now.
	svc.Updater.Seed("z.test", 1, []byte("$ORIGIN z.test.\n@ 300 IN SOA ns1 admin 1 3600 600 604800 300\n@ 300 IN NS ns1\nold 300 IN A 192.0.2.1\n"))
	named.serial.Store(2)
	if err := svc.Noticed(ctx, "z.test"); err != nil {
		t.Fatal(err)
	}
	if e := last(); e.Source != history.SourceExternal || len(e.Added) != 0 || len(e.Removed) != 1 || e.Removed[0].Name != "old.z.test" {
		t.Errorf("the first change, from the seed: %+v", e)
	}
	named.serial.Store(3)
	if err := svc.Noticed(ctx, "z.test"); err != nil {
		t.Fatal(err)
	}
	if e := last(); *e.SerialBefore != 2 || *e.SerialAfter != 3 || len(e.Added)+len(e.Removed) != 0 {
		t.Errorf("the second change, from the first answer: %+v", e)
	}
	if n := logs.Len(); n != 0 {
		t.Errorf("%d warnings, want none: %v", n, logs.All())
	}
	// Nothing known at the history's serial: the two serials alone.
	svc.Updater.Forget("z.test")
	named.serial.Store(4)
	if err := svc.Noticed(ctx, "z.test"); err != nil {
		t.Fatal(err)
	}
	if e := last(); *e.SerialAfter != 4 || logs.FilterMessageSnippet("named sent the whole zone").Len() != 1 {
		t.Errorf("a change with nothing to diff against: %+v, warnings %v", e, logs.All())
	}
}

// TestNoticedDiffsFromTheZoneFile: after a restart of Caddy between a
// change and its entry (the updater holds nothing of the zone), a change
// named answers with the whole zone is still recorded with its records,
// from the zone's file in the zone directory when that file holds the
// zone at the history's serial (the file the API wrote at create, or
// named's dump); a file at another serial, or one that only a directive
// would complete, gives the two serials alone, with the warning. Seen in
// TestEventStreamCrashSafety: Caddy killed after a new zone's first
// record add, and that change recorded without records.
func TestNoticedDiffsFromTheZoneFile(t *testing.T) {
	named, svc, logs, last := wholeZoneAnswers(t)
	ctx := context.Background()
	write := func(text string) {
		if err := os.WriteFile(svc.Store.FilePath("z.test"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// The file at serial 1 (one record more than named has at 2).
	write("$ORIGIN z.test.\n@ 300 IN SOA ns1 admin 1 3600 600 604800 300\n@ 300 IN NS ns1\nold 300 IN A 192.0.2.1\n")
	named.serial.Store(2)
	if err := svc.Noticed(ctx, "z.test"); err != nil {
		t.Fatal(err)
	}
	if e := last(); e.Source != history.SourceExternal || len(e.Added) != 0 || len(e.Removed) != 1 || e.Removed[0].Name != "old.z.test" {
		t.Errorf("the change from the zone file: %+v", e)
	}
	if n := logs.Len(); n != 0 {
		t.Errorf("%d warnings, want none: %v", n, logs.All())
	}
	// A file at another serial than the history's, and one that includes
	// another file: not the zone at the history's serial.
	for i, text := range []string{
		"$ORIGIN z.test.\n@ 300 IN SOA ns1 admin 7 3600 600 604800 300\n@ 300 IN NS ns1\n",
		"$ORIGIN z.test.\n$INCLUDE /etc/hosts\n@ 300 IN SOA ns1 admin 3 3600 600 604800 300\n@ 300 IN NS ns1\n",
	} {
		svc.Updater.Forget("z.test")
		write(text)
		named.serial.Store(uint32(3 + i))
		if err := svc.Noticed(ctx, "z.test"); err != nil {
			t.Fatal(err)
		}
		if e := last(); *e.SerialAfter != uint32(3+i) || len(e.Added)+len(e.Removed) != 0 || logs.FilterMessageSnippet("named sent the whole zone").Len() != i+1 {
			t.Errorf("file %d: %+v, warnings %v", i, e, logs.All())
		}
	}
}
