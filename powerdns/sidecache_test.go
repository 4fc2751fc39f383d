package powerdns

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// countingSides counts the reads of the side files it passes on.
type countingSides struct {
	frontend.SideFiles
	reads atomic.Int64
}

func (c *countingSides) ReadSideFile(zone, kind string) ([]byte, bool, error) {
	c.reads.Add(1)
	return c.SideFiles.ReadSideFile(zone, kind)
}

func (c *countingSides) ReadSideFileStamped(zone, kind string) ([]byte, zonestore.SideFileStamp, bool, error) {
	c.reads.Add(1)
	return c.SideFiles.ReadSideFileStamped(zone, kind)
}

// countingNamed is f with its side files counted.
type countingNamed struct {
	*fakeNamed
	sides *countingSides
}

func (c countingNamed) SideFiles() (frontend.SideFiles, error) { return c.sides, nil }

func countingAPI(f *fakeNamed) (http.Handler, *countingSides) {
	c := &countingSides{SideFiles: f.store}
	mux := http.NewServeMux()
	for _, rt := range (&API{Service: countingNamed{f, c}}).Routes() {
		mux.HandleFunc(rt.Method+" "+rt.Template, func(w http.ResponseWriter, r *http.Request) {
			rt.Handle(w, r, strings.TrimSuffix(ZoneName(r.PathValue("name")), "."))
		})
	}
	return mux, c
}

func txtReplace(zone, name string, records ...map[string]any) map[string]any {
	return map[string]any{"rrsets": []any{map[string]any{"changetype": "REPLACE", "name": name + "." + zone + ".", "type": "TXT", "ttl": 60,
		"records": records}}}
}

func enabled(v string) map[string]any  { return map[string]any{"content": v, "disabled": false} }
func disabled(v string) map[string]any { return map[string]any{"content": v, "disabled": true} }

// settlePatches PATCHes the zone (TXT REPLACEs of names no side file
// keeps) until two PATCHes in a row read no side file, as they may once
// its times are old enough to tell versions apart; it fails after 10 s.
func settlePatches(t *testing.T, h http.Handler, c *countingSides, zone string) {
	t.Helper()
	quiet := 0
	for i, deadline := 0, time.Now().Add(10*time.Second); quiet < 2; i++ {
		if time.Now().After(deadline) {
			t.Fatalf("zone %s: every PATCH still reads its side file after 10 s (%d reads)", zone, c.reads.Load())
		}
		n := c.reads.Load()
		if p := call(t, h, "PATCH", zp+"/"+zone+".", txtReplace(zone, "settle", enabled(`"s"`))); p.status != 204 {
			t.Fatalf("PATCH %s: %d %s", zone, p.status, p.raw)
		}
		if c.reads.Load() == n {
			quiet++
		} else {
			quiet = 0
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// TestSideFilePatchNoRead: a plain PATCH (no comments, no disabled
// records, no RRset the side file keeps anything of) does not read the
// zone's side file: not at all when the zone has none, and not again
// while it is unchanged (a Native zone's, which keeps only its kind).
// Before, every PATCH read and parsed it to learn that.
func TestSideFilePatchNoRead(t *testing.T) {
	f := newFakeNamed(t)
	h, c := countingAPI(f)
	for _, z := range []struct{ name, kind string }{{"plain.test", "Master"}, {"native.test", "Native"}} {
		if r := call(t, h, "POST", zp, map[string]any{"name": z.name + ".", "kind": z.kind, "nameservers": []string{"ns1.example.com."}}); r.status != 201 {
			t.Fatalf("create %s: %d %s", z.name, r.status, r.raw)
		}
	}
	if _, ok, _ := f.store.ReadSideFile("plain.test", zonestore.SideKindPowerDNS); ok {
		t.Fatal("plain.test has a side file: the test needs a zone without one")
	}
	if _, ok, _ := f.store.ReadSideFile("native.test", zonestore.SideKindPowerDNS); !ok {
		t.Fatal("native.test has no side file: the test needs a zone with one")
	}

	n := c.reads.Load()
	for i := range 5 {
		if p := call(t, h, "PATCH", zp+"/plain.test.", txtReplace("plain.test", "t", enabled(`"v`+string(rune('0'+i))+`"`))); p.status != 204 {
			t.Fatalf("PATCH: %d %s", p.status, p.raw)
		}
	}
	if got := c.reads.Load() - n; got != 0 {
		t.Errorf("5 PATCHes of a zone without a side file read it %d times, want 0", got)
	}

	settlePatches(t, h, c, "native.test")
	n = c.reads.Load()
	for i := range 5 {
		if p := call(t, h, "PATCH", zp+"/native.test.", txtReplace("native.test", "t", enabled(`"v`+string(rune('0'+i))+`"`))); p.status != 204 {
			t.Fatalf("PATCH: %d %s", p.status, p.raw)
		}
	}
	if got := c.reads.Load() - n; got != 0 {
		t.Errorf("5 PATCHes of a zone with an unchanged side file read it %d times, want 0", got)
	}
	if g := call(t, h, "GET", zp+"/native.test.", nil); g.body["kind"] != KindNative || js(g.rrset("t.native.test.", "TXT")["records"]) != js([]any{enabled(`"v4"`)}) {
		t.Errorf("native.test: kind %v, TXT %v", g.body["kind"], g.rrset("t.native.test.", "TXT"))
	}
}

// TestSideFilePatchSeesOtherWriter: when another writer (another API
// over another Store of the same zone directory, as another Caddy
// process) disables a record, the next PATCH of that RRset through the
// first API goes through the side file again, after that API had stopped
// reading the unchanged file: the REPLACE drops the disabled record, as
// PowerDNS's REPLACE does. Served from a stale view, the PATCH would
// leave the disabled record kept. (Before the side file's reads were
// kept, every PATCH read the file, which settlePatches fails on.)
func TestSideFilePatchSeesOtherWriter(t *testing.T) {
	f := newFakeNamed(t)
	h, c := countingAPI(f)
	if r := call(t, h, "POST", zp, map[string]any{"name": "w.test.", "kind": "Native", "nameservers": []string{"ns1.example.com."}}); r.status != 201 {
		t.Fatalf("create: %d %s", r.status, r.raw)
	}
	settlePatches(t, h, c, "w.test")

	other, err := zonestore.Open(f.store.Dir())
	if err != nil {
		t.Fatal(err)
	}
	f2 := &fakeNamed{store: other, zones: f.zones}
	if p := call(t, fakeAPI(f2), "PATCH", zp+"/w.test.", txtReplace("w.test", "settle", enabled(`"s"`), disabled(`"off"`))); p.status != 204 {
		t.Fatalf("other writer's PATCH: %d %s", p.status, p.raw)
	}
	g := call(t, h, "GET", zp+"/w.test.", nil)
	if got := js(g.rrset("settle.w.test.", "TXT")["records"]); got != js([]any{enabled(`"s"`), disabled(`"off"`)}) {
		t.Fatalf("after the other writer: TXT records %s", got)
	}

	n := c.reads.Load()
	if p := call(t, h, "PATCH", zp+"/w.test.", txtReplace("w.test", "settle", enabled(`"new"`))); p.status != 204 {
		t.Fatalf("PATCH: %d %s", p.status, p.raw)
	}
	if c.reads.Load() == n {
		t.Error("the PATCH after another writer's change did not read the side file")
	}
	g = call(t, h, "GET", zp+"/w.test.", nil)
	if got := js(g.rrset("settle.w.test.", "TXT")["records"]); got != js([]any{enabled(`"new"`)}) {
		t.Errorf("after the REPLACE: TXT records %s, want only the new record (the disabled one replaced)", got)
	}
}
