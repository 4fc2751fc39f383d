package integration

import (
	"fmt"
	"net/http"
	"testing"
)

// The hostile review of issue 17, run again over every front end once
// the PowerDNS API, the external-dns webhook and the local transport had
// landed: each test here is a hole that review found, closed.

// reviewTokens are the restriction kinds the review attacks with.
var reviewTokens = []string{"admin", "zl", "suf", "acme", "txt", "ro"}

// startReview starts named and a Caddy with the PowerDNS API and one
// static token per restriction kind: admin (everything), zl (zone
// z1.test), suf (*.cust.test), acme (records and read, _acme-challenge.*
// TXT), txt (every action, TXT records only), ro (read only). It creates
// z1.test, other.test and a.cust.test.
func startReview(t *testing.T, env ...string) (*caddy, map[string]string) {
	t.Helper()
	ns := startNamed(t)
	tok, hash := tokens(t, reviewTokens...)
	extra := fmt.Sprintf(`powerdns
			auth static {
				token admin %s
				token zl %s {
					zones z1.test
				}
				token suf %s {
					zones *.cust.test
				}
				token acme %s {
					actions records read
					names _acme-challenge.*
					types TXT
				}
				token txt %s {
					types TXT
				}
				token ro %s {
					actions read
				}
			}`, hash["admin"], hash["zl"], hash["suf"], hash["acme"], hash["txt"], hash["ro"])
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: extra, env: env})
	for _, z := range []string{"z1.test", "other.test", "a.cust.test"} {
		expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", zoneBody(z)), http.StatusCreated, "create "+z)
	}
	return c, tok
}

// TestReviewPowerDNSCreateNoZoneOracle: a PowerDNS create with an invalid
// body answered 409 "already exists" for any existing zone before the
// zone was checked against the token's scope, 422 for a missing one: a
// zone-limited token could tell which zones exist outside its scope, and
// the lookup reached named before the request was authorised. Both are
// now 403 alike.
func TestReviewPowerDNSCreateNoZoneOracle(t *testing.T) {
	c, tok := startReview(t)
	for _, who := range []string{"zl", "suf"} {
		var msgs []string
		for _, z := range []string{"other.test", "missing.test"} {
			r := c.pdns(tok[who], "POST", zonesPath, map[string]any{"name": z + ".", "kind": "Bogus"})
			pdnsError(t, r, http.StatusForbidden, "no access to zone "+z)
			msgs = append(msgs, r.str("error"))
		}
		t.Logf("%s: %q", who, msgs)
	}
	// In its scope, the PowerDNS answer stays: 409 for a zone that exists.
	r := c.pdns(tok["zl"], "POST", zonesPath, map[string]any{"name": "z1.test.", "kind": "Bogus"})
	pdnsError(t, r, http.StatusConflict, "already exists")
}
