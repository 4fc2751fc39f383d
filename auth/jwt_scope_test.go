package auth

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// accessOf names what a grant allows among a fixed set of probes: read
// a.test, read b.test, change the TXT _acme-challenge.a.test, change the
// A www.a.test, manage zone b.test (create, delete), server-wide routes.
// "none" when it allows none of them, "all" when all.
func accessOf(g *Grant) string {
	probes := []struct {
		label string
		ok    bool
	}{
		{"read:a", g.CheckAction("x", ActionRead, "a.test") == nil},
		{"read:b", g.CheckAction("x", ActionRead, "b.test") == nil},
		{"txt:a", g.CheckAction("x", ActionRecords, "a.test") == nil && g.CheckRecord("x", "", "_acme-challenge.a.test.", "TXT") == nil},
		{"a:a", g.CheckAction("x", ActionRecords, "a.test") == nil && g.CheckRecord("x", "", "www.a.test.", "A") == nil},
		{"zones:b", g.CheckAction("x", ActionZones, "b.test") == nil},
		{"server", g.AllowsServer()},
	}
	var got []string
	for _, p := range probes {
		if p.ok {
			got = append(got, p.label)
		}
	}
	switch len(got) {
	case 0:
		return "none"
	case len(probes):
		return "all"
	}
	return strings.Join(got, " ")
}

// TestJWTScopeClaim is the table of scope claims and the access each
// gets (accessOf's probes), or 401 when the claim is refused. A claim
// that is present but grants nothing (null, "", " ", {}) gives no
// access; the object form takes exactly what the string form takes
// (the same field names, singular aliases included, values as a list
// or a comma-separated string) and refuses unknown fields and values of
// other types; a token is unrestricted only when its claim says so; a
// claim and a subject line of the configuration both apply (their
// intersection).
func TestJWTScopeClaim(t *testing.T) {
	ec := newECKey(t, "k1")
	file := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(file, jwks(ec), 0o600); err != nil {
		t.Fatal(err)
	}
	j := &JWT{Issuer: testIssuer, JWKSFile: file, Audiences: []string{"zoneapi"},
		Subjects: map[string]Scope{
			"cm":     {Actions: []string{"records", "read"}, Types: []string{"TXT"}},
			"reader": {Actions: []string{"read"}},
		}}
	provisionJWT(t, j)
	const absent = "<absent>"
	cases := []struct {
		name  string
		sub   string
		claim string // JSON, or absent
		want  string // accessOf, or "401"
	}{
		{"no claim, no subject line, no default", "u", absent, "none"},
		{"null", "u", `null`, "none"},
		{"empty string", "u", `""`, "none"},
		{"blank string", "u", `" "`, "none"},
		{"empty object", "u", `{}`, "none"},
		{"object of empty lists", "u", `{"actions":[],"zones":[]}`, "401"},
		{"list with an empty value", "u", `{"actions":[""]}`, "401"},
		{"string with an empty value", "u", `"actions=,"`, "401"},
		{"unknown key action-s", "u", `{"action-s":["read"]}`, "401"},
		{"unknown key next to a known one", "u", `{"actions":["read"],"zonez":["a.test"]}`, "401"},
		{"unknown key in the string form", "u", `"actions=read zonez=a.test"`, "401"},
		{"wrong type: number", "u", `5`, "401"},
		{"wrong type: boolean", "u", `true`, "401"},
		{"wrong type: array", "u", `["read"]`, "401"},
		{"wrong type: number value", "u", `{"actions":5}`, "401"},
		{"wrong type: number in a list", "u", `{"actions":[5]}`, "401"},
		{"wrong type: null value", "u", `{"actions":null}`, "401"},
		{"wrong type: object value", "u", `{"zones":{"a.test":true}}`, "401"},
		{"unknown action", "u", `{"actions":["write"]}`, "401"},
		{"singular alias action", "u", `{"action":["read"]}`, "read:a read:b"},
		{"singular aliases zone and type", "u", `{"zone":["a.test"],"type":["TXT"]}`, "read:a txt:a"},
		{"singular alias name", "u", `{"name":["_acme-challenge.*"],"actions":"records"}`, "txt:a"},
		{"value as a comma-separated string", "u", `{"actions":"read,records","zones":"a.test"}`, "read:a txt:a a:a"},
		{"string form", "u", `"actions=read,records zones=a.test"`, "read:a txt:a a:a"},
		{"string form, singular", "u", `"action=read zone=a.test"`, "read:a"},
		{"zones *: every zone, still no server", "u", `"actions=read zones=*"`, "read:a read:b"},
		{"explicitly everything", "u", `"actions=read,records,zones,server zones=*"`, "all"},
		{"explicitly everything, object", "u", `{"actions":["read","records","zones","server"]}`, "all"},
		{"subject line only", "cm", absent, "read:a read:b txt:a"},
		{"claim and a stricter subject line: intersection", "reader", `"actions=read,records,zones,server zones=*"`, "read:a read:b"},
		{"claim narrows a subject line: intersection", "cm", `"zones=a.test"`, "read:a txt:a"},
		{"empty claim beats a subject line", "cm", `""`, "none"},
	}
	ctx := context.Background()
	for _, c := range cases {
		extra := map[string]any{}
		if c.claim != absent {
			extra["zoneapi_scope"] = json.RawMessage(c.claim)
		}
		id, err := j.Authenticate(ctx, sign(t, ec, claims(c.sub, extra)))
		got := ""
		switch {
		case err != nil:
			var ae *Error
			if !asError(err, &ae) || ae.Status != 401 {
				t.Errorf("%s: %v, want a 401 *Error", c.name, err)
				continue
			}
			got = "401"
		default:
			got = accessOf(id.Grant)
		}
		if got != c.want {
			t.Errorf("%s (sub %s, claim %s): access %q, want %q", c.name, c.sub, c.claim, got, c.want)
		}
	}
}
