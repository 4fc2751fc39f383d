package auth

import (
	"encoding/json"
	"strings"
	"testing"
)

func mustGrant(t *testing.T, text string) *Grant {
	t.Helper()
	s, err := ParseScope(text)
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Compile()
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGrantZones(t *testing.T) {
	g := mustGrant(t, "zones=example.com,*.customer.test")
	for zone, want := range map[string]bool{
		"example.com": true, "EXAMPLE.COM.": true, "www.example.com": false,
		"a.customer.test": true, "b.a.customer.test": true, "customer.test": false,
		"xcustomer.test": false, "other.test": false,
	} {
		if got := g.AllowsZone(zone); got != want {
			t.Errorf("AllowsZone(%q) = %v, want %v", zone, got, want)
		}
	}
	if all := mustGrant(t, "zones=*"); !all.AllowsZone("anything.example") {
		t.Error("* does not allow every zone")
	}
	var nilGrant *Grant
	if !nilGrant.AllowsZone("x.test") || !nilGrant.AllowsAction(ActionZones) || !nilGrant.AllowsRecord("a.x.test.", "A") {
		t.Error("a nil grant must allow everything")
	}
}

func TestGrantRecords(t *testing.T) {
	g := mustGrant(t, "names=_acme-challenge.*,@x.example.com types=TXT")
	_ = g
	g = mustGrant(t, "names=_acme-challenge.* types=txt")
	cases := []struct {
		name, typ string
		want      bool
	}{
		{"_acme-challenge.example.com.", "TXT", true},
		{"_acme-challenge.www.example.com", "txt", true},
		{"_ACME-CHALLENGE.example.com.", "TXT", true},
		{"_acme-challenge.example.com.", "A", false},
		{"www.example.com.", "TXT", false},
		{"_acme-challenge", "TXT", false}, // * needs at least one label
		{"x._acme-challenge.example.com.", "TXT", false},
	}
	for _, c := range cases {
		if got := g.AllowsRecord(c.name, c.typ); got != c.want {
			t.Errorf("AllowsRecord(%q, %q) = %v, want %v", c.name, c.typ, got, c.want)
		}
	}
	if !g.RestrictsRecords() || g.RestrictsZones() {
		t.Error("Restricts* wrong")
	}
	mid := mustGrant(t, "names=a.*.example.com")
	if !mid.AllowsRecord("a.b.c.example.com.", "A") || mid.AllowsRecord("a.example.com.", "A") {
		t.Error("a middle * must match one or more labels")
	}
}

func TestGrantActionsAndMessages(t *testing.T) {
	g := mustGrant(t, "actions=read zones=example.com")
	if err := g.CheckAction("static:ro", ActionRead, "example.com"); err != nil {
		t.Errorf("read of example.com: %v", err)
	}
	err := g.CheckAction("static:ro", ActionRecords, "example.com")
	if err == nil || !strings.Contains(err.Error(), `"records" action`) || !strings.Contains(err.Error(), "static:ro") {
		t.Errorf("records: %v", err)
	}
	err = g.CheckAction("static:ro", ActionRead, "other.com")
	if err == nil || !strings.Contains(err.Error(), "zone other.com") {
		t.Errorf("other zone: %v", err)
	}
	if err := NoAccess().CheckAction("jwt:x", ActionRead, ""); err == nil || !strings.Contains(err.Error(), "its actions: none") {
		t.Errorf("no access: %v", err)
	}
	rg := mustGrant(t, "names=_acme-challenge.* types=TXT")
	err = rg.CheckRecord("static:acme", "changes[1]", "www.example.com.", "A")
	if err == nil || !strings.Contains(err.Error(), "changes[1]") || !strings.Contains(err.Error(), "www.example.com.") {
		t.Errorf("record: %v", err)
	}
}

func TestCompileRejects(t *testing.T) {
	for _, text := range []string{
		"actions=write", "zones=a.*.com", "zones=ex*ample.com", "names=a*b.example.com", "types=NOPE",
		"colour=blue", "zones=",
	} {
		s, err := ParseScope(text)
		if err == nil {
			_, err = s.Compile()
		}
		if err == nil {
			t.Errorf("%q: accepted", text)
		}
	}
}

func TestScopeJSON(t *testing.T) {
	var a, b Scope
	if err := json.Unmarshal([]byte(`"actions=read,records zones=example.com"`), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{"actions":["read","records"],"zones":["example.com"]}`), &b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() || a.String() != "actions=read,records zones=example.com" {
		t.Errorf("string form %q, object form %q", a.String(), b.String())
	}
}

func TestBearerToken(t *testing.T) {
	cases := []struct {
		values []string
		token  string
		msg    string
	}{
		{nil, "", MsgMissingHeader},
		{[]string{"Bearer"}, "", MsgEmptyToken},
		{[]string{"Bearer   "}, "", MsgEmptyToken},
		{[]string{"bearer abc"}, "abc", ""},
		{[]string{"Bearer a b"}, "", MsgBadFormat},
		{[]string{"Bearer abc", "Bearer def"}, "", MsgBadFormat},
		{[]string{"Bearer abc.DEF-_~+/="}, "abc.DEF-_~+/=", ""},
	}
	for _, c := range cases {
		tok, _, msg := BearerToken(c.values)
		if tok != c.token || msg != c.msg {
			t.Errorf("BearerToken(%q) = %q, %q; want %q, %q", c.values, tok, msg, c.token, c.msg)
		}
	}
}

func FuzzParseScope(f *testing.F) {
	f.Add("actions=records zones=example.com names=_acme-challenge.* types=TXT")
	f.Add("zones=*.a.b,* names=a.*.*.b")
	f.Add("zones=example.com@internal,*@lan views=internal,lan")
	f.Fuzz(func(t *testing.T, text string) {
		s, err := ParseScope(text)
		if err != nil {
			return
		}
		g, err := s.Compile()
		if err != nil {
			return
		}
		// Round trip: the rendered scope parses to the same scope.
		s2, err := ParseScope(s.String())
		if err != nil || s2.String() != s.String() {
			t.Fatalf("round trip of %q: %q, %v", text, s2.String(), err)
		}
		g.AllowsRecord("a.b.c.example.com.", "TXT")
		g.AllowsZone("x.example.com")
		// A scope that names views never allows a zone addressed
		// without one.
		if g.RestrictsViews() && g.AllowsZone("x.example.com") {
			t.Fatalf("%q names views but allows a zone without one", text)
		}
		g.AllowsZoneIn("x.example.com", "internal")
	})
}

func FuzzParseTokenFile(f *testing.F) {
	f.Add("acme sha256:" + strings.Repeat("ab", 32) + " expires=2027-01-01T00:00:00Z actions=records zones=example.com\n# c\n")
	f.Fuzz(func(t *testing.T, text string) {
		toks, err := ParseTokenFile([]byte(text))
		if err != nil {
			return
		}
		s := &Static{}
		for _, tk := range toks {
			_ = s.add(tk)
		}
	})
}

// TestCheckRecordChanges: the one record-level question asks the
// records action on the zone and every RRset's name and type, whatever
// else the caller's route needed.
func TestCheckRecordChanges(t *testing.T) {
	acme := []RecordChange{{Field: "RRset 0", Name: "_acme-challenge.c.test.", Type: "TXT"}}
	www := append(acme, RecordChange{Field: "RRset 1", Name: "www.c.test.", Type: "A"})
	for _, c := range []struct {
		scope   string
		zone    string
		changes []RecordChange
		want    string // part of the refusal; "" allowed
	}{
		{"actions=zones zones=c.test", "c.test", nil, `lacks the "records" action`},
		{"actions=zones zones=c.test", "c.test", acme, `lacks the "records" action`},
		{"actions=zones,records zones=c.test", "c.test", www, ""},
		{"actions=records zones=c.test", "d.test", acme, "no access to zone d.test"},
		{"actions=records names=_acme-challenge.* types=TXT", "c.test", acme, ""},
		{"actions=records names=_acme-challenge.* types=TXT", "c.test", www, "RRset 1: t may not touch A records named www.c.test."},
	} {
		err := mustGrant(t, c.scope).CheckRecordChanges("t", c.zone, "", c.changes)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s on %s %v: %v, want allowed", c.scope, c.zone, c.changes, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s on %s %v: %v, want a refusal with %q", c.scope, c.zone, c.changes, err, c.want)
		}
	}
	var all *Grant
	if err := all.CheckRecordChanges("t", "c.test", "", acme); err != nil {
		t.Errorf("a nil grant refuses: %v", err)
	}
}
