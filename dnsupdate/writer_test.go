package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// addWrite is the write Add makes for an A record at name.
func addWrite(t *testing.T, zone, name string) *write {
	t.Helper()
	rr, err := dns.NewRR(fmt.Sprintf("%s.%s. 300 IN A 192.0.2.7", name, zone))
	if err != nil {
		t.Fatal(err)
	}
	r := records()
	r.RRsetNotUsed([]dns.RR{&dns.ANY{Hdr: dns.RR_Header{Name: rr.Header().Name, Rrtype: dns.TypeCNAME}}})
	r.Insert([]dns.RR{rr})
	return &write{prereq: r.Answer, update: r.Ns, merge: true, wake: make(chan struct{})}
}

// holdLead marks the zone's writer busy, as if another request were
// leading, so that writes queue up behind it.
func holdLead(u *Updater, zone string) *zoneWriter {
	zw := u.writer(zone)
	zw.mu.Lock()
	zw.busy = true
	zw.mu.Unlock()
	return zw
}

// waitQueued waits until n writes are queued on zw.
func waitQueued(t *testing.T, zw *zoneWriter, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		zw.mu.Lock()
		got := len(zw.queue)
		zw.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", got, n)
		}
		time.Sleep(time.Millisecond)
	}
}

func servedSerial(t *testing.T, u *Updater, zone string) uint32 {
	t.Helper()
	soa, err := u.Client().SOA(context.Background(), zone)
	if err != nil {
		t.Fatal(err)
	}
	return soa.Serial
}

func hasA(t *testing.T, u *Updater, zone, name string) bool {
	t.Helper()
	rrs, err := u.Client().Query(context.Background(), zone, name+"."+zone+".", dns.TypeA)
	if err != nil {
		t.Fatal(err)
	}
	return len(rrs) == 1
}

// TestWriterMergesAndIsolates: adds sent together cost one message and
// one serial bump; when one of them is refused, the others are sent
// alone and only the culprit fails.
func TestWriterMergesAndIsolates(t *testing.T) {
	const zone = "grp.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "alias", Type: "CNAME", Value: "target"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	zw := u.writer(zone)

	before := servedSerial(t, u, zone)
	var batch []*write
	for i := range 5 {
		batch = append(batch, addWrite(t, zone, fmt.Sprintf("m%d", i)))
	}
	u.run(ctx, zone, zw, batch)
	for i, w := range batch {
		if w.err != nil || !w.finished || w.serials != (serials{old: before, new: before + 1, hasOld: true, hasNew: true}) {
			t.Fatalf("merged write %d: %+v %v", i, w.serials, w.err)
		}
		if !hasA(t, u, zone, fmt.Sprintf("m%d", i)) {
			t.Errorf("m%d missing", i)
		}
	}
	if got := servedSerial(t, u, zone); got != before+1 {
		t.Fatalf("serial %d after one merged message from %d", got, before)
	}

	// The third add conflicts with the CNAME at alias.
	batch = []*write{addWrite(t, zone, "i0"), addWrite(t, zone, "i1"), addWrite(t, zone, "alias"), addWrite(t, zone, "i3")}
	u.run(ctx, zone, zw, batch)
	if !IsRcode(batch[2].err, dns.RcodeYXRrset) {
		t.Fatalf("conflicting write: %v", batch[2].err)
	}
	for _, i := range []int{0, 1, 3} {
		if batch[i].err != nil || !hasA(t, u, zone, fmt.Sprintf("i%d", i)) {
			t.Fatalf("write %d: %v", i, batch[i].err)
		}
	}
	if got := servedSerial(t, u, zone); got != before+4 || batch[3].serials.new != got {
		t.Fatalf("serial %d (last write says %d), want %d: three single messages", got, batch[3].serials.new, before+4)
	}
}

// TestWriterConcurrentAdds: concurrent adds all land, each answer's serial
// is its message's (old+1), and the zone's serial moved once per message.
func TestWriterConcurrentAdds(t *testing.T) {
	const zone = "conc.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	before := servedSerial(t, u, zone)
	const workers, each = 24, 5
	results := make([]*ChangeResult, workers*each)
	errs := make([]error, workers*each)
	var wg sync.WaitGroup
	for g := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				k := g*each + i
				results[k], errs[k] = u.Add(ctx, zone, zonemodel.Record{Name: fmt.Sprintf("c%d", k), Type: "A", Value: "192.0.2.9"}, WriteOptions{})
			}
		}()
	}
	wg.Wait()
	messages := map[uint32]int{}
	top := before
	for k, res := range results {
		if errs[k] != nil {
			t.Fatalf("add %d: %v", k, errs[k])
		}
		if !res.HasOldSerial || !res.HasSerial || res.Serial != res.OldSerial+1 {
			t.Fatalf("add %d serials %+v", k, res)
		}
		messages[res.Serial]++
		top = max(top, res.Serial)
	}
	if got := servedSerial(t, u, zone); got != top || int(got-before) != len(messages) {
		t.Fatalf("served serial %d; answers name %d messages up to %d, from %d", got, len(messages), top, before)
	}
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		t.Fatal(err)
	}
	for k := range results {
		if len(snap.At(fmt.Sprintf("c%d.%s.", k, zone))) != 1 {
			t.Fatalf("c%d missing from the zone", k)
		}
	}
	t.Logf("%d adds in %d UPDATE messages", len(results), len(messages))
}

// TestWriterFollowsOtherWriters: a change made behind the updater's back
// (another process) makes its pin fail; it reads the SOA and succeeds with
// exact serials. Repeating a record also moves the serial by one.
func TestWriterFollowsOtherWriters(t *testing.T) {
	const zone = "other.test"
	ns, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "a", Type: "A", Value: "192.0.2.1"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	c2, err := NewClient(ns.DNSAddr, &TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	other := NewUpdater(c2)
	for i := range 3 {
		if _, err := other.Add(ctx, zone, zonemodel.Record{Name: fmt.Sprintf("o%d", i), Type: "A", Value: "192.0.2.2"}, WriteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	moved := servedSerial(t, u, zone)
	res, err := u.Add(ctx, zone, zonemodel.Record{Name: "b", Type: "A", Value: "192.0.2.1"}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.OldSerial != moved || res.Serial != moved+1 || servedSerial(t, u, zone) != res.Serial {
		t.Fatalf("serials %d -> %d after the zone moved to %d", res.OldSerial, res.Serial, moved)
	}
	again, err := u.Add(ctx, zone, zonemodel.Record{Name: "b", Type: "A", Value: "192.0.2.1"}, WriteOptions{})
	if err != nil || again.Serial != res.Serial+1 || servedSerial(t, u, zone) != again.Serial {
		t.Fatalf("repeated add: %+v %v", again, err)
	}
}

// TestWriterDropsCancelledWrites: a write whose client left while it was
// queued is never sent.
func TestWriterDropsCancelledWrites(t *testing.T) {
	const zone = "cancel.test"
	_, u := startUpdater(t, zone)
	zw := holdLead(u, zone)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := u.Add(ctx, zone, zonemodel.Record{Name: "gone", Type: "A", Value: "192.0.2.1"}, WriteOptions{})
		done <- err
	}()
	waitQueued(t, zw, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled write: %v", err)
	}
	zw.mu.Lock()
	n := len(zw.queue)
	zw.busy = false
	zw.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d writes still queued", n)
	}
	if hasA(t, u, zone, "gone") {
		t.Fatal("a cancelled write was applied")
	}
}

// TestWriterInlineSigned: named checks an inline-signed zone's
// prerequisites against its unsigned version, whose SOA need not be the
// one it serves, so pinning may fail for good: writes then go unpinned,
// with the serial read back, and still succeed.
func TestWriterInlineSigned(t *testing.T) {
	const zone = "inline.test"
	ns, u := startUpdaterWith(t, zone, fmt.Sprintf(`inline-signing yes; dnssec-policy default; allow-update { key %q; };`, testbind.TSIGKeyName))
	ctx := context.Background()
	served := func(name string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second) // named signs in the background
		nudge := time.Now().Add(time.Second)
		for !hasA(t, u, zone, name) {
			if time.Now().After(deadline) {
				t.Fatalf("%s never served", name)
			}
			if time.Now().After(nudge) { // BIND 9.18 now and then skips the key manager of a zone just added
				_, _ = ns.RNDC("loadkeys", zone)
				nudge = time.Now().Add(time.Second)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	// Once the signed version serves a change, its serial has moved on
	// from the unsigned one's.
	for i := range 3 {
		res, err := u.Add(ctx, zone, zonemodel.Record{Name: fmt.Sprintf("s%d", i), Type: "A", Value: "192.0.2.3"}, WriteOptions{})
		if err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
		if !res.HasSerial {
			t.Fatalf("add %d: no serial", i)
		}
		served(fmt.Sprintf("s%d", i))
	}
	zw := u.writer(zone)
	zw.mu.Lock()
	unpinned := time.Now().Before(zw.unpinnedUntil)
	zw.unpinnedUntil = time.Time{}
	zw.mu.Unlock()
	// A write with prerequisites of its own (PUT) finds out too.
	if _, err := u.Replace(ctx, zone, Replacement{Name: "s0", Type: "A", CurrentValue: "192.0.2.3", NewValue: "192.0.2.5"}, WriteOptions{}); err != nil {
		t.Fatalf("replace: %v", err)
	}
	zw.mu.Lock()
	unpinned = unpinned || time.Now().Before(zw.unpinnedUntil)
	zw.unpinnedUntil = time.Now().Add(time.Hour) // whichever way it went, write unpinned now
	zw.mu.Unlock()
	t.Logf("pinning given up by itself: %v (named's signed serial may or may not equal the unsigned one)", unpinned)
	res, err := u.Add(ctx, zone, zonemodel.Record{Name: "u", Type: "A", Value: "192.0.2.4"}, WriteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasOldSerial || !res.HasSerial {
		t.Fatalf("unpinned write without serials: %+v", res)
	}
	served("u")
}

func TestSerialMethodNext(t *testing.T) {
	now := time.Date(2026, 11, 26, 23, 59, 0, 0, time.FixedZone("x", -5*3600)) // 2026-11-27 UTC
	unix := uint32(now.Unix())
	for _, c := range []struct {
		m        SerialMethod
		old, new uint32
	}{
		{SerialIncrement, 1, 2},
		{"", 41, 42},
		{SerialIncrement, 0xffffffff, 1}, // 0 is skipped
		{SerialUnixtime, 1, unix},
		{SerialUnixtime, unix, unix + 1},
		{SerialUnixtime, 2026112501, 2026112502}, // a date serial is "after" today's Unix time
		{SerialDate, 1, 2026112700},
		{SerialDate, 2026112505, 2026112700},
		{SerialDate, 2026112700, 2026112701},
		{SerialDate, 2026112799, 2026112800}, // a day's hundred changes spill over
		{SerialDate, 4000000000, 4000000001},
	} {
		if got := c.m.Next(c.old, now); got != c.new {
			t.Errorf("%q.Next(%d) = %d, want %d", c.m, c.old, got, c.new)
		}
	}
	for _, s := range []string{"", "increment", "UNIXTIME", "date"} {
		if _, err := ParseSerialMethod(s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	if _, err := ParseSerialMethod("weekly"); err == nil {
		t.Error("weekly accepted")
	}
}

// TestWriterSerialMethod: writes set the serial the configured method
// gives, exactly as named would.
func TestWriterSerialMethod(t *testing.T) {
	const zone = "method.test" // starts at serial 1
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	before := time.Now()
	res, err := u.Add(ctx, zone, zonemodel.Record{Name: "d", Type: "A", Value: "192.0.2.1"}, WriteOptions{SerialMethod: SerialDate})
	if err != nil {
		t.Fatal(err)
	}
	if want := SerialDate.Next(1, before); res.Serial != want && res.Serial != SerialDate.Next(1, time.Now()) || servedSerial(t, u, zone) != res.Serial {
		t.Fatalf("date method: serial %d, want %d", res.Serial, want)
	}
	res, err = u.Add(ctx, zone, zonemodel.Record{Name: "e", Type: "A", Value: "192.0.2.1"}, WriteOptions{SerialMethod: SerialDate})
	if err != nil || res.Serial != res.OldSerial+1 || servedSerial(t, u, zone) != res.Serial {
		t.Fatalf("second change of the day: %+v %v", res, err)
	}
}

// TestWriterSurvivesPanic: a panic while sending fails the writes of that
// message and hands the lead on, so the zone's later writes still go out.
func TestWriterSurvivesPanic(t *testing.T) {
	const zone = "panic.test"
	_, u := startUpdater(t, zone)
	ctx := context.Background()
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "before", Type: "A", Value: "192.0.2.1"}, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	zw := holdLead(u, zone)
	errs := make(chan error, 2)
	// "boom" queues first, so it leads and "after" waits behind it.
	for i, name := range []string{"boom", "after"} {
		go func() {
			defer func() {
				if p := recover(); p != nil {
					errs <- fmt.Errorf("panic: %v", p)
				}
			}()
			_, err := u.Add(ctx, zone, zonemodel.Record{Name: name, Type: "CNAME", Value: "x"}, WriteOptions{}) // CNAMEs: sent one by one
			errs <- err
		}()
		waitQueued(t, zw, i+1)
	}
	u.beforeSend = func(m *dns.Msg) {
		for _, rr := range m.Ns {
			if strings.HasPrefix(rr.Header().Name, "boom.") {
				panic("injected")
			}
		}
	}
	zw.handOff() // the first queued write leads
	var got []string
	for range 2 {
		select {
		case err := <-errs:
			got = append(got, fmt.Sprint(err))
		case <-time.After(30 * time.Second):
			t.Fatalf("writes stuck after a panic; got %v", got)
		}
	}
	slices.Sort(got)
	if got[0] != "<nil>" || !strings.Contains(got[1], "injected") {
		t.Fatalf("outcomes %q: want one success and one failure naming the panic", got)
	}
	if rrs, err := u.Client().Query(ctx, zone, "after."+zone+".", dns.TypeCNAME); err != nil || len(rrs) != 1 {
		t.Fatalf("the write after the panic: %v %v", rrs, err)
	}
}

// TestWriterTakeKeepsOrder: adds merge only with the adds right behind
// them, so a write that may not merge is never overtaken.
func TestWriterTakeKeepsOrder(t *testing.T) {
	add := func() *write { return &write{merge: true, size: 20} }
	a1, a2, c, a3, a4 := add(), add(), &write{size: 20}, add(), add()
	zw := &zoneWriter{queue: []*write{a1, a2, c, a3, a4}}
	for i, want := range [][]*write{{a1, a2}, {c}, {a3, a4}, nil} {
		if got := zw.take(); !slices.Equal(got, want) {
			t.Fatalf("take %d: %d writes, want %d", i, len(got), len(want))
		}
	}
	big := &write{merge: true, size: mergeBytes}
	zw.queue = []*write{add(), big, add()}
	if got := zw.take(); len(got) != 1 {
		t.Fatalf("merged past mergeBytes: %d writes", len(got))
	}
	other := &write{merge: true, size: 20, method: SerialDate}
	zw.queue = []*write{add(), other}
	if got := zw.take(); len(got) != 1 {
		t.Fatalf("merged writes of two serial methods")
	}
}

// TestWriterPromotedButGone: a write whose client left is not sent even
// when it was about to lead; the next write leads instead.
func TestWriterPromotedButGone(t *testing.T) {
	const zone = "gone.test"
	_, u := startUpdater(t, zone)
	zw := holdLead(u, zone)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make([]chan error, 2)
	for i, c := range []context.Context{ctx, context.Background()} {
		errs[i] = make(chan error, 1)
		go func() {
			_, err := u.Add(c, zone, zonemodel.Record{Name: fmt.Sprintf("w%d", i), Type: "A", Value: "192.0.2.1"}, WriteOptions{})
			errs[i] <- err
		}()
		waitQueued(t, zw, i+1)
	}
	cancel()
	zw.handOff() // promotes w0, unless it left the queue already
	if err := <-errs[0]; !errors.Is(err, context.Canceled) {
		t.Fatalf("the write whose client left: %v", err)
	}
	if err := <-errs[1]; err != nil {
		t.Fatalf("the write behind it: %v", err)
	}
	if hasA(t, u, zone, "w0") || !hasA(t, u, zone, "w1") {
		t.Fatal("w0 was applied, or w1 was not")
	}
	zw.mu.Lock()
	defer zw.mu.Unlock()
	if zw.busy || len(zw.queue) != 0 {
		t.Fatalf("writer left busy=%v with %d queued", zw.busy, len(zw.queue))
	}
}

// TestWriterUpdatePolicy: a zone whose update-policy grants the key its
// records but not the SOA refuses the SOA add; writes then go without it,
// pinned, with the serial read back.
func TestWriterUpdatePolicy(t *testing.T) {
	const zone = "policy.test"
	_, u := startUpdaterWith(t, zone, fmt.Sprintf(`update-policy { grant %q zonesub A TXT; };`, testbind.TSIGKeyName))
	ctx := context.Background()
	for i := range 2 {
		before := servedSerial(t, u, zone)
		res, err := u.Add(ctx, zone, zonemodel.Record{Name: fmt.Sprintf("p%d", i), Type: "A", Value: "192.0.2.6"}, WriteOptions{})
		if err != nil {
			t.Fatalf("add %d: %v", i, err)
		}
		if res.OldSerial != before || res.Serial != before+1 || servedSerial(t, u, zone) != res.Serial {
			t.Fatalf("add %d: serials %d -> %d, zone was at %d", i, res.OldSerial, res.Serial, before)
		}
	}
	if _, err := u.Add(ctx, zone, zonemodel.Record{Name: "p", Type: "MX", Value: "10 p0"}, WriteOptions{}); !IsRcode(err, dns.RcodeRefused) {
		t.Fatalf("a type the policy does not grant: %v", err)
	}
}
