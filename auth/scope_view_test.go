package auth

import (
	"strings"
	"testing"
)

// TestGrantViews: zone patterns with @view and the views field limit the
// views a zone may be addressed in; a pattern without @ allows every view
// and none; a grant that names views never allows a zone addressed
// without one.
func TestGrantViews(t *testing.T) {
	type addr struct{ zone, view string }
	cases := []struct {
		scope string
		allow map[addr]bool
	}{
		{"zones=example.com@internal", map[addr]bool{
			{"example.com", "internal"}: true, {"example.com", "external"}: false, {"example.com", ""}: false,
			{"other.com", "internal"}: false,
		}},
		{"zones=*@internal,example.com@external", map[addr]bool{
			{"a.test", "internal"}: true, {"example.com", "external"}: true, {"a.test", "external"}: false,
			{"example.com", ""}: false,
		}},
		{"views=internal", map[addr]bool{
			{"a.test", "internal"}: true, {"a.test", "external"}: false, {"a.test", ""}: false,
		}},
		{"zones=example.com views=internal,lan", map[addr]bool{
			{"example.com", "internal"}: true, {"example.com", "lan"}: true, {"example.com", "external"}: false,
			{"other.com", "internal"}: false, {"example.com", ""}: false,
		}},
		{"zones=example.com", map[addr]bool{ // no @: every view and none
			{"example.com", "internal"}: true, {"example.com", "external"}: true, {"example.com", ""}: true,
			{"other.com", "internal"}: false,
		}},
		{"zones=*", map[addr]bool{{"a.test", "x"}: true, {"a.test", ""}: true}},
	}
	for _, c := range cases {
		g := mustGrant(t, c.scope)
		for a, want := range c.allow {
			if got := g.AllowsZoneIn(a.zone, a.view); got != want {
				t.Errorf("%q: AllowsZoneIn(%q, %q) = %v, want %v", c.scope, a.zone, a.view, got, want)
			}
			err := g.CheckActionIn("static:t", ActionRead, a.zone, a.view)
			if (err == nil) != want {
				t.Errorf("%q: CheckActionIn(%q, %q) = %v", c.scope, a.zone, a.view, err)
			}
			if a.view == "" && g.AllowsZone(a.zone) != want {
				t.Errorf("%q: AllowsZone(%q) differs from AllowsZoneIn(%q, \"\")", c.scope, a.zone, a.zone)
			}
		}
		if !g.RestrictsZones() != (c.scope == "zones=*") {
			t.Errorf("%q: RestrictsZones = %v", c.scope, g.RestrictsZones())
		}
		if g.AllowsServer() == g.RestrictsZones() {
			t.Errorf("%q: AllowsServer = %v: server-wide operations need a grant limited to no zone or view", c.scope, g.AllowsServer())
		}
	}
	g := mustGrant(t, "views=internal")
	err := g.CheckActionIn("static:int", ActionZones, "example.com", "external")
	if err == nil || !strings.Contains(err.Error(), "in view external") || !strings.Contains(err.Error(), "its views: internal") {
		t.Errorf("message for another view: %v", err)
	}
	err = g.CheckAction("static:int", ActionZones, "example.com")
	if err == nil || !strings.Contains(err.Error(), "without a view (name one with ?view=)") {
		t.Errorf("message for no view: %v", err)
	}
	// Intersected grants: both must allow the view.
	both := Intersect(mustGrant(t, "zones=*@internal"), mustGrant(t, "views=internal,external"))
	if !both.AllowsZoneIn("a.test", "internal") || both.AllowsZoneIn("a.test", "external") {
		t.Error("intersection of view limits")
	}
	// Round trip through String.
	s, _ := ParseScope("zones=example.com@internal views=internal")
	if s.String() != "zones=example.com@internal views=internal" {
		t.Errorf("String = %q", s.String())
	}
}

// TestGrantViewsRefused: bad view names in scopes are errors, never a
// wider grant.
func TestGrantViewsRefused(t *testing.T) {
	for _, text := range []string{
		"zones=example.com@", "zones=example.com@in/ternal", "zones=@internal", "views=a.b", "views=-x",
		"zones=example.com@a@b",
	} {
		s, err := ParseScope(text)
		if err != nil {
			continue
		}
		if _, err := s.Compile(); err == nil {
			t.Errorf("%q compiled", text)
		}
	}
	var s Scope
	if err := s.UnmarshalJSON([]byte(`{"views":["internal"],"zones":"example.com@internal"}`)); err != nil {
		t.Fatal(err)
	}
	if g, err := s.Compile(); err != nil || !g.AllowsZoneIn("example.com", "internal") || g.AllowsZoneIn("example.com", "") {
		t.Errorf("object form: %v", err)
	}
}
