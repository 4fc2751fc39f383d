package zoneservice

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/rndc/rndctest"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// The tests of this file drive the zone service's operations against
// fakes below it only: a fake control channel (rndc/rndctest) answering
// as named does, a fake DNS port (dnsupdate/dnstest), and the real zone
// store in a temporary directory.

// answers are the fake named's answers: by whole command, then by verb
// and zone, then by verb; a function value may change with each call.
type answers struct {
	mu sync.Mutex
	m  map[string]func() rndc.Response
}

func (a *answers) set(cmd string, r rndc.Response) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m[cmd] = func() rndc.Response { return r }
}

func (a *answers) setFunc(cmd string, f func() rndc.Response) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.m[cmd] = f
}

func (a *answers) answer(command string) rndc.Response {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := strings.Fields(command)
	keys := []string{command}
	if len(f) >= 2 {
		keys = append(keys, f[0]+" "+f[1])
	}
	keys = append(keys, f[0])
	for _, k := range keys {
		if r, ok := a.m[k]; ok {
			return r()
		}
	}
	return rndc.Response{Result: rndc.ResultNotFound, Err: "not found", Text: "no matching zone in any view"}
}

const recZone = `$TTL 300
@ IN SOA ns1.rec.test. admin.rec.test. 2024010101 3600 600 604800 300
@ IN NS ns1.rec.test.
ns1 IN A 192.0.2.53
www IN A 192.0.2.1
@ IN DNSKEY 257 3 13 mdsswUyr3DPW132mOi8V9xESWE8jTo0dxCjjnopKl+GqJxpVXckHAeF+KkxLbxILfDLUT0rAK9iUzy1L53eKGQ==
`

func zonestatus(name, typ string, dynamic, frozen bool) rndc.Response {
	yn := func(b bool) string {
		if b {
			return "yes"
		}
		return "no"
	}
	return rndc.Response{Text: "name: " + name + "\ntype: " + typ + "\nfiles: /z/" + name + ".zone\nserial: 2024010101\nnodes: 3\n" +
		"dynamic: " + yn(dynamic) + "\nfrozen: " + yn(frozen) + "\nreconfigurable via modzone: yes\n"}
}

type opsRig struct {
	svc   *Service
	named *rndctest.Server
	ans   *answers
	dns   *dnstest.Server
	store *zonestore.Store
}

func newOpsRig(t *testing.T) *opsRig {
	t.Helper()
	r := &opsRig{ans: &answers{m: map[string]func() rndc.Response{}}}
	r.named = rndctest.NewServer(t, r.ans.answer)
	rc := &rndc.Client{Addr: r.named.Addr, Key: r.named.Key, Timeout: 5 * time.Second}
	t.Cleanup(rc.Close)
	st, err := zonestore.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r.store = st
	r.dns = dnstest.NewServer(t, map[string]string{"rec.test": recZone})
	u := newTestUpdater(t, r.dns.Addr)
	r.svc = &Service{Store: st, Control: rc, Updater: u, UpdateKey: "zoneapi-update", Timeout: 5 * time.Second}
	r.ans.set("zonestatus rec.test", zonestatus("rec.test", "primary", true, false))
	return r
}

// newTestUpdater is an updater of the fake named at addr, signing with
// its key, closed when the test ends.
func newTestUpdater(t *testing.T, addr string) *dnsupdate.Updater {
	t.Helper()
	key := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: dns.HmacSHA256, Secret: dnstest.TSIGSecret}
	c, err := dnsupdate.NewClient(addr, key, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u := dnsupdate.NewUpdater(c)
	t.Cleanup(u.Close)
	return u
}

// kind checks that err is an *Error of the kind, and returns it.
func kind(t *testing.T, err, want error) *Error {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, want) {
		t.Fatalf("err = %v (%T), want an *Error of kind %v", err, err, want)
	}
	return e
}

func TestZoneCommands(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.ans.set("reload rec.test", rndc.Response{Text: "zone reload queued"})
	r.ans.set("freeze", rndc.Response{})
	r.ans.set("freeze frozen.test", rndc.Response{Result: 1, Err: "already frozen"})
	if text, err := r.svc.Reload(ctx, "rec.test"); err != nil || text != "zone reload queued" {
		t.Fatalf("Reload = %q, %v", text, err)
	}
	if _, err := r.svc.Freeze(ctx, "rec.test"); err != nil {
		t.Fatal(err)
	}
	e := kind(t, func() error { _, err := r.svc.Freeze(ctx, "frozen.test"); return err }(), ErrControl)
	if e.Command != "freeze" || !strings.Contains(Describe(e.Err), "already frozen") {
		t.Errorf("freeze refusal = %+v", e)
	}
	kind(t, func() error { _, err := r.svc.Reload(ctx, "nope.test"); return err }(), ErrNotFound)

	// Thaw waits until named reports the zone thawed.
	var polls atomic.Int32
	r.ans.set("thaw", rndc.Response{Text: "thawed"})
	r.ans.setFunc("zonestatus thawing.test", func() rndc.Response {
		return zonestatus("thawing.test", "primary", true, polls.Add(1) < 3)
	})
	if _, err := r.svc.Thaw(ctx, "thawing.test"); err != nil {
		t.Fatal(err)
	}
	if n := polls.Load(); n != 3 {
		t.Errorf("thaw polled zonestatus %d times, want 3 (until not frozen)", n)
	}

	// The zone's lock: a command waits for it, and gives up with ctx.
	unlock, err := r.store.Lock(ctx, "rec.test")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	kind(t, func() error { _, err := r.svc.Freeze(short, "rec.test"); return err }(), ErrBusy)
	unlock()
}

func TestRetransferAndStatus(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.ans.set("retransfer sec.test", rndc.Response{})
	r.ans.set("retransfer rec.test", rndc.Response{Result: 1, Err: "failure", Text: "retransfer: inappropriate zone type"})
	if _, err := r.svc.Retransfer(ctx, "sec.test"); err != nil {
		t.Fatal(err)
	}
	e := kind(t, func() error { _, err := r.svc.Retransfer(ctx, "rec.test"); return err }(), ErrControl)
	if !rndc.IsWrongZoneType(e.Err) {
		t.Errorf("cause %v is not named's wrong zone type", e.Err)
	}

	kind(t, func() error { _, err := r.svc.ServerStatus(ctx); return err }(), ErrNotFound)
	r.ans.set("status", rndc.Response{Text: "version: BIND 9.18.0\nnumber of zones: 3\nserver is up and running\n"})
	st, err := r.svc.ServerStatus(ctx)
	if err != nil || st.NumberOfZones != 3 {
		t.Fatalf("ServerStatus = %+v, %v", st, err)
	}
	r.named.Close() // named gone: the command is not sent
	rc := r.svc.Control.(*rndc.Client)
	rc.Close()
	if _, err := r.svc.ServerStatus(ctx); err == nil {
		t.Fatal("status with named gone succeeded")
	}
}

func TestZoneState(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	zs, err := r.svc.Zone(ctx, "rec.test")
	if err != nil || zs.Status == nil || !zs.Status.Dynamic || zs.Managed {
		t.Fatalf("Zone = %+v, %v", zs, err)
	}
	r.ans.set("zonestatus sec.test", rndc.Response{Result: 1, Err: "not loaded", Text: "zone not loaded"})
	zs, err = r.svc.Zone(ctx, "sec.test")
	if err != nil || zs.Status != nil || zs.Details != "not loaded: zone not loaded" {
		t.Fatalf("not loaded: %+v, %v", zs, err)
	}
	kind(t, func() error { _, err := r.svc.Zone(ctx, "nope.test"); return err }(), ErrNotFound)

	r.ans.set("showzone rec.test", rndc.Response{Text: `zone "rec.test" { type primary; file "/z/rec.test.zone"; also-notify { 192.0.2.1 port 5300; }; };`})
	zc, err := r.svc.ZoneStatement(ctx, "rec.test")
	if err != nil {
		t.Fatal(err)
	}
	if v := SettingsOf(zc); v.Type != "primary" || len(v.AlsoNotify) != 1 || v.AlsoNotify[0] != "192.0.2.1:5300" {
		t.Errorf("view = %+v", v)
	}
	kind(t, func() error { _, err := r.svc.ZoneStatement(ctx, "nope.test"); return err }(), ErrNotFound)

	if err := r.store.Put(zonestore.Entry{Name: "a.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	entries, _, total, err := r.svc.ListZones("", "", 0)
	if err != nil || total != 1 || entries[0].Name != "a.test" {
		t.Fatalf("ListZones = %v, %d, %v", entries, total, err)
	}
	broken := &Service{Store: failingList{r.store}}
	kind(t, func() error { _, _, _, err := broken.ListZones("", "", 0); return err }(), ErrStorage)
	kind(t, func() error { _, err := broken.Zone(ctx, "x.test"); return err }(), ErrStorage)
}

// failingList is the store with an index that cannot be read.
type failingList struct{ *zonestore.Store }

func (failingList) List(string, string, int) ([]zonestore.Entry, string, int, error) {
	return nil, "", 0, errors.New("index unreadable")
}

func (failingList) Get(string) (zonestore.Entry, bool, error) {
	return zonestore.Entry{}, false, errors.New("index unreadable")
}

func TestModify(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	const show = `zone "rec.test" { type primary; file "/z/rec.test.zone"; allow-update { key "zoneapi-update"; }; };`
	r.ans.set("showzone rec.test", rndc.Response{Text: show})
	r.ans.set("modzone rec.test", rndc.Response{Text: "zone modified"})
	notify := []string{"192.0.2.7"}
	res, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{AlsoNotify: &notify})
	if err != nil || res.Details != "zone modified" || res.Config == nil {
		t.Fatalf("Modify = %+v, %v", res, err)
	}
	var sent string
	for _, c := range r.named.Commands() {
		if strings.HasPrefix(c, "modzone ") {
			sent = c
		}
	}
	if !strings.Contains(sent, "also-notify { 192.0.2.7; }") || !strings.Contains(sent, `allow-update { key "zoneapi-update"; }`) {
		t.Errorf("modzone sent %q", sent)
	}

	kind(t, func() error { _, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{}); return err }(), ErrInvalid)
	if err := ValidateSettings(&SettingsChange{}); err == nil {
		t.Error("an empty change is valid")
	}
	if err := ValidateSettings(&SettingsChange{AlsoNotify: &notify}); err != nil {
		t.Error(err)
	}
	prim := []string{"192.0.2.1"}
	e := kind(t, func() error { _, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{Primaries: &prim}); return err }(), ErrInvalid)
	if !strings.Contains(e.Err.Error(), "secondary zones") {
		t.Errorf("primaries of a primary: %v", e)
	}
	kind(t, func() error {
		_, err := r.svc.Modify(ctx, "nope.test", &SettingsChange{AlsoNotify: &notify})
		return err
	}(), ErrNotFound)

	// modzone "not found": something the change names is missing.
	pol := "nope"
	r.ans.set("modzone rec.test", rndc.Response{Result: rndc.ResultNotFound, Err: "not found"})
	e = kind(t, func() error {
		_, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{DNSSECPolicy: &pol})
		return err
	}(), ErrInvalid)
	if e.Command != "modzone" {
		t.Errorf("command = %q", e.Command)
	}
	r.ans.set("modzone rec.test", rndc.Response{Result: 1, Err: "failure"})
	kind(t, func() error {
		_, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{AlsoNotify: &notify})
		return err
	}(), ErrControl)

	// The configuration cannot be read back: the change stands.
	var shows atomic.Int32
	r.ans.set("modzone rec.test", rndc.Response{})
	r.ans.setFunc("showzone rec.test", func() rndc.Response {
		if shows.Add(1) > 1 {
			return rndc.Response{Result: 1, Err: "failure"}
		}
		return rndc.Response{Text: show}
	})
	if res, err := r.svc.Modify(ctx, "rec.test", &SettingsChange{AlsoNotify: &notify}); err != nil || res.Config != nil {
		t.Fatalf("Modify without read-back = %+v, %v", res, err)
	}

	unlock, _ := r.store.Lock(ctx, "rec.test")
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	kind(t, func() error {
		_, err := r.svc.Modify(short, "rec.test", &SettingsChange{AlsoNotify: &notify})
		return err
	}(), ErrBusy)
	unlock()
}

func TestNotify(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	sec := dnstest.NewServer(t, nil) // a secondary: acknowledges NOTIFY
	cat := dnstest.NewServer(t, nil)
	r.svc.CatalogNotify = []string{cat.Addr, sec.Addr} // sec twice: notified once
	r.ans.set("showzone rec.test", rndc.Response{Text: `zone "rec.test" { type primary; file "/z/rec.test.zone"; also-notify { ` +
		strings.Replace(sec.Addr, ":", " port ", 1) + `; }; };`})
	r.ans.set("notify rec.test", rndc.Response{Text: "zone notify queued"})
	res, err := r.svc.Notify(ctx, "rec.test")
	if err != nil {
		t.Fatal(err)
	}
	if res.Serial != 2024010101 || res.Details != "zone notify queued" || len(res.Servers) != 2 {
		t.Fatalf("Notify = %+v", res)
	}
	for _, s := range res.Servers {
		if !s.Acknowledged || s.Rcode != "NOERROR" {
			t.Errorf("server %+v not acknowledged", s)
		}
	}
	if res.Servers[0].Source != "also-notify" || res.Servers[1].Source != "catalog" {
		t.Errorf("sources = %+v", res.Servers)
	}
	if got := sec.Notifies(); len(got) != 1 || got[0] != "rec.test" {
		t.Errorf("secondary got %v", got)
	}

	kind(t, func() error { _, err := r.svc.Notify(ctx, "nope.test"); return err }(), ErrNotFound)
	r.ans.set("notify rec.test", rndc.Response{Result: 1, Err: "failure"})
	e := kind(t, func() error { _, err := r.svc.Notify(ctx, "rec.test"); return err }(), ErrControl)
	if e.Command != "notify" {
		t.Errorf("command = %q", e.Command)
	}
	// named serves the zone but its DNS port does not: no SOA to announce.
	r.ans.set("showzone other.test", rndc.Response{Text: `zone "other.test" { type primary; file "/z/o"; };`})
	r.ans.set("notify other.test", rndc.Response{})
	e = kind(t, func() error { _, err := r.svc.Notify(ctx, "other.test"); return err }(), ErrControl)
	if e.Command != "" || !strings.Contains(e.Error(), "reading the SOA of other.test") {
		t.Errorf("SOA failure = %v", e)
	}
	noDNS := &Service{Store: r.store, Control: r.svc.Control}
	kind(t, func() error { _, err := noDNS.Notify(ctx, "rec.test"); return err }(), ErrControl)

	// A server that does not answer is reported, not an error.
	res2 := dnsupdate.SendNotify(ctx, "rec.test", &dns.SOA{Hdr: dns.RR_Header{Name: "rec.test.", Rrtype: dns.TypeSOA, Class: dns.ClassINET}}, "127.0.0.1:1")
	if res2.Acknowledged || res2.Error == "" && res2.Rcode == "" {
		t.Errorf("NOTIFY to a closed port: %+v", res2)
	}
	if _, ok := serverAddr("not an address"); ok {
		t.Error("serverAddr accepted garbage")
	}
}
