package catalog

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

func TestLabel(t *testing.T) {
	// SHA-1 of the wire form \x07example\x03com\x00.
	if got, want := Label("Example.COM."), "e5373b1e1d4ba4ab8a3a3d2b3ef9f0b8d27a3d3f"; len(got) != 40 || got != Label("example.com") {
		t.Errorf("Label = %q (want 40 hex digits, case-insensitive; e.g. %s)", got, want)
	}
	if Label("a.test") == Label("b.test") {
		t.Error("two zones share a label")
	}
}

func TestParseMembersAndDiff(t *testing.T) {
	o := "cat.test."
	rr := func(s string) dns.RR {
		r, err := dns.NewRR(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	la, lb := Label("a.test"), Label("b.test")
	rrs := []dns.RR{
		rr(o + " 0 IN SOA invalid. invalid. 1 60 30 604800 0"),
		rr("version." + o + " 0 IN TXT \"2\""),
		rr(la + ".zones." + o + " 0 IN PTR a.test."),
		rr("group." + la + ".zones." + o + " 0 IN TXT \"g1\""),
		rr(lb + ".zones." + o + " 0 IN PTR b.test."),
		rr("other.zones." + o + " 0 IN PTR a.test."), // a second label for a.test
		rr("x.y.zones." + o + " 0 IN PTR ignored.test."),
	}
	ms := parseMembers(o, rrs)
	want := []Member{{Zone: "a.test", Label: la, Group: "g1"}, {Zone: "a.test", Label: "other"}, {Zone: "b.test", Label: lb}}
	sort.Slice(want, func(i, j int) bool { return want[i].Zone+want[i].Label < want[j].Zone+want[j].Label })
	if !reflect.DeepEqual(ms, want) {
		t.Fatalf("members = %+v, want %+v", ms, want)
	}
	missing, stray := Diff(ms, []string{"a.test", "c.test"})
	if !reflect.DeepEqual(missing, []string{"c.test"}) {
		t.Errorf("missing = %q", missing)
	}
	if len(stray) != 2 || stray[0].Label != "other" || stray[1].Zone != "b.test" {
		t.Errorf("stray = %+v", stray)
	}
}

// TestCatalogWorkload: a catalog on a real named follows a mixed workload
// of 200 creates and deletes, some of which "crash" between the zone step
// and the catalog step (the catalog step never runs); the catalog then
// differs from the managed zones by exactly those, and a reconcile makes
// members equal the managed zones.
func TestCatalogWorkload(t *testing.T) {
	t.Parallel()
	ns := testbind.Start(t, nil)
	ctx := context.Background()
	cfg, err := rndc.LoadConfig(ns.RNDCConfFile)
	if err != nil {
		t.Fatal(err)
	}
	key, err := cfg.Key("")
	if err != nil {
		t.Fatal(err)
	}
	rc := &rndc.Client{Addr: ns.ControlAddr, Key: key, Timeout: 5 * time.Second}
	dc, err := dnsupdate.NewClient(ns.DNSAddr, &dnsupdate.TSIGKey{Name: ns.TSIGKeyName, Algorithm: ns.TSIGAlgorithm, Secret: ns.TSIGSecret}, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	cat := &Catalog{
		Zone: "catalog.test", Group: "web", Dir: ns.ZoneDir, UpdateKey: ns.TSIGKeyName,
		DNS: dc, Control: rc, IsNotFound: rndc.IsNotFound, IsExists: rndc.IsAlreadyExists,
	}

	managed := map[string]bool{}
	list := func() []string {
		var out []string
		for z := range managed {
			out = append(out, z)
		}
		sort.Strings(out)
		return out
	}
	var lostAdds, lostRemoves []string
	rng := rand.New(rand.NewPCG(1, 2))
	next := 0
	for op := 0; op < 200; op++ {
		crash := rng.IntN(10) == 0
		if len(managed) == 0 || rng.IntN(3) != 0 {
			zone := fmt.Sprintf("z%03d.test", next)
			next++
			path, err := ns.WriteZone(zone, testbind.MinimalZone(zone, 1))
			if err != nil {
				t.Fatal(err)
			}
			zs := &rndc.ZoneStatement{Name: zone}
			zs.Add("type", rndc.Word("primary"))
			zs.Add("file", rndc.Quoted(path))
			if _, err := rc.AddZone(ctx, zs); err != nil {
				t.Fatal(err)
			}
			managed[zone] = true
			if crash {
				lostAdds = append(lostAdds, zone)
				continue
			}
			if err := cat.ZoneCreated(ctx, zone, "primary"); err != nil {
				t.Fatal(err)
			}
			continue
		}
		zones := list()
		zone := zones[rng.IntN(len(zones))]
		if _, err := rc.DelZone(ctx, zone, false); err != nil {
			t.Fatal(err)
		}
		delete(managed, zone)
		if crash {
			lostRemoves = append(lostRemoves, zone)
			continue
		}
		if err := cat.ZoneDeleted(ctx, zone); err != nil {
			t.Fatal(err)
		}
	}
	if len(lostAdds) == 0 || len(lostRemoves) == 0 {
		t.Fatalf("the workload injected no crash of both kinds (%d, %d): change the seed", len(lostAdds), len(lostRemoves))
	}
	// A crashed create whose zone was deleted later (without crashing)
	// leaves nothing behind; a crashed delete of a zone whose create had
	// crashed too leaves nothing either.
	var wantMissing, wantStray []string
	for _, z := range lostAdds {
		if managed[z] {
			wantMissing = append(wantMissing, z)
		}
	}
	removedCleanly := map[string]bool{}
	for _, z := range lostAdds {
		removedCleanly[z] = true
	}
	for _, z := range lostRemoves {
		if !removedCleanly[z] {
			wantStray = append(wantStray, z)
		}
	}
	sort.Strings(wantMissing)
	sort.Strings(wantStray)

	dry, err := cat.Reconcile(ctx, list(), false, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var gotStray []string
	for _, m := range dry.Stray {
		gotStray = append(gotStray, m.Zone)
	}
	sort.Strings(gotStray)
	if !reflect.DeepEqual(dry.Missing, nonNil(wantMissing)) || !reflect.DeepEqual(nonNil(gotStray), nonNil(wantStray)) || dry.Fixed {
		t.Errorf("dry run: missing %q stray %q, want %q and %q", dry.Missing, gotStray, wantMissing, wantStray)
	}
	rep, err := cat.Reconcile(ctx, list(), true, nil, func(z string) (bool, error) { return managed[z], nil })
	if err != nil || !rep.Fixed {
		t.Fatalf("reconcile: %+v, %v", rep, err)
	}
	members, err := cat.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range members {
		got = append(got, m.Zone)
		if m.Label != Label(m.Zone) || m.Group != "web" {
			t.Errorf("member %+v", m)
		}
	}
	if want := list(); !reflect.DeepEqual(got, want) {
		t.Errorf("after reconcile members = %d %q\nmanaged = %d %q", len(got), got, len(want), want)
	}
	again, err := cat.Reconcile(ctx, list(), false, nil, nil)
	if err != nil || len(again.Missing)+len(again.Stray) != 0 {
		t.Errorf("a second reconcile finds %+v, %v", again, err)
	}
	// The catalog is a valid RFC 9432 v2 catalog: named serves version 2.
	rrs, err := dc.Transfer(ctx, "catalog.test")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(fmt.Sprint(rrs), "version.catalog.test.\t0\tIN\tTXT\t\"2\"") {
		t.Errorf("no version record in %v", rrs)
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// TestCatalogStatement: the catalog's addzone statement, as the catalog
// rendered it before the statement model (the same text).
func TestCatalogStatement(t *testing.T) {
	c := &Catalog{Zone: "cat.test", UpdateKey: "zoneapi-key",
		AlsoNotify:    []rndc.Value{rndc.Words("192.0.2.2", "port", "5300"), rndc.Words("2001:db8::1")},
		AllowTransfer: []rndc.Value{rndc.Words("10.0.0.0/8")}}
	want := `{ type primary; file "/z/cat.test.catalog.db"; notify-delay 1; allow-update { key "zoneapi-key"; }; ` +
		`also-notify { 192.0.2.2 port 5300; 2001:db8::1; }; allow-transfer { 10.0.0.0/8; key "zoneapi-key"; }; };`
	if got := c.statement("cat.test", "/z/cat.test.catalog.db").Block(); got != want {
		t.Errorf("statement:\n got %s\nwant %s", got, want)
	}
	bare := &Catalog{Zone: "cat.test"}
	if got, want := bare.statement("cat.test", `/z/a"b`).Block(), `{ type primary; file "/z/a\"b"; notify-delay 1; };`; got != want {
		t.Errorf("statement:\n got %s\nwant %s", got, want)
	}
}

// TestRootZoneMember: the root zone is a member as any other, its PTR
// "." read back as the canonical name "." (not the empty name a trimmed
// dot leaves), so that the managed root zone is neither missing nor a
// stray member (a reconcile used to remove its membership).
func TestRootZoneMember(t *testing.T) {
	o := "cat.test."
	c := &Catalog{Zone: "cat.test"}
	rrs := c.addRRs(".")
	if got := rrs[0].String(); got != Label(".")+".zones.cat.test.\t0\tIN\tPTR\t." {
		t.Fatalf("member record %s", got)
	}
	if Label(".") == Label("a.test") || len(Label(".")) != 40 {
		t.Errorf("root label %q", Label("."))
	}
	ms := parseMembers(o, rrs)
	if want := []Member{{Zone: ".", Label: Label(".")}}; !reflect.DeepEqual(ms, want) {
		t.Fatalf("members = %+v, want %+v", ms, want)
	}
	if missing, stray := Diff(ms, []string{"."}); len(missing) != 0 || len(stray) != 0 {
		t.Errorf("root managed and a member: missing %q, stray %+v", missing, stray)
	}
	if missing, _ := Diff(nil, []string{"."}); !reflect.DeepEqual(missing, []string{"."}) {
		t.Errorf("root not a member: missing %q", missing)
	}
}
