package integration

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// importZoneFile is a master file with every RFC 1035 construct the
// import takes ($ORIGIN, $TTL, relative and absolute names, @, an owner
// left blank, parentheses over several lines, comments whole-line,
// trailing and inside parentheses, quoted ';' and parentheses), a
// delegation with glue, and a $GENERATE line (BIND's).
const importZoneFile = `; a zone file as people write them
$TTL 1h ; the default TTL
$ORIGIN %[1]s.
@	IN SOA	ns1 hostmaster (
		2024010101 ; serial
		3600       ; refresh
		600        ; retry
		604800     ; expire
		300 )      ; negative TTL
	IN NS	ns1
	IN NS	ns2.%[1]s.
	IN MX	10 mail
ns1	IN A	192.0.2.1
ns2	300 IN A 192.0.2.2
mail	A	192.0.2.3
	AAAA	2001:db8::3
txt	TXT	"semi;colon" "two ( strings )"
_sip._tcp SRV 0 5 5060 mail
$ORIGIN sub.%[1]s.
www	CNAME	mail.%[1]s.
delegated NS ns.delegated
ns.delegated A 192.0.2.53
$ORIGIN %[1]s.
$GENERATE 1-50 host$ A 198.51.100.$
`

// zoneFileFor is importZoneFile for the zone.
func zoneFileFor(zone string) string { return strings.ReplaceAll(importZoneFile, "%[1]s", zone) }

// rrsetStrings are the records as sorted presentation lines (names lower
// case), for comparing two zones RRset for RRset.
func rrsetStrings(rrs []dns.RR) []string {
	out := make([]string, 0, len(rrs))
	for _, rr := range rrs {
		rr = dns.Copy(rr)
		rr.Header().Name = strings.ToLower(rr.Header().Name)
		out = append(out, rr.String())
	}
	slices.Sort(out)
	return out
}

// sameRRsets fails the test unless the two zones hold the same records.
func sameRRsets(t *testing.T, what string, got, want []dns.RR) {
	t.Helper()
	g, w := rrsetStrings(got), rrsetStrings(want)
	if !slices.Equal(g, w) {
		var missing, extra []string
		for _, s := range w {
			if !slices.Contains(g, s) {
				missing = append(missing, s)
			}
		}
		for _, s := range g {
			if !slices.Contains(w, s) {
				extra = append(extra, s)
			}
		}
		t.Fatalf("%s: %d records, want %d; missing %q, extra %q", what, len(g), len(w), missing, extra)
	}
}

// nothingLeft fails the test if the zone left a file, an index entry or
// a zone in named.
func nothingLeft(t *testing.T, c *caddy, ns *testbind.Server, zone string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(ns.ZoneDir, zone+".zone")); err == nil {
		t.Errorf("%s: the zone file was left behind", zone)
	}
	if r := c.do("GET", "/api/v1/zones/"+zone, nil); r.status != 404 {
		t.Errorf("%s: GET answers %d, want 404", zone, r.status)
	}
	for _, z := range c.do("GET", "/api/v1/zones?limit=1000", nil).body["zones"].([]any) {
		if z == zone {
			t.Errorf("%s: listed", zone)
		}
	}
	store, err := zonestore.Open(ns.ZoneDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := store.Get(zone); err != nil || found {
		t.Errorf("%s: index entry %v (%v)", zone, found, err)
	}
	if in, pending, err := store.PendingIntent(zone); err != nil || pending {
		t.Errorf("%s: intent pending %+v (%v)", zone, in, err)
	}
	if out, err := ns.RNDC("zonestatus", zone); err == nil {
		t.Errorf("%s: named has the zone: %s", zone, out)
	}
}

// TestImportZoneFile imports a zone file with every RFC 1035 construct,
// sent as text/dns and as zoneFile in JSON: 201 with the record count
// and serial, and named serves exactly the records the file holds
// (compared by AXFR). A retry with the Idempotency-Key answers the same
// 201; the same import without it 409, as is an import of a zone added to
// named outside the API; bad files are refused with their line and leave
// nothing behind.
func TestImportZoneFile(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	for _, form := range []string{"text/dns", "json"} {
		zone := "file-" + strings.ReplaceAll(form, "/", "-") + ".test"
		text := zoneFileFor(zone)
		var r *response
		if form == "text/dns" {
			r = c.doHdr("POST", "/api/v1/zones/"+zone+"/import", text, map[string]string{"Content-Type": "text/dns", "Idempotency-Key": `"k-` + zone + `"`})
		} else {
			r = c.do("POST", "/api/v1/zones/"+zone+"/import", map[string]any{"zoneFile": text})
		}
		expect(t, r, 201, form+" import")
		want, err := zonemodel.ParseZoneFile(zone, []byte(text), 1000)
		if err != nil {
			t.Fatal(err)
		}
		if r.body["records"] != float64(len(want)) || r.body["serial"] != float64(2024010101) || r.body["checkedBy"] != "named-checkzone" {
			t.Fatalf("%s: answer %s; want %d records, serial 2024010101, checked by named-checkzone", form, r.raw, len(want))
		}
		if loc := r.header.Get("Location"); loc != "/api/v1/zones/"+zone {
			t.Errorf("Location %q", loc)
		}
		sameRRsets(t, form+" import served by named", axfr(t, ns, zone), want)
		if form == "text/dns" {
			again := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", text, map[string]string{"Content-Type": "text/dns", "Idempotency-Key": `"k-` + zone + `"`})
			if again.status != 201 || !bytes.Equal(again.raw, r.raw) {
				t.Errorf("retry with the key: %d %s, want the first 201", again.status, again.raw)
			}
			expect(t, c.doHdr("POST", "/api/v1/zones/"+zone+"/import", text, map[string]string{"Content-Type": "text/dns"}), 409, "the same import without the key")
		}
		// Records can be changed through the API afterwards.
		expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "added", "type": "A", "value": "192.0.2.99"}), 201, "add a record to the imported zone")
	}

	good := zoneFileFor("bad.test")
	lines := strings.Split(good, "\n")
	secretFile := filepath.Join(t.TempDir(), "secret.txt") // a file of the server, records that would load
	if err := os.WriteFile(secretFile, []byte("leaked TXT \"server secret\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name   string
		text   string
		line   float64
		status int
		msg    string
	}{
		{"unknown type", strings.Replace(good, "mail\tA\t192.0.2.3", "mail\tFOO\t192.0.2.3", 1), 15, 400, "unknown RR type"},
		{"CNAME and other data", good + "www.sub TXT \"beside a CNAME\"\n", float64(len(lines)), 400, "CNAME and other data"},
		{"check-names", good + "bad_host A 192.0.2.7\n", float64(len(lines)), 400, "bad owner name"},
		{"$INCLUDE", good + "$INCLUDE /etc/passwd\n", float64(len(lines)), 400, "$INCLUDE is not allowed"},
		// named-checkzone ends a line at a lone CR: the $INCLUDE after it
		// read a file of the server into the zone (201, its records
		// served) before ScanDirectives split lines there too. A lone
		// CR is refused (TestImportReadsNoServerFile has every spelling).
		{"$INCLUDE after a lone CR", good + "cr TXT \"x\"\r$INCLUDE " + secretFile + "\n", float64(len(lines)), 400, "carriage return"},
		{"unbalanced parenthesis", strings.Replace(good, "300 )      ; negative TTL", "300        ; negative TTL", 1), 0, 400, ""},
		{"out-of-zone SOA only", "$TTL 300\nother.test. SOA ns h 1 2 3 4 5\n", 0, 400, ""},
	} {
		t.Run(bad.name, func(t *testing.T) {
			r := c.doHdr("POST", "/api/v1/zones/bad.test/import", bad.text, map[string]string{"Content-Type": "text/dns"})
			expect(t, r, bad.status, bad.name)
			if r.str("error") != "Bad Request" || !strings.Contains(r.str("message"), bad.msg) {
				t.Errorf("answer %s, want a message with %q", r.raw, bad.msg)
			}
			if bad.line > 0 && r.body["line"] != bad.line {
				t.Errorf("line %v, want %v (%s)", r.body["line"], bad.line, r.raw)
			}
			nothingLeft(t, c, ns, "bad.test")
		})
	}
	// A zone that exists: 409, and nothing of it changed.
	r := c.doHdr("POST", "/api/v1/zones/file-json.test/import", zoneFileFor("file-json.test"), map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 409, "Conflict", "already exists")
	// A zone added to named outside the API: 409 before any check, and
	// named's zone keeps its file.
	outside := filepath.Join(ns.ZoneDir, "outside.test.db")
	if err := os.WriteFile(outside, []byte(zoneFileFor("outside.test")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := ns.RNDC("addzone", "outside.test", fmt.Sprintf(`{ type primary; file %q; };`, outside)); err != nil {
		t.Fatalf("rndc addzone: %v %s", err, out)
	}
	r = c.doHdr("POST", "/api/v1/zones/outside.test/import", zoneFileFor("outside.test"), map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 409, "Conflict", "already exists in named")
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("named's own file of outside.test: %v", err)
	}
	// Neither JSON nor a zone file.
	expect(t, c.doHdr("POST", "/api/v1/zones/x.test/import", "x", map[string]string{"Content-Type": "text/plain"}), 415, "text/plain")
	expect(t, c.do("POST", "/api/v1/zones/x.test/import", map[string]any{"zoneFile": "x", "copyOf": "y.test"}), 400, "two sources")
}

// sourceNamed starts a second named serving zone from named.conf, its
// transfers allowed only with that named's TSIG key.
func sourceNamed(t *testing.T, zone, text string) *testbind.Server {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, zone+".db")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return testbind.Start(t, &testbind.Options{ExtraConfig: fmt.Sprintf(
		"zone %q { type primary; file %q; allow-transfer { key %q; }; };\n", zone, file, testbind.TSIGKeyName)})
}

// TestImportAXFR imports a zone by AXFR, signed with TSIG, from a second
// named that refuses unsigned transfers, and copies it under a new name:
// the imported zone answers the same RRsets as the source and the copy
// the same with its names moved (compared by AXFR). An unsigned
// transfer, a wrong key, an unreachable and a silent source are refused
// with 502 or 504, leaving nothing behind.
func TestImportAXFR(t *testing.T) {
	const zone = "axfr-src.test"
	src := sourceNamed(t, zone, zoneFileFor(zone))
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	tsig := map[string]any{"name": src.TSIGKeyName, "algorithm": "hmac-sha256", "secret": src.TSIGSecret}

	r := c.do("POST", "/api/v1/zones/"+zone+"/import", map[string]any{"axfr": map[string]any{"address": src.DNSAddr, "tsig": tsig}})
	expect(t, r, 201, "AXFR import")
	sourceRRs := axfr(t, src, zone)
	if r.body["records"] != float64(len(sourceRRs)) || r.body["serial"] != float64(2024010101) {
		t.Fatalf("answer %s, want %d records and serial 2024010101", r.raw, len(sourceRRs))
	}
	sameRRsets(t, "imported zone against its source", axfr(t, ns, zone), sourceRRs)

	// A copy of the imported zone under a new name.
	const copied = "axfr-copy.test"
	expect(t, c.do("POST", "/api/v1/zones/"+copied+"/import", map[string]any{"copyOf": zone}), 201, "copy")
	sameRRsets(t, "copy against its source, names moved", axfr(t, ns, copied), zonemodel.CopyRecords(sourceRRs, zone, copied))
	expect(t, c.do("POST", "/api/v1/zones/copy2.test/import", map[string]any{"copyOf": "not-managed.test"}), 404, "copy of an unknown zone")

	// Refusals: nothing is left of any.
	closed := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	wrong := map[string]any{"name": src.TSIGKeyName, "secret": "d3Jvbmd3cm9uZ3dyb25nd3Jvbmc="}
	for _, f := range []struct {
		name   string
		axfr   map[string]any
		status int
		msg    string
	}{
		{"unsigned", map[string]any{"address": src.DNSAddr}, 502, "did not transfer"},
		{"wrong key", map[string]any{"address": src.DNSAddr, "tsig": wrong}, 502, "did not transfer"},
		{"unreachable", map[string]any{"address": closed, "tsig": tsig}, 502, "cannot reach"},
		{"silent", map[string]any{"address": silent.Addr().String(), "tsig": tsig}, 504, "did not finish in time"},
	} {
		t.Run(f.name, func(t *testing.T) {
			const other = "axfr-fail.test"
			r := c.do("POST", "/api/v1/zones/"+other+"/import", map[string]any{"axfr": f.axfr})
			if r.status != f.status || !strings.Contains(r.str("message"), f.msg) {
				t.Fatalf("answer %d %s, want %d with %q", r.status, r.raw, f.status, f.msg)
			}
			nothingLeft(t, c, ns, other)
		})
	}
}

// TestPowerDNSCreateFromZoneFile: the PowerDNS-compatible create with
// zone file text ("zone") imports it as the zone API's import does (the
// zone then answers the file's records by AXFR); a broken file is 422
// naming its line and leaves nothing behind.
func TestPowerDNSCreateFromZoneFile(t *testing.T) {
	c := startPDNS(t, "")
	const zone = "pdns-import.test"
	text := zoneFileFor(zone)
	r := c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": zone + ".", "kind": "Native", "zone": text})
	expect(t, r, 201, "PowerDNS create with zone text")
	want, err := zonemodel.ParseZoneFile(zone, []byte(text), 1000)
	if err != nil {
		t.Fatal(err)
	}
	sameRRsets(t, "PowerDNS-imported zone", axfr(t, c.ns, zone), want)

	r = c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "pdns-broken.test.", "kind": "Native", "zone": zoneFileFor("pdns-broken.test") + "www.sub A 192.0.2.8\n"})
	pdnsError(t, r, 422, "line ")
	nothingLeft(t, c, c.ns, "pdns-broken.test")
	r = c.pdns(pdnsKey, "POST", zonesPath, map[string]any{"name": "pdns-both.test.", "kind": "Native", "zone": zoneFileFor("pdns-both.test"), "nameservers": []string{"ns1.pdns-both.test."}})
	pdnsError(t, r, 422, "not both")
}

// TestImport100kRecords: a 100,000-record zone file imports through the
// API (201 with its count) and named serves every record; the same file
// in a JSON body (over 1 MiB), a file over 64 MiB and $GENERATE lines
// over 1,000,000 records are 413, leaving nothing.
func TestImport100kRecords(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "big.test"
	r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", "$ORIGIN "+zone+".\n"+bigZoneBody(100_000), map[string]string{"Content-Type": "text/dns"})
	expect(t, r, 201, "import of 100,000 records")
	if r.body["records"] != float64(100_000) {
		t.Fatalf("records %v, want 100000", r.body["records"])
	}
	if n := len(axfr(t, ns, zone)); n != 100_000 {
		t.Fatalf("named serves %d records, want 100000", n)
	}

	r = c.do("POST", "/api/v1/zones/json-big.test/import", map[string]any{"zoneFile": "$ORIGIN json-big.test.\n" + bigZoneBody(100_000)})
	expectError(t, r, 413, "Payload Too Large", "Content-Type: text/dns")
	nothingLeft(t, c, ns, "json-big.test")

	huge := strings.Repeat("; a comment line of a file that is too large for the import\n", (64<<20)/60+1)
	r = c.doHdr("POST", "/api/v1/zones/huge.test/import", huge, map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 413, "Payload Too Large", "64 MiB")
	nothingLeft(t, c, ns, "huge.test")
	r = c.doHdr("POST", "/api/v1/zones/gen.test/import", zoneFileFor("gen.test")+strings.Repeat("$GENERATE 0-65535 g$ A 10.0.0.1\n", 16), map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 413, "Payload Too Large", "1000000 records")
	nothingLeft(t, c, ns, "gen.test")
}

// TestExportImportRoundTrip: a zone's export (GET
// /zones/{name}/export, text/dns) imports again: exported, deleted and
// imported, the zone answers the same RRsets (compared by AXFR), with
// its changes made through the API.
func TestExportImportRoundTrip(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	const zone = "round.test"
	expect(t, c.doHdr("POST", "/api/v1/zones/"+zone+"/import", zoneFileFor(zone), map[string]string{"Content-Type": "text/dns"}), 201, "import")
	expect(t, c.do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "late", "type": "TXT", "value": "added later"}), 201, "add")
	before := axfr(t, ns, zone)
	exp := c.send("GET", "/api/v1/zones/"+zone+"/export", nil, map[string]string{"Authorization": "Bearer " + testToken, "Accept": "text/dns"})
	expect(t, exp, 200, "export")
	expect(t, c.do("DELETE", "/api/v1/zones/"+zone, nil), 200, "delete")
	r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", string(exp.raw), map[string]string{"Content-Type": "text/dns"})
	expect(t, r, 201, "import of the export")
	sameRRsets(t, "zone after export, delete and import", axfr(t, ns, zone), before)
}

// TestImportWithoutNamedCheckzone: with named_checkzone off, the API's
// own checks pass a zone file to named, and what only named refuses
// (check-names) is refused by addzone: 400 with named's reason, and
// nothing left behind.
func TestImportWithoutNamedCheckzone(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{extra: "named_checkzone off"})
	const zone = "own-checks.test"
	text := zoneFileFor(zone)
	r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", text, map[string]string{"Content-Type": "text/dns"})
	expect(t, r, 201, "import checked by the API")
	if r.body["checkedBy"] != "zoneapi" {
		t.Errorf("checkedBy %v, want zoneapi", r.body["checkedBy"])
	}
	want, err := zonemodel.ParseZoneFile(zone, []byte(text), 1000)
	if err != nil {
		t.Fatal(err)
	}
	sameRRsets(t, "zone checked by the API", axfr(t, ns, zone), want)

	r = c.doHdr("POST", "/api/v1/zones/names.test/import", zoneFileFor("names.test")+"bad_host A 192.0.2.7\n", map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 400, "Bad Request", "bad owner name")
	nothingLeft(t, c, ns, "names.test")
	r = c.doHdr("POST", "/api/v1/zones/cname.test/import", zoneFileFor("cname.test")+"www.sub TXT x\n", map[string]string{"Content-Type": "text/dns"})
	expectError(t, r, 400, "Bad Request", "CNAME and other data")
	nothingLeft(t, c, ns, "cname.test")
}

// TestImportAXFRNeedsServerAction: an import by AXFR makes this server
// open a TCP connection to whatever address the client names and read
// what answers there, so it needs the server action (an identity that may
// reconcile the server), not only the zones action on the zone made: a
// token limited to its own zones could otherwise scan the internal
// network through the import's answers (unreachable, refused, not DNS,
// timeout) and copy the zones of any server that allows transfers to this
// host (named itself, its other views, internal servers). Zone-file
// imports stay with the zones action. (Before: the tenant's transfer from
// 127.0.0.1:1 was tried and answered 502 "cannot reach".)
func TestImportAXFRNeedsServerAction(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "tenant")
	c := startCaddy(t, ns, caddyOpts{extra: fmt.Sprintf(`auth static {
				token admin %s
				token tenant %s {
					actions zones records read
					zones tenant.test *.tenant.test
				}
			}`, hash["admin"], hash["tenant"])})
	for _, addr := range []string{"127.0.0.1:1", ns.DNSAddr} {
		r := c.as(tok["tenant"], "POST", "/api/v1/zones/tenant.test/import", map[string]any{"axfr": map[string]any{"address": addr}})
		expectError(t, r, http.StatusForbidden, "Forbidden", "")
		expect(t, c.as(tok["admin"], "GET", "/api/v1/zones/tenant.test", nil), http.StatusNotFound, "the zone after a refused transfer")
	}
	expect(t, c.as(tok["tenant"], "POST", "/api/v1/zones/tenant.test/import", map[string]any{"zoneFile": zoneFileFor("tenant.test")}), http.StatusCreated, "the tenant's zone-file import")
	r := c.as(tok["admin"], "POST", "/api/v1/zones/admin.test/import", map[string]any{"axfr": map[string]any{"address": "127.0.0.1:1"}})
	expect(t, r, http.StatusBadGateway, "the admin's transfer from a closed port")
}

// TestSecondaryPrimariesNeedServerAction: a secondary zone's primaries
// make named transfer from the addresses given, the exposure of an import
// by AXFR: a tenant (the zones action on its names) naming them is
// refused 403 on the REST create and PATCH and on the PowerDNS API's
// create and PUT, and named hears nothing (no zone added, the primaries
// unchanged); inside allowed_primaries the tenant may name them; the
// admin may name any. Before the fix the tenant's create was 201 and
// named transferred from the address it named.
func TestSecondaryPrimariesNeedServerAction(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "tenant")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: fmt.Sprintf(`powerdns
			allowed_primaries 192.0.2.0/24
			auth static {
				token admin %s
				token tenant %s {
					actions zones records read
					zones tenant.test *.tenant.test
				}
			}`, hash["admin"], hash["tenant"])})
	secondary := func(zone string, primaries ...string) map[string]any {
		return map[string]any{"zoneName": zone, "zoneType": "secondary", "zoneConfig": map[string]any{"primaries": primaries}}
	}
	absent := func(zone, what string) {
		t.Helper()
		if out, err := ns.RNDC("zonestatus", zone); err == nil {
			t.Errorf("%s: named has zone %s: %s", what, zone, out)
		}
	}
	for _, addr := range []string{ns.DNSAddr, "127.0.0.1:1", "10.0.0.1"} {
		expectError(t, c.as(tok["tenant"], "POST", "/api/v1/zones", secondary("sec.tenant.test", addr)), http.StatusForbidden, "Forbidden", "server action")
		absent("sec.tenant.test", "after the tenant's REST create from "+addr)
		pdnsError(t, c.pdns(tok["tenant"], "POST", zonesPath, map[string]any{"name": "sec.tenant.test.", "kind": "Slave", "masters": []string{addr}}), http.StatusForbidden, "server action")
		absent("sec.tenant.test", "after the tenant's PowerDNS create from "+addr)
	}
	expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", secondary("sec.tenant.test", "127.0.0.1:1")), http.StatusCreated, "the admin's secondary")
	expectError(t, c.as(tok["tenant"], "PATCH", "/api/v1/zones/sec.tenant.test", map[string]any{"primaries": []string{ns.DNSAddr}}), http.StatusForbidden, "Forbidden", "server action")
	pdnsError(t, c.pdns(tok["tenant"], "PUT", zonesPath+"/sec.tenant.test.", map[string]any{"masters": []string{ns.DNSAddr}}), http.StatusForbidden, "server action")
	if out, err := ns.RNDC("showzone", "sec.tenant.test"); err != nil || !strings.Contains(out, "127.0.0.1 port 1;") {
		t.Errorf("the primaries after the tenant's refused changes: %v %s, want 127.0.0.1 port 1 only", err, out)
	}
	expect(t, c.as(tok["tenant"], "PATCH", "/api/v1/zones/sec.tenant.test", map[string]any{"primaries": []string{"192.0.2.53"}}), http.StatusOK, "the tenant's primaries inside allowed_primaries")
	expect(t, c.as(tok["tenant"], "POST", "/api/v1/zones", secondary("sec2.tenant.test", "192.0.2.53", "192.0.2.54:5353")), http.StatusCreated, "the tenant's secondary inside allowed_primaries")
	expect(t, c.pdns(tok["tenant"], "POST", zonesPath, map[string]any{"name": "sec3.tenant.test.", "kind": "Slave", "masters": []string{"192.0.2.53"}}), http.StatusCreated, "the tenant's PowerDNS secondary inside allowed_primaries")
}

// TestAlsoNotifyNeedsServerAction: a zone's also-notify servers make
// named send NOTIFY messages to the addresses given, on every change: a
// tenant (the zones action on its names) naming them is refused 403 on
// the REST create and PATCH and on the PowerDNS API's ALSO-NOTIFY
// metadata, and named hears nothing (no zone added, the also-notify
// clause unchanged); inside allowed_notify the tenant may name them
// (allowed_primaries does not allow them); the admin may name any. Before
// the fix the tenant's create was 201 with the also-notify it named.
func TestAlsoNotifyNeedsServerAction(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "tenant")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: fmt.Sprintf(`powerdns
			allowed_notify 192.0.2.0/24
			allowed_primaries 198.51.100.0/24
			auth static {
				token admin %s
				token tenant %s {
					actions zones records read
					zones tenant.test *.tenant.test
				}
			}`, hash["admin"], hash["tenant"])})
	withNotify := func(zone string, servers ...string) map[string]any {
		b := zoneBody(zone)
		b["zoneConfig"].(map[string]any)["alsoNotify"] = servers
		return b
	}
	for _, addr := range []string{ns.DNSAddr, "127.0.0.1:1", "10.0.0.1", "198.51.100.53"} {
		expectError(t, c.as(tok["tenant"], "POST", "/api/v1/zones", withNotify("tenant.test", addr)), http.StatusForbidden, "Forbidden", "also-notify")
		if out, err := ns.RNDC("zonestatus", "tenant.test"); err == nil {
			t.Errorf("after the tenant's create notifying %s: named has the zone: %s", addr, out)
		}
	}
	expect(t, c.as(tok["tenant"], "POST", "/api/v1/zones", zoneBody("tenant.test")), http.StatusCreated, "the tenant's zone without also-notify")
	expect(t, c.as(tok["admin"], "PATCH", "/api/v1/zones/tenant.test", map[string]any{"alsoNotify": []string{"127.0.0.1:1"}}), http.StatusOK, "the admin's also-notify")
	for _, addr := range []string{ns.DNSAddr, "10.0.0.1", "198.51.100.53"} {
		expectError(t, c.as(tok["tenant"], "PATCH", "/api/v1/zones/tenant.test", map[string]any{"alsoNotify": []string{addr}}), http.StatusForbidden, "Forbidden", "also-notify")
		pdnsError(t, c.pdns(tok["tenant"], "PUT", zonesPath+"/tenant.test./metadata/ALSO-NOTIFY", map[string]any{"metadata": []string{addr}}), http.StatusForbidden, "also-notify")
		pdnsError(t, c.pdns(tok["tenant"], "POST", zonesPath+"/tenant.test./metadata", map[string]any{"kind": "ALSO-NOTIFY", "metadata": []string{addr}}), http.StatusForbidden, "also-notify")
	}
	if out, err := ns.RNDC("showzone", "tenant.test"); err != nil || !strings.Contains(out, "also-notify { 127.0.0.1 port 1; }") {
		t.Errorf("the also-notify after the tenant's refused changes: %v %s, want 127.0.0.1 port 1 only", err, out)
	}
	expect(t, c.as(tok["tenant"], "PATCH", "/api/v1/zones/tenant.test", map[string]any{"alsoNotify": []string{"192.0.2.2", "192.0.2.3:5353"}}), http.StatusOK, "the tenant's also-notify inside allowed_notify")
	expect(t, c.pdns(tok["tenant"], "POST", zonesPath+"/tenant.test./metadata", map[string]any{"kind": "ALSO-NOTIFY", "metadata": []string{"192.0.2.4"}}), http.StatusCreated, "the tenant's ALSO-NOTIFY inside allowed_notify")
	if out, err := ns.RNDC("showzone", "tenant.test"); err != nil || !strings.Contains(out, "192.0.2.4;") || strings.Contains(out, "127.0.0.1 port 1") {
		t.Errorf("the also-notify after the tenant's changes: %v %s, want 192.0.2.2-4", err, out)
	}
	expect(t, c.as(tok["tenant"], "PATCH", "/api/v1/zones/tenant.test", map[string]any{"alsoNotify": []string{}}), http.StatusOK, "the tenant's removal of also-notify")
	expect(t, c.as(tok["tenant"], "POST", "/api/v1/zones", withNotify("sub.tenant.test", "192.0.2.2")), http.StatusCreated, "the tenant's create inside allowed_notify")
	expect(t, c.as(tok["admin"], "POST", "/api/v1/zones", withNotify("admin.test", "10.0.0.1")), http.StatusCreated, "the admin's create notifying any address")
}
