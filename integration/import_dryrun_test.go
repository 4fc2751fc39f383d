package integration

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// previewLines are a dry run's RRsets as sorted "name ttl type value"
// lines.
func previewLines(t *testing.T, r *response) []string {
	t.Helper()
	var p apitypes.ImportPreview
	if err := json.Unmarshal(r.raw, &p); err != nil {
		t.Fatalf("dry run answer %s: %v", r.raw, err)
	}
	if !p.DryRun || p.Records == 0 {
		t.Fatalf("dry run answer %s: want dryRun true and the records", r.raw)
	}
	var out []string
	for _, s := range p.RRsets {
		for _, v := range s.Values {
			out = append(out, fmt.Sprintf("%s %d %s %s", s.Name, s.TTL, s.Type, v))
		}
	}
	if len(out) != p.Records {
		t.Errorf("dry run lists %d records and counts %d", len(out), p.Records)
	}
	slices.Sort(out)
	return out
}

// rrLines are records as previewLines writes them.
func rrLines(rrs []dns.RR) []string {
	var out []string
	for _, rr := range rrs {
		h := rr.Header()
		v := strings.TrimSpace(strings.TrimPrefix(rr.String(), h.String()))
		out = append(out, fmt.Sprintf("%s %d %s %s", strings.ToLower(h.Name), h.Ttl, dns.TypeToString[h.Rrtype], v))
	}
	slices.Sort(out)
	return out
}

// notServed fails the test if named answers for zone.
func notServed(t *testing.T, ns *testbind.Server, zone string) {
	t.Helper()
	if m := query(t, ns, zone, dns.TypeSOA); m.Rcode != dns.RcodeRefused || len(m.Answer) != 0 {
		t.Errorf("%s: named answers SOA with %s %v, want REFUSED (not served)", zone, dns.RcodeToString[m.Rcode], m.Answer)
	}
}

// TestImportDryRun: POST /zones/{name}/import?dryRun=true transfers the
// zone (AXFR with TSIG from a second named) or parses the zone file,
// checks it, and answers 200 with the records the zone would have, the
// source's; nothing is made: named does not serve the zone, the zone
// directory has no file for it, no index entry, no intent, no history,
// and the import proper then succeeds. A dry run's refusals are the
// import's (a bad file's 400 with its line, 409 for a zone that exists,
// 502 for a source that fails) and so are its scopes: an AXFR dry run
// needs the server action (403). Before, dryRun was ignored: the zone was
// imported (201).
func TestImportDryRun(t *testing.T) {
	const zone = "dry-axfr.test"
	src := sourceNamed(t, zone, zoneFileFor(zone))
	ns := startNamed(t)
	// The test token is the admin (nothingLeft sends it).
	tok, hash := tokens(t, "tenant")
	tok["admin"] = testToken
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf(`auth static {
				token admin %s
				token tenant %s {
					actions zones records read
					zones *.test
				}
			}`, auth.HashToken(testToken), hash["tenant"])})
	admin := c.do
	tsig := map[string]any{"name": src.TSIGKeyName, "secret": src.TSIGSecret}
	axfrBody := map[string]any{"axfr": map[string]any{"address": src.DNSAddr, "tsig": tsig}}
	sourceRRs := axfr(t, src, zone)

	r := admin("POST", "/api/v1/zones/"+zone+"/import?dryRun=true", axfrBody)
	expect(t, r, http.StatusOK, "AXFR dry run")
	if got, want := previewLines(t, r), rrLines(sourceRRs); !slices.Equal(got, want) {
		t.Errorf("AXFR dry run lists\n%q\nwant the source's\n%q", got, want)
	}
	if r.body["serial"] != float64(2024010101) || r.header.Get("Location") != "" {
		t.Errorf("AXFR dry run: serial %v, Location %q; want 2024010101 and none", r.body["serial"], r.header.Get("Location"))
	}
	notServed(t, ns, zone)
	nothingLeft(t, c, ns, zone)
	if names := dirNames(t, ns.ZoneDir); slices.ContainsFunc(names, func(n string) bool { return strings.Contains(n, zone) }) {
		t.Errorf("the zone directory has a file of %s after a dry run: %q", zone, names)
	}
	if r := admin("GET", "/api/v1/changes", nil); strings.Contains(string(r.raw), zone) {
		t.Errorf("the history names %s after a dry run: %s", zone, r.raw)
	}

	// The same for a zone file, sent as text/dns.
	const fileZone = "dry-file.test"
	text := zoneFileFor(fileZone)
	r = c.send("POST", "/api/v1/zones/"+fileZone+"/import?dryRun=1", text, map[string]string{"Authorization": "Bearer " + tok["admin"], "Content-Type": "text/dns"})
	expect(t, r, http.StatusOK, "zone file dry run")
	fileLines := previewLines(t, r)
	if !slices.Contains(fileLines, "host7.dry-file.test. 3600 A 198.51.100.7") || !slices.Contains(fileLines, "ns2.dry-file.test. 300 A 192.0.2.2") {
		t.Errorf("zone file dry run lists %d records: %q", len(fileLines), fileLines)
	}
	notServed(t, ns, fileZone)
	nothingLeft(t, c, ns, fileZone)
	// The Go client's dry run answers the same.
	cl, err := client.New(c.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	p, err := cl.PreviewImportZoneFile(context.Background(), fileZone, []byte(text))
	if err != nil || !p.DryRun || p.Records != len(fileLines) || len(p.RRsets) == 0 {
		t.Errorf("client dry run: %+v, %v; want %d records", p, err, len(fileLines))
	}
	nothingLeft(t, c, ns, fileZone)

	// Refusals as the import's, and nothing left of them.
	r = admin("POST", "/api/v1/zones/bad.test/import?dryRun=true", map[string]any{"zoneFile": "$TTL 600\n@ SOA ns1 hostmaster 1 3600 600 604800 300\n@ NS ns1\nns1 A 192.0.2.53\nwww A 192.0.2.80\nwww CNAME elsewhere.example.\n"})
	expect(t, r, http.StatusBadRequest, "dry run of a refused file")
	if r.body["line"] == nil || !strings.Contains(r.str("message"), "nothing was written") {
		t.Errorf("dry run of a refused file: %s, want its line and nothing written", r.raw)
	}
	nothingLeft(t, c, ns, "bad.test")
	r = admin("POST", "/api/v1/zones/"+zone+"/import?dryRun=true", map[string]any{"axfr": map[string]any{"address": src.DNSAddr}})
	expect(t, r, http.StatusBadGateway, "unsigned AXFR dry run")
	expectError(t, c.as(tok["tenant"], "POST", "/api/v1/zones/"+zone+"/import?dryRun=true", axfrBody), http.StatusForbidden, "Forbidden", "")
	expect(t, admin("POST", "/api/v1/zones/"+zone+"/import?dryRun=maybe", axfrBody), http.StatusBadRequest, "dryRun=maybe")
	nothingLeft(t, c, ns, zone)

	// The tenant may dry-run a zone file, as it may import one.
	expect(t, c.send("POST", "/api/v1/zones/"+fileZone+"/import?dryRun=true", text, map[string]string{"Authorization": "Bearer " + tok["tenant"], "Content-Type": "text/dns"}), http.StatusOK, "the tenant's zone file dry run")

	// The import proper, after its dry runs; then a dry run of the zone
	// that exists is 409, as the import is.
	r = admin("POST", "/api/v1/zones/"+zone+"/import", axfrBody)
	expect(t, r, http.StatusCreated, "AXFR import after the dry run")
	sameRRsets(t, "imported zone against its source", axfr(t, ns, zone), sourceRRs)
	r = admin("POST", "/api/v1/zones/"+zone+"/import?dryRun=true", axfrBody)
	expect(t, r, http.StatusConflict, "dry run of a zone that exists")
	r = admin("POST", "/api/v1/zones/"+zone+"/import?dryRun=true", map[string]any{"zoneFile": zoneFileFor(zone)})
	expect(t, r, http.StatusConflict, "dry run of a zone that exists, another body")
	// The zone file's dry run listed what its import makes.
	expect(t, c.send("POST", "/api/v1/zones/"+fileZone+"/import", text, map[string]string{"Authorization": "Bearer " + testToken, "Content-Type": "text/dns"}), http.StatusCreated, "zone file import")
	if got := rrLines(axfr(t, ns, fileZone)); !slices.Equal(fileLines, got) {
		t.Errorf("the zone file's dry run listed\n%q\nits import made\n%q", fileLines, got)
	}
}
