package console

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// TestImportJourney: a zone file pasted into the import panel is
// previewed record by record (a multi-line SOA, $TTL, relative and
// blank owners); a file named refuses is answered with the API's message
// and its line marked in the preview, and nothing is created (named
// serves no such zone); the corrected file is imported and named serves
// its records. A transfer from an address where nothing answers shows
// the API's 502 message; one from a second named (TSIG-signed) is
// previewed first (the API's dry run: the records it would import listed
// while named does not serve the zone), then applied: it lists the
// records transferred, and named serves them at the source's serial.
// Fails on a console without import (the transfer's listing: without
// it), and on one without the transfer's preview (it imported at once).
func TestImportJourney(t *testing.T) {
	e := start(t)
	e.signIn("admin")
	e.open("#/zones")
	e.click("za-zones button.importbtn")
	e.fill("za-zones form.import input[name=importName]", "imp.test")
	bad := "$TTL 600\n@ IN SOA ns1 hostmaster (\n\t1 3600 600 604800 300 )\n@ NS ns1\nns1 A 192.0.2.53\nwww A 192.0.2.80\n\tTXT \"hello world\"\nwww CNAME elsewhere.example.\n"
	paste := func(text string) {
		e.eval(fmt.Sprintf(`(() => { const t = document.querySelector('za-zones form.import textarea'); t.value = %q; t.dispatchEvent(new Event('input')); })()`, text))
	}
	paste(bad)
	e.click("za-zones form.import button.previewbtn")
	e.waitText("za-zones .preview [role=status]", "6 records: 1 SOA, 1 NS, 2 A, 1 TXT, 1 CNAME")
	rows := evalAs[[]string](e, `[...document.querySelectorAll('za-zones .preview tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent).join('|'))`)
	want := []string{
		"2|imp.test.|600|SOA|ns1 hostmaster 1 3600 600 604800 300",
		"4|imp.test.|600|NS|ns1",
		"5|ns1.imp.test.|600|A|192.0.2.53",
		"6|www.imp.test.|600|A|192.0.2.80",
		`7|www.imp.test.|600|TXT|"hello world"`,
		"8|www.imp.test.|600|CNAME|elsewhere.example.",
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Fatalf("preview rows\n%q\nwant\n%q", rows, want)
	}
	e.click("za-zones form.import button[type=submit]")
	e.waitText("za-zones .importmsg .error", "400")
	e.waitText("za-zones .importmsg .error", "nothing was written")
	e.waitJS(`!!document.querySelector('za-zones .preview tr.refused')`, "the refused line marked in the preview")
	e.eval(`document.querySelector('za-zones form.import .previewbtn').scrollIntoView()`)
	e.docShot("import")
	if got := e.served("imp.test", dns.TypeSOA); len(got) != 0 {
		t.Fatalf("named serves imp.test after a refused import: %q", got)
	}

	paste(bad[:len(bad)-len("www CNAME elsewhere.example.\n")])
	e.click("za-zones form.import button.previewbtn")
	e.waitText("za-zones .preview [role=status]", "5 records")
	e.click("za-zones form.import button[type=submit]")
	e.waitText("za-zones .importmsg", "Imported imp.test: 5 records")
	e.want("www.imp.test", dns.TypeA, "192.0.2.80")
	e.want("www.imp.test", dns.TypeTXT, `"hello world"`)
	e.waitText("za-zones .zonelist", "imp.test")

	e.fill("za-zones form.import input[name=importName]", "axfr.test")
	e.eval(`(() => { const s = document.querySelector('za-zones form.import select[name=source]'); s.value = 'axfr'; s.dispatchEvent(new Event('change')); })()`)
	e.fill("za-zones form.import input[name=axfrAddress]", "127.0.0.1:1")
	e.click("za-zones form.import button[type=submit]")
	e.waitText("za-zones .importmsg .error", "502")
	if got := e.served("axfr.test", dns.TypeSOA); len(got) != 0 {
		t.Fatalf("named serves axfr.test after a failed transfer: %q", got)
	}

	// A transfer from a second named, which transfers the zone only to
	// its TSIG key: the API's dry run lists the records it would import
	// before anything is applied (named does not serve the zone yet);
	// applied, the records transferred are listed, and named serves
	// them.
	src := sourceNamed(t, "axfr.test", "$TTL 600\n@ SOA ns1 hostmaster 2024010101 3600 600 604800 300\n@ NS ns1\nns1 A 192.0.2.53\nwww A 192.0.2.81\nwww A 192.0.2.82\n@ MX 10 mail\nmail AAAA 2001:db8::25\n")
	e.fill("za-zones form.import input[name=axfrAddress]", src.DNSAddr)
	e.fill("za-zones form.import input[name=tsigName]", src.TSIGKeyName)
	e.fill("za-zones form.import input[name=tsigSecret]", src.TSIGSecret)
	e.waitText("za-zones form.import button[type=submit]", "Preview transfer")
	e.click("za-zones form.import button[type=submit]")
	e.waitText("za-zones .axfrpreview [role=status]", "Would import: 7 records in 6 RRsets, serial 2024010101")
	rows = evalAs[[]string](e, `[...document.querySelectorAll('za-zones .axfrpreview tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent).join('|'))`)
	want = []string{
		"axfr.test.|600|NS|ns1.axfr.test.",
		"axfr.test.|600|SOA|ns1.axfr.test. hostmaster.axfr.test. 2024010101 3600 600 604800 300",
		"axfr.test.|600|MX|10 mail.axfr.test.",
		"mail.axfr.test.|600|AAAA|2001:db8::25",
		"ns1.axfr.test.|600|A|192.0.2.53",
		"www.axfr.test.|600|A|192.0.2.81",
		"www.axfr.test.|600|A|192.0.2.82",
	}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("the transfer's preview rows\n%q\nwant\n%q", rows, want)
	}
	e.waitText("za-zones form.import button[type=submit]", "Apply import")
	e.eval(`document.querySelector('za-zones form.import button[type=submit]').scrollIntoView({block: 'end'})`)
	e.docShot("axfr-preview")
	if bad := e.axe("the transfer's preview"); len(bad) > 0 {
		t.Errorf("axe: %s", strings.Join(bad, "\n"))
	}
	if got := e.served("axfr.test", dns.TypeSOA); len(got) != 0 {
		t.Fatalf("named serves axfr.test after the transfer's preview, before apply: %q", got)
	}
	if st, _ := e.api("admin", "GET", "/api/v1/zones/axfr.test", nil); st != http.StatusNotFound {
		t.Fatalf("GET axfr.test after the preview answers %d, want 404", st)
	}
	e.click("za-zones form.import button[type=submit]")
	e.waitText("za-zones .importmsg", "Imported axfr.test: 7 records, serial 2024010101")
	e.waitText("za-zones .transferred [role=status]", "Transferred: 7 records in 6 RRsets")
	rows = evalAs[[]string](e, `[...document.querySelectorAll('za-zones .transferred tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent).join('|'))`)
	for _, w := range []string{"www.axfr.test.|600|A|192.0.2.81", "www.axfr.test.|600|A|192.0.2.82", "axfr.test.|600|MX|10 mail.axfr.test.", "mail.axfr.test.|600|AAAA|2001:db8::25"} {
		if !slices.Contains(rows, w) {
			t.Errorf("the records transferred lack %q: %q", w, rows)
		}
	}
	e.docShot("axfr")
	if bad := e.axe("the records transferred"); len(bad) > 0 {
		t.Errorf("axe: %s", strings.Join(bad, "\n"))
	}
	e.want("www.axfr.test", dns.TypeA, "192.0.2.81", "192.0.2.82")
	e.want("axfr.test", dns.TypeMX, "10 mail.axfr.test.")
	e.want("mail.axfr.test", dns.TypeAAAA, "2001:db8::25")
	if got := e.soaSerial("axfr.test"); got != 2024010101 {
		t.Errorf("named serves axfr.test at serial %d, want the source's 2024010101", got)
	}
	e.noProblems()
}

// sourceNamed starts a second named serving zone from named.conf, its
// transfers allowed only with that named's TSIG key.
func sourceNamed(t *testing.T, zone, text string) *testbind.Server {
	t.Helper()
	file := filepath.Join(t.TempDir(), zone+".db")
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return testbind.Start(t, &testbind.Options{ExtraConfig: fmt.Sprintf(
		"zone %q { type primary; file %q; allow-transfer { key %q; }; };\n", zone, file, testbind.TSIGKeyName)})
}
