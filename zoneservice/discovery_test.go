package zoneservice

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/inventory"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// statsOf renders a statistics channel answer: "name view type" per zone.
func statsOf(zones ...string) []byte {
	byView := map[string][]string{}
	for _, z := range zones {
		f := strings.Fields(z)
		byView[f[1]] = append(byView[f[1]], fmt.Sprintf(`{"name":%q,"class":"IN","serial":5,"type":%q}`, f[0], f[2]))
	}
	var vs []string
	for v, items := range byView {
		vs = append(vs, fmt.Sprintf(`%q:{"zones":[%s]}`, v, strings.Join(items, ",")))
	}
	return []byte(`{"views":{` + strings.Join(vs, ",") + `}}`)
}

// The list of every zone: named's zones joined with the index, in name
// then view order, filtered, scoped and paged, stable across pages.
func TestAllZones(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	conf := map[string]bool{"conf.test/internal": true, "conf.test/external": true}
	r.s.Inventory = &inventory.Inventory{
		Fetch: func(context.Context) ([]byte, error) {
			zones := []string{"conf.test internal primary", "conf.test external primary",
				"api.test external primary", "sec.test external secondary"}
			if _, deleted := r.named.deleted.Load("nzd.test"); !deleted {
				zones = append(zones, "nzd.test external primary")
			}
			return statsOf(zones...), nil
		},
		Status: func(_ context.Context, name, view string) (bool, error) { return !conf[name+"/"+view], nil },
	}
	defer r.s.Inventory.Stop()
	created := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for _, e := range []zonestore.Entry{{Name: "api.test", Type: "primary", Created: created}, {Name: "new.test", Type: "primary", Created: created}} {
		if err := r.store.Put(e); err != nil {
			t.Fatal(err)
		}
	}
	line := func(zs []ListedZone) string {
		var out []string
		for _, z := range zs {
			out = append(out, fmt.Sprintf("%s/%s:%s:%v", z.Name, z.View, z.Source, z.Managed))
		}
		return strings.Join(out, " ")
	}
	all, next, total, err := r.s.AllZones(ctx, ListFilter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	// new.test, not yet reported by named, is listed from the index, in
	// the default view (named has two views, so "_default").
	want := "api.test/external:api:true conf.test/external:named.conf:false conf.test/internal:named.conf:false new.test/_default:api:true nzd.test/external:nzd:false sec.test/external:nzd:false"
	if got := line(all); got != want || next != "" || total != 6 {
		t.Fatalf("all zones (%d, next %q):\n got %s\nwant %s", total, next, got, want)
	}
	// Pages of 2 cover the list exactly once, in order.
	var paged []ListedZone
	cursor := ""
	for i := 0; ; i++ {
		page, next, total, err := r.s.AllZones(ctx, ListFilter{}, cursor, 2)
		if err != nil || total != 6 || len(page) > 2 || i > 5 {
			t.Fatalf("page %d: %d zones, total %d, %v", i, len(page), total, err)
		}
		paged = append(paged, page...)
		if next == "" {
			break
		}
		cursor = next
	}
	if line(paged) != want {
		t.Errorf("pages:\n got %s\nwant %s", line(paged), want)
	}
	no := false
	for _, tc := range []struct {
		f    ListFilter
		want string
	}{
		{ListFilter{Managed: &no}, "conf.test/external:named.conf:false conf.test/internal:named.conf:false nzd.test/external:nzd:false sec.test/external:nzd:false"},
		{ListFilter{Source: inventory.SourceNamedConf, View: "internal"}, "conf.test/internal:named.conf:false"},
		{ListFilter{Type: "secondary"}, "sec.test/external:nzd:false"},
		{ListFilter{Allow: func(name, view string) bool { return strings.HasPrefix(name, "n") }}, "new.test/_default:api:true nzd.test/external:nzd:false"},
	} {
		got, _, total, err := r.s.AllZones(ctx, tc.f, "", 0)
		if err != nil || line(got) != tc.want || total != len(got) {
			t.Errorf("filter %+v: %s (total %d), %v; want %s", tc.f, line(got), total, err, tc.want)
		}
	}
	// A delete through the service drops the zone from the list at once.
	r.named.zones["nzd.test"] = r.file("nzd.test")
	if _, err := r.s.Delete(ctx, "nzd.test", DeleteOptions{Unmanaged: true}); err != nil {
		t.Fatal(err)
	}
	all, _, _, _ = r.s.AllZones(ctx, ListFilter{Source: inventory.SourceNZD}, "", 0)
	if line(all) != "sec.test/external:nzd:false" {
		t.Errorf("after deleting nzd.test: %s", line(all))
	}
	var none Service
	none.Store = r.store
	if _, _, _, err := none.AllZones(ctx, ListFilter{}, "", 0); err == nil {
		t.Error("AllZones without an inventory answered")
	} else {
		kind(t, err, ErrNoInventory)
	}
}

// Adopt indexes a zone of the new-zone database without touching named
// (unless asked to grant the key), and refuses one of named.conf with the
// clause to add there.
func TestAdopt(t *testing.T) {
	r := newOpsRig(t)
	ctx := context.Background()
	r.ans.set("zonestatus nzd.test", rndc.Response{Text: "name: nzd.test\ntype: primary\nserial: 1\nreconfigurable via modzone: yes\n"})
	r.ans.set("showzone nzd.test", rndc.Response{Text: `zone "nzd.test" { type primary; file "/elsewhere/nzd.test.zone"; };`})
	r.ans.set("zonestatus conf.test", rndc.Response{Text: "name: conf.test\ntype: primary\nserial: 1\nreconfigurable via modzone: no\n"})
	r.ans.set("showzone conf.test", rndc.Response{Text: `zone "conf.test" { type primary; file "/etc/bind/conf.test"; allow-update { 192.0.2.1; }; };`})
	r.ans.set("zonestatus pol.test", rndc.Response{Text: "name: pol.test\ntype: primary\nserial: 1\nreconfigurable via modzone: yes\n"})
	r.ans.set("showzone pol.test", rndc.Response{Text: `zone "pol.test" { type primary; file "/z/pol.test"; update-policy { grant "other" name x.pol.test. A; }; };`})
	r.ans.set("modzone pol.test", rndc.Response{Text: ""})

	res, err := r.svc.Adopt(ctx, "nzd.test", AdoptOptions{})
	if err != nil || res.Granted != "" || res.Type != "primary" {
		t.Fatalf("Adopt = %+v, %v", res, err)
	}
	for _, c := range r.named.Commands() {
		if strings.HasPrefix(c, "modzone") || strings.HasPrefix(c, "reload") {
			t.Errorf("adopt without grant sent %q", c)
		}
	}
	if _, ok, _ := r.store.Get("nzd.test"); !ok {
		t.Error("the adopted zone is not in the index")
	}
	kind(t, func() error { _, err := r.svc.Adopt(ctx, "nzd.test", AdoptOptions{}); return err }(), ErrExists)

	e := kind(t, func() error { _, err := r.svc.Adopt(ctx, "conf.test", AdoptOptions{}); return err }(), ErrNamedConf)
	if e.Clause != `allow-update { 192.0.2.1; key "zoneapi-update"; };` ||
		e.Statement != `zone "conf.test" { type primary; file "/etc/bind/conf.test"; allow-update { 192.0.2.1; key "zoneapi-update"; }; };` {
		t.Errorf("refusal clause %q statement %q", e.Clause, e.Statement)
	}
	if _, ok, _ := r.store.Get("conf.test"); ok {
		t.Error("a refused adoption indexed the zone")
	}

	// An update-policy gets a grant, not an allow-update beside it.
	res, err = r.svc.Adopt(ctx, "pol.test", AdoptOptions{GrantUpdateKey: true})
	if err != nil || res.Granted != `update-policy { grant "other" name x.pol.test. A; grant "zoneapi-update" zonesub ANY; };` {
		t.Fatalf("Adopt with grant = %+v, %v", res, err)
	}
}

func TestCapabilitiesOf(t *testing.T) {
	s := &Service{UpdateKey: "k", Updater: nil}
	parse := func(text string) *rndc.ZoneStatement {
		zc, err := rndc.ParseZoneStatement(text)
		if err != nil {
			t.Fatal(err)
		}
		return zc
	}
	granted := parse(`zone "a.test" { type primary; file "f"; allow-update { key "k"; }; };`)
	plain := parse(`zone "a.test" { type primary; file "f"; };`)
	sec := parse(`zone "a.test" { type secondary; primaries { 192.0.2.1; }; };`)
	nzd := &rndc.ZoneStatus{Type: "primary", Reconfigurable: true}
	conf := &rndc.ZoneStatus{Type: "primary"}
	for _, tc := range []struct {
		name    string
		st      *rndc.ZoneStatus
		zc      *rndc.ZoneStatement
		managed bool
		updater bool
		want    string // records modify delete adopt retransfer
	}{
		{"managed, granted", nzd, granted, true, true, "yes yes yes no no"},
		{"nzd, no grant", nzd, plain, false, true, "no yes yes yes no"},
		{"named.conf, granted", conf, granted, false, true, "yes no no no no"},
		{"named.conf, no grant", conf, plain, false, true, "no no no no no"},
		{"secondary", nzd, sec, false, true, "no yes yes yes yes"},
		{"no update key secret", nzd, granted, true, false, "no yes yes no no"},
	} {
		s.Updater = nil
		if tc.updater {
			s.Updater = dnsupdateStub
		}
		c := s.CapabilitiesOf("a.test", tc.st, tc.zc, tc.managed)
		yn := func(c Capability) string {
			if c.Allowed {
				return "yes"
			}
			if c.Reason == "" {
				t.Errorf("%s: a refusal without a reason", tc.name)
			}
			return "no"
		}
		got := strings.Join([]string{yn(c.Records), yn(c.Modify), yn(c.Delete), yn(c.Adopt), yn(c.Retransfer)}, " ")
		if got != tc.want {
			t.Errorf("%s: %s, want %s (%+v)", tc.name, got, tc.want, c)
		}
	}
}

// dnsupdateStub is an Updater that is never used: CapabilitiesOf only
// asks whether there is one.
var dnsupdateStub = dnsupdate.NewUpdater(nil)

// An adopted zone keeps its file where it was: the index records it, and
// a full reconcile does not report it as a zone served with another file
// than the API's.
func TestAdoptedZoneReconciles(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	r.named.zones["nzd.test"] = "/elsewhere/nzd.test.zone"
	if _, err := r.s.Adopt(ctx, "nzd.test", AdoptOptions{}); err != nil {
		t.Fatal(err)
	}
	if e, ok, _ := r.store.Get("nzd.test"); !ok || e.File != "/elsewhere/nzd.test.zone" {
		t.Fatalf("index entry %+v, %v", e, ok)
	}
	rep, err := r.s.Reconcile(ctx, true)
	if err != nil || len(rep.Problems) != 0 {
		t.Errorf("reconcile after adoption: %+v, %v", rep, err)
	}
	// A zone served with another file than its entry's still is one.
	r.named.zones["nzd.test"] = "/moved/nzd.test.zone"
	rep, _ = r.s.Reconcile(ctx, true)
	if len(rep.Problems) != 1 || rep.Problems[0].Action != "indexed-zone-other-file" {
		t.Errorf("reconcile with the file moved: %+v", rep.Problems)
	}
}

// The delete of an adopted zone whose file is outside the zone directory
// waits for named to remove that file, so it is durable at once (before:
// 202, completed later).
func TestAdoptedZoneDelete(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "nzd.test.zone")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.named.zones["nzd.test"] = file
	if _, err := r.s.Adopt(ctx, "nzd.test", AdoptOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := r.s.Delete(ctx, "nzd.test", DeleteOptions{})
	if err != nil || !d.Durable || !d.Managed {
		t.Fatalf("delete of the adopted zone = %+v, %v; want durable", d, err)
	}
	if r.exists(file) {
		t.Error("named's -clean did not remove the adopted zone's file")
	}
	if _, ok, _ := r.store.Get("nzd.test"); ok {
		t.Error("the deleted zone is still indexed")
	}
}

// TestSerials: the serials of the service's view's zones as named's
// statistics channel reports them (a PowerDNS zone list's serial); none
// without an inventory.
func TestSerials(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	if got := r.s.Serials(ctx); got != nil {
		t.Fatalf("without an inventory: %v", got)
	}
	r.s.Inventory = &inventory.Inventory{
		Fetch: func(context.Context) ([]byte, error) {
			return statsOf("a.test _default primary", "b.test _default secondary", "c.test internal primary"), nil
		},
		Status: func(context.Context, string, string) (bool, error) { return true, nil },
	}
	defer r.s.Inventory.Stop()
	if got := r.s.Serials(ctx); len(got) != 2 || got["a.test"] != 5 || got["b.test"] != 5 {
		t.Fatalf("default view: %v", got)
	}
	r.s.View = "internal"
	if got := r.s.Serials(ctx); len(got) != 1 || got["c.test"] != 5 {
		t.Fatalf("view internal: %v", got)
	}
}

// TestAllZonesDefaultView: with views configured and one of them the
// default (the root service's View), a zone the API created there and
// named has not reported yet (the snapshot is older) is listed in that
// view, not in "_default", which named does not have; and a zone of the
// index is marked managed in that view, not in another of the name.
// Before, the root's index was joined as the index of no view, and CI's
// TestZonesOfEveryOrigin listed api1.test in "_default" when the list
// came before named's next snapshot.
func TestAllZonesDefaultView(t *testing.T) {
	r := newRig(t)
	r.s.View = "external"
	r.s.Inventory = &inventory.Inventory{
		Fetch: func(context.Context) ([]byte, error) {
			return statsOf("both.test internal primary", "both.test external primary"), nil
		},
		Status: func(context.Context, string, string) (bool, error) { return true, nil },
	}
	defer r.s.Inventory.Stop()
	for _, name := range []string{"both.test", "new.test"} {
		if err := r.store.Put(zonestore.Entry{Name: name, Type: "primary"}); err != nil {
			t.Fatal(err)
		}
	}
	all, _, _, err := r.s.AllZones(context.Background(), ListFilter{}, "", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, z := range all {
		got = append(got, fmt.Sprintf("%s/%s:%v", z.Name, z.View, z.Managed))
	}
	if want := "both.test/external:true both.test/internal:false new.test/external:true"; strings.Join(got, " ") != want {
		t.Fatalf("all zones:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}
