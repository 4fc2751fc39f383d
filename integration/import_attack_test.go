package integration

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// includeSpellings are the spellings of $INCLUDE that named-checkzone
// (BIND 9.18) obeys, found by trying it directly, each including path:
// the word in any case, quoted, with a quoted path, after "(" or "()",
// after a line break inside parentheses, after a lone carriage return.
// ("\$INCLUDE" and a $INCLUDE after a blank it does not obey.)
func includeSpellings(path string) [][2]string {
	return [][2]string{
		{"bare", "$INCLUDE " + path + "\n"},
		{"lower case", "$include " + path + "\n"},
		{"quoted", `"$INCLUDE" ` + path + "\n"},
		{"quoted, lower case, quoted path", `"$include" "` + path + `"` + "\n"},
		{"quoted, no blank", `"$INCLUDE"` + path + "\n"},
		{"after a parenthesis", "( $INCLUDE " + path + " )\n"},
		{"quoted after parentheses", `()"$INCLUDE" ` + path + "\n"},
		{"after a line break in parentheses", "(\n$INCLUDE " + path + " )\n"},
		{"after a lone CR", "cr TXT \"x\"\r\"$INCLUDE\" " + path + "\n"},
	}
}

// generateSpellings are the spellings of $GENERATE that named-checkzone
// obeys and the API does not take as written (its own parser expands
// $GENERATE written bare at a line's start, at most 65,536 records a
// line): over 1,000,000 records they grew named-checkzone to 330 MiB.
var generateSpellings = [][2]string{
	{"quoted", `"$GENERATE" 1-1100000 g$ A 10.0.0.1` + "\n"},
	{"quoted, lower case", `"$generate" 1-1100000 g$ A 10.0.0.1` + "\n"},
	{"bare, over a line's limit", "$GENERATE 1-1100000 g$ A 10.0.0.1\n"},
	{"after a lone CR", "cr TXT \"x\"\r\"$GENERATE\" 1-1100000 g$ A 10.0.0.1\n"},
}

// attackTargets makes the files a tenant tried to include: a file of the
// server with records that would load (an operator's secret), /dev/zero
// (named-checkzone spun on it for its 5 minutes), a FIFO (it would wait
// for a writer), a symlink in the zone directory to the secret, another
// tenant's zone file (created through the API by admin), the rndc key,
// /etc/passwd and a file that does not exist (the error text must not
// tell them apart). It returns name → path.
func attackTargets(t *testing.T, c *caddy, ns *testbind.Server, admin string) [][2]string {
	t.Helper()
	dir := t.TempDir()
	secret := filepath.Join(dir, "operator.zone")
	if err := os.WriteFile(secret, []byte("leak TXT \"server secret\"\nleak A 192.0.2.66\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(ns.ZoneDir, "link.db")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	other := zoneBody("other.test")
	other["zoneConfig"].(map[string]any)["records"] = []map[string]any{{"name": "secret", "type": "TXT", "value": "other tenant secret"}}
	expect(t, c.as(admin, "POST", "/api/v1/zones", other), http.StatusCreated, "admin creates other.test")
	return [][2]string{
		{"server file", secret},
		{"/dev/zero", "/dev/zero"},
		{"FIFO", fifo},
		{"symlink in the zone directory", link},
		{"another tenant's zone file", filepath.Join(ns.ZoneDir, "other.test.zone")},
		{"rndc key", ns.RNDCConfFile},
		{"/etc/passwd", "/etc/passwd"},
		{"missing file", filepath.Join(dir, "missing")},
	}
}

// servesNothingOf fails the test unless named answers nothing of zone
// (REFUSED: it has no such zone) and nothing of the included secrets.
func servesNothingOf(t *testing.T, ns *testbind.Server, zone string) {
	t.Helper()
	for _, q := range []struct {
		name  string
		qtype uint16
	}{{zone, dns.TypeSOA}, {"leak." + zone, dns.TypeTXT}, {"leak." + zone, dns.TypeA}, {"secret.other.test." + zone, dns.TypeTXT}} {
		m := query(t, ns, q.name, q.qtype)
		if q.name == zone && m.Rcode != dns.RcodeRefused {
			t.Errorf("named answers %s %s with %s, want REFUSED (no zone)", q.name, dns.TypeToString[q.qtype], dns.RcodeToString[m.Rcode])
		}
		for _, rr := range m.Answer {
			if rr.Header().Rrtype == q.qtype {
				t.Errorf("named serves %s", rr)
			}
		}
	}
}

// TestImportReadsNoServerFile: a tenant's token (zones=*.tenant.test)
// imports zone files that include files of the server in every spelling
// of $INCLUDE that named-checkzone obeys, through the REST import (text
// and JSON) and the PowerDNS API's create with zone text: each is
// refused (400, 422) before anything reads the file, with a message that
// is the same for every file (no existence or type oracle) and quotes
// nothing of it; no zone is made and named serves nothing of the file.
// The same holds for $GENERATE spelled so that named-checkzone expands
// it. (Before: "$INCLUDE" quoted answered 201 and named served the
// operator's secret TXT; /dev/zero and a FIFO held named-checkzone for
// its 5 minutes.)
func TestImportReadsNoServerFile(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "tenant")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: `powerdns
			auth static {
				token admin ` + sha256Hex(testToken) + `
				token tenant ` + hash["tenant"] + ` {
					zones *.tenant.test
				}
			}`})
	targets := attackTargets(t, c, ns, testToken)
	const zone = "inc.tenant.test"
	head := zoneFileFor(zone)
	refused := func(t *testing.T, r *response, status int) {
		t.Helper()
		if r.status != status {
			t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
		}
		for _, leak := range []string{"server secret", "192.0.2.66", "other tenant", "root:", "secret.other", "rndc-key"} {
			if strings.Contains(string(r.raw), leak) {
				t.Errorf("the answer tells of the file (%q): %s", leak, r.raw)
			}
		}
		nothingLeft(t, c, ns, zone)
		servesNothingOf(t, ns, zone)
	}
	for _, sp := range includeSpellings("PATH") {
		t.Run(sp[0], func(t *testing.T) {
			msgs := map[string]string{} // message (the path taken out) → target
			for _, tg := range targets {
				text := head + strings.ReplaceAll(sp[1], "PATH", tg[1])
				r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", text, map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["tenant"]})
				refused(t, r, http.StatusBadRequest)
				msg := strings.ReplaceAll(r.str("message"), tg[1], "PATH")
				if !strings.Contains(msg, "$INCLUDE is not allowed") && !strings.Contains(msg, "carriage return") {
					t.Errorf("%s: message %q", tg[0], msg)
				}
				msgs[msg] = tg[0]
				r = c.as(tok["tenant"], "POST", "/api/v1/zones/"+zone+"/import", map[string]any{"zoneFile": text})
				refused(t, r, http.StatusBadRequest)
				r = c.pdns(tok["tenant"], "POST", zonesPath, map[string]any{"name": zone + ".", "kind": "Native", "zone": text})
				refused(t, r, http.StatusUnprocessableEntity)
			}
			if len(msgs) != 1 {
				t.Errorf("the messages differ by file (an oracle): %v", msgs)
			}
		})
	}
	for _, sp := range generateSpellings {
		t.Run("$GENERATE "+sp[0], func(t *testing.T) {
			r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", head+sp[1], map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["tenant"]})
			refused(t, r, http.StatusBadRequest)
			r = c.pdns(tok["tenant"], "POST", zonesPath, map[string]any{"name": zone + ".", "kind": "Native", "zone": head + sp[1]})
			refused(t, r, http.StatusUnprocessableEntity)
		})
	}
	// The tenant's own zone file, with "$INCLUDE" as data and an escaped
	// dollar owner (which named reads as a name), imports.
	r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import", head+"data TXT \"$INCLUDE\" /etc/passwd\n\\$INCLUDE TXT owner\n", map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["tenant"]})
	expect(t, r, http.StatusCreated, "the tenant's own zone")
	if got := answers(query(t, ns, "data."+zone, dns.TypeTXT), dns.TypeTXT); len(got) != 1 || got[0] != `"$INCLUDE" "/etc/passwd"` {
		t.Errorf("data TXT = %q", got)
	}
	if got := answers(query(t, ns, `\$INCLUDE.`+zone, dns.TypeTXT), dns.TypeTXT); len(got) != 1 || got[0] != `"owner"` {
		t.Errorf(`\$INCLUDE TXT = %q`, got)
	}
}

// TestImportReadsNoOtherViewFile: a token of view external only imports
// into external a zone file that includes view internal's zone file (a
// named.conf zone of that view): refused, nothing made, and named's
// external view answers nothing of the internal zone.
func TestImportReadsNoOtherViewFile(t *testing.T) {
	ns := startViewsNamed(t)
	tok, hash := tokens(t, "ext")
	c := startCaddy(t, ns, caddyOpts{extra: viewsCaddyfile(ns) + `
			auth static {
				token admin ` + sha256Hex(testToken) + `
				token ext ` + hash["ext"] + ` {
					zones *.tenant.test
					views external
				}
			}`})
	const zone = "inc.tenant.test"
	internalFile := ns.ViewZoneFile("internal", "conf.test")
	for _, sp := range includeSpellings(internalFile) {
		r := c.doHdr("POST", "/api/v1/zones/"+zone+"/import?view=external", zoneFileFor(zone)+sp[1], map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["ext"]})
		expect(t, r, http.StatusBadRequest, sp[0])
		if strings.Contains(string(r.raw), "192.0.2.1") || strings.Contains(string(r.raw), "conf.test") {
			t.Errorf("%s: the answer tells of the internal zone: %s", sp[0], r.raw)
		}
		if r := c.do("GET", "/api/v1/zones/"+zone+"?view=external", nil); r.status != http.StatusNotFound {
			t.Errorf("%s: the zone was made in external: %d", sp[0], r.status)
		}
		for _, name := range []string{"www.conf.test", "www." + zone, "www.conf.test." + zone} {
			rrs, err := ns.Query("external", name, dns.TypeA)
			if err != nil && !strings.HasSuffix(err.Error(), "REFUSED") && !strings.HasSuffix(err.Error(), "NXDOMAIN") {
				t.Fatalf("query %s in external: %v", name, err)
			}
			if len(rrs) != 0 {
				t.Errorf("%s: external answers %s: %v", sp[0], name, rrs)
			}
		}
	}
}

// slowImport starts an import by tok whose body is still being sent
// (the upload holds the import's place, as a large file does): the
// request's head and part of its body go out on a connection of its
// own. finish sends the rest of the body (a broken zone file) and
// returns the answer's status.
func slowImport(t *testing.T, c *caddy, tok, zone string) (finish func() int) {
	t.Helper()
	host := strings.TrimPrefix(c.Base, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	body := "; a zone file on its way\nx\n"
	fmt.Fprintf(conn, "POST /api/v1/zones/%s/import HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: text/dns\r\nContent-Length: %d\r\n\r\n%s", zone, host, tok, len(body), body[:10])
	return func() int {
		conn.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := conn.Write([]byte(body[10:])); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
}

// importsRunning waits until Caddy's metrics count n imports running
// (zoneapi_imports{state="running"}).
func importsRunning(t *testing.T, c *caddy, n int) {
	t.Helper()
	want := fmt.Sprintf(`zoneapi_imports{state="running"} %d`, n)
	var text string
	for range 300 {
		resp, err := http.Get(c.Base + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if text = string(raw); strings.Contains(text, want+"\n") {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("not %d imports running after 30 s:\n%s", n, text)
}

// TestImportsAtOnce: an identity runs at most 2 imports at once and the
// server 4 (docs/import.md): past them the import answers 429 (the
// identity's) or 503 (the server's), JSON with Retry-After, through the
// REST import and the PowerDNS create with zone text; once the imports
// end, the next runs. (Before: no bound; every import held its body, its
// parse and a named-checkzone process.)
func TestImportsAtOnce(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "a", "b", "c")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: `powerdns
			auth static {
				token admin ` + sha256Hex(testToken) + `
				token a ` + hash["a"] + `
				token b ` + hash["b"] + `
				token c ` + hash["c"] + `
			}`})
	// probe imports a broken file as tok and checks the answer.
	probe := func(tok string, want int, msg string) {
		t.Helper()
		r := c.doHdr("POST", "/api/v1/zones/probe.test/import", "x", map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok})
		expectError(t, r, want, http.StatusText(want), msg)
		if want != http.StatusBadRequest && r.header.Get("Retry-After") == "" {
			t.Errorf("%d without Retry-After", want)
		}
	}
	var pending []func() int
	for _, who := range []string{"a", "a"} {
		pending = append(pending, slowImport(t, c, tok[who], "slow-"+who+".test"))
	}
	importsRunning(t, c, 2)
	probe(tok["a"], http.StatusTooManyRequests, "this identity runs 2 imports already")
	probe(tok["b"], http.StatusBadRequest, "")
	for _, who := range []string{"b", "b"} {
		pending = append(pending, slowImport(t, c, tok[who], "slow-"+who+".test"))
	}
	importsRunning(t, c, 4)
	probe(tok["c"], http.StatusServiceUnavailable, "the server runs 4 imports already")
	r := c.pdns(tok["c"], "POST", zonesPath, map[string]any{"name": "pdns-busy.test.", "kind": "Native", "zone": zoneFileFor("pdns-busy.test")})
	pdnsError(t, r, http.StatusServiceUnavailable, "the server runs 4 imports already")
	if r.header.Get("Retry-After") == "" {
		t.Error("PowerDNS 503 without Retry-After")
	}
	nothingLeft(t, c, ns, "pdns-busy.test")
	for _, finish := range pending {
		if s := finish(); s != http.StatusBadRequest {
			t.Errorf("a slow import of a broken file answered %d, want 400", s)
		}
	}
	expect(t, c.doHdr("POST", "/api/v1/zones/after.test/import", zoneFileFor("after.test"), map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["c"]}), http.StatusCreated, "an import once the others ended")
}
