package zoneservice

import (
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// TestNoticeTargets: named's NOTIFYs go to the root's service and, with
// views, to the other views' services too; with views configured and
// none the default, not to the root's view-less service (it would record
// a zone of whichever view its key reaches under no view).
func TestNoticeTargets(t *testing.T) {
	root, a, z := &Service{}, &Service{View: "a"}, &Service{View: "z"}
	views := map[string]*Service{"z": z, "a": a}
	ext := &Service{View: "ext"}
	for _, tc := range []struct {
		name    string
		s       *Server
		def     *Service
		nOthers int
	}{
		{"no views", &Server{root: root}, root, 0},
		{"a default view", &Server{root: ext, views: views}, ext, 2},
		{"views, no default", &Server{root: root, views: views}, nil, 2},
	} {
		def, others := tc.s.noticeTargets()
		if def != tc.def || len(others) != tc.nOthers {
			t.Errorf("%s: def %p (want %p), %d others (want %d)", tc.name, def, tc.def, len(others), tc.nOthers)
		}
		if len(others) == 2 && (others[0] != a || others[1] != z) {
			t.Errorf("%s: others not in view order", tc.name)
		}
	}
}

// zonesScope is a Scope allowing the zones named "<zone>@<view>".
type zonesScope map[string]bool

func (s zonesScope) AllowsZoneIn(zone, view string) bool { return s[zone+"@"+view] }
func (s zonesScope) RestrictsZones() bool                { return true }

// TestServerListZones: without views, the root's zones, all or those the
// scope allows, paged by name; with views, every view's or one view's,
// in name then view order, paged by "<name>@<view>", the scope applied
// with each zone's view, the total counting only what it allows.
func TestServerListZones(t *testing.T) {
	open := func(dir, view string) *zonestore.Store {
		t.Helper()
		st, err := zonestore.OpenView(dir, view)
		if view == "" {
			st, err = zonestore.Open(dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	}
	put := func(st *zonestore.Store, names ...string) {
		t.Helper()
		for _, n := range names {
			if err := st.Put(zonestore.Entry{Name: n, Type: "primary"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	names := func(page []ManagedZone) string {
		var out []string
		for _, z := range page {
			out = append(out, z.Name+"@"+z.View)
		}
		return strings.Join(out, " ")
	}
	dir := t.TempDir()
	root := open(dir, "")
	put(root, "a.test", "b.test", "c.test")
	s := &Server{root: &Service{Store: root}}
	page, next, total, err := s.ListZones(nil, "", "", "", 2)
	if err != nil || names(page) != "a.test@ b.test@" || next != "b.test" || total != 3 {
		t.Fatalf("no views: %q next %q total %d, %v", names(page), next, total, err)
	}
	page, next, total, _ = s.ListZones(zonesScope{"a.test@": true, "c.test@": true}, "", "", "a.test", 1)
	if names(page) != "c.test@" || next != "" || total != 2 {
		t.Fatalf("no views, scoped: %q next %q total %d", names(page), next, total)
	}

	vdir := t.TempDir()
	ext, in := open(vdir, ""), open(vdir, "in")
	put(ext, "a.test", "z.test")
	put(in, "a.test", "m.test")
	s = &Server{root: &Service{Store: ext, View: "ext"}, views: map[string]*Service{"in": {Store: in, View: "in"}}, names: []string{"ext", "in"}}
	page, next, total, _ = s.ListZones(nil, "", "", "", 2)
	if names(page) != "a.test@ext a.test@in" || next != "a.test@in" || total != 4 {
		t.Fatalf("views: %q next %q total %d", names(page), next, total)
	}
	page, next, _, _ = s.ListZones(nil, "", "", next, 2)
	if names(page) != "m.test@in z.test@ext" || next != "" {
		t.Fatalf("views, second page: %q next %q", names(page), next)
	}
	page, _, total, _ = s.ListZones(nil, "in", "", "", 0)
	if names(page) != "a.test@in m.test@in" || total != 2 {
		t.Fatalf("one view: %q total %d", names(page), total)
	}
	page, _, total, _ = s.ListZones(zonesScope{"a.test@in": true, "z.test@ext": true}, "", "", "", 10)
	if names(page) != "a.test@in z.test@ext" || total != 2 {
		t.Fatalf("views, scoped: %q total %d", names(page), total)
	}
}
