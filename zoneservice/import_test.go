package zoneservice

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

const importFile = `$TTL 1h
$ORIGIN imp.test.
@ IN SOA ns1 hostmaster ( 42 ; serial
	3600 600 604800 300 )
	NS ns1
ns1	A 192.0.2.1
www	CNAME ns1 ; a comment
`

// importRig is a rig whose service checks with named-checkzone (when
// checker is set) and reads zones from a fake DNS port.
func importRig(t *testing.T, checker bool) (*rig, *dnstest.Server) {
	r := newRig(t)
	if checker {
		r.s.Checker = &zonecheck.Checker{}
		if !r.s.Checker.Available() {
			t.Fatal("named-checkzone is not installed (bind9-utils)")
		}
	}
	d := dnstest.NewServer(t, map[string]string{
		"src.test": "src.test. 300 IN SOA ns1.src.test. h.src.test. 9 1 1 1 1\nsrc.test. 300 IN NS ns1.src.test.\n" +
			"ns1.src.test. 300 IN A 192.0.2.1\nsrc.test. 300 IN MX 10 ns1.src.test.\n",
	})
	c, err := dnsupdate.NewClient(d.Addr, &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	r.s.Updater = dnsupdate.NewUpdater(c)
	return r, d
}

func TestImportFile(t *testing.T) {
	for _, checker := range []bool{true, false} {
		t.Run(map[bool]string{true: "named-checkzone", false: "zoneapi"}[checker], func(t *testing.T) {
			r, _ := importRig(t, checker)
			res, err := r.s.Import(context.Background(), "imp.test", &ImportSource{File: []byte(importFile)}, "fp1")
			if err != nil {
				t.Fatal(err)
			}
			if res.Records != 4 || res.Serial != 42 || res.CheckedBy != map[bool]string{true: "named-checkzone", false: "zoneapi"}[checker] {
				t.Fatalf("imported %+v", res)
			}
			r.state("imp.test", true, false)
			data, _ := os.ReadFile(r.file("imp.test"))
			if !strings.Contains(string(data), "www.imp.test.") {
				t.Fatalf("file written:\n%s", data)
			}
			// The same request again: the zone it made.
			again, err := r.s.Import(context.Background(), "imp.test", &ImportSource{File: []byte(importFile)}, "fp1")
			if err != nil || !again.Existed {
				t.Fatalf("retry = %+v, %v", again, err)
			}
			_, err = r.s.Import(context.Background(), "imp.test", &ImportSource{File: []byte(importFile)}, "fp2")
			is(t, err, ErrExists)
		})
	}
}

// TestCheckerReadsOnlyRenderedRecords: named-checkzone reads the records
// the service rendered from the file, never the file a client sent: a
// checker that keeps what it read (a script around named-checkzone) sees
// one record a line after the service's own $ORIGIN, no comment or
// directive of the file; a refusal and a warning name the line of the
// file. (Before:
// the file itself went to named-checkzone, its $TTL, comments and all,
// which is how a quoted "$INCLUDE" read files of the server.)
func TestCheckerReadsOnlyRenderedRecords(t *testing.T) {
	r, _ := importRig(t, true)
	seen := t.TempDir() + "/seen"
	script := t.TempDir() + "/checkzone"
	if err := os.WriteFile(script, []byte("#!/bin/sh\ncat > "+seen+"\nexec "+r.s.Checker.Program()+" \"$@\" < "+seen+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.s.Checker = &zonecheck.Checker{Path: script}
	res, err := r.s.Import(context.Background(), "imp.test", &ImportSource{File: []byte(importFile + "x TXT \"$INCLUDE\" ; not a directive\n")}, "")
	if err != nil || res.Records != 5 {
		t.Fatalf("import: %+v, %v", res, err)
	}
	text, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if len(lines) != 7 || lines[1] != "$ORIGIN imp.test." {
		t.Fatalf("named-checkzone read:\n%s", text)
	}
	for _, l := range lines[2:] {
		if _, err := dns.NewRR(l); err != nil || strings.HasPrefix(l, "$") || strings.Contains(l, "comment") {
			t.Errorf("named-checkzone read %q, not a record rendered by the service (%v)", l, err)
		}
	}
	res, err = r.s.Import(context.Background(), "warn.test", &ImportSource{File: []byte(strings.ReplaceAll(importFile, "imp.test", "warn.test") + "\n\nother.example. A 192.0.2.9\n")}, "")
	if err != nil || len(res.Warnings) != 1 || res.Warnings[0] != "line 10: ignoring out-of-zone data (other.example)" {
		t.Fatalf("warnings %q (%v), want the out-of-zone record's line 10", res.Warnings, err)
	}
	_, err = r.s.Import(context.Background(), "bad.test", &ImportSource{File: []byte(strings.ReplaceAll(importFile, "imp.test", "bad.test") + "\n\nwww A 192.0.2.9 ; beside the CNAME\n")}, "")
	var fe *zonemodel.FileError
	if !errors.As(err, &fe) || fe.Line != 10 || !strings.Contains(fe.Message, "CNAME and other data") {
		t.Fatalf("err = %v, want line 10: CNAME and other data", err)
	}
}

// TestImportRefusedLeavesNothing: a file named would refuse, a zone over
// the limits, a zone named already has and an addzone named refuses
// leave no file, no index entry, no intent and no zone in named.
func TestImportRefusedLeavesNothing(t *testing.T) {
	r, _ := importRig(t, true)
	ctx := context.Background()
	bad := importFile + "www A 192.0.2.9\n"
	_, err := r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(bad)}, "")
	is(t, err, ErrInvalid)
	var fe *zonemodel.FileError
	if !errors.As(err, &fe) || fe.Line != 8 || !strings.Contains(fe.Message, "CNAME and other data") {
		t.Fatalf("err = %v, want line 8: CNAME and other data", err)
	}
	_, err = r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile + "$INCLUDE /etc/passwd\n")}, "")
	if !errors.As(err, &fe) || fe.Line != 8 {
		t.Fatalf("$INCLUDE: %v", err)
	}
	_, err = r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile + strings.Repeat("$GENERATE 1-65536 h$ A 10.0.0.1\n", 16))}, "")
	is(t, err, ErrTooLarge)
	r.state("imp.test", false, false)
	if len(r.named.calls) != 0 {
		t.Fatalf("named was asked %v", r.named.calls)
	}

	r.named.addErr = errors.New("addzone: failure")
	_, err = r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "")
	is(t, err, ErrControl)
	r.state("imp.test", false, false)
	// named refuses to load the zone (a check named-checkzone would have
	// made): the zone is refused, as a bad file is.
	r.named.addErr = &rndc.Error{Command: "addzone", Err: "bad owner name (check-names)", Text: "dns_zone_loadnew failed: bad owner name (check-names)"}
	_, err = r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "")
	is(t, err, ErrInvalid)
	if !errors.As(err, &fe) || !strings.Contains(fe.Message, "named refused to load the zone: bad owner name") {
		t.Fatalf("err = %v", err)
	}
	r.state("imp.test", false, false)
	r.named.addErr = nil

	r.named.zones["imp.test"] = "/elsewhere/imp.test.db"
	_, err = r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "")
	is(t, err, ErrExists)
	if _, indexed, _ := r.store.Get("imp.test"); indexed || r.exists(r.file("imp.test")) {
		t.Fatal("an import of a zone named has left an index entry or a file")
	}
}

func TestImportAXFR(t *testing.T) {
	r, d := importRig(t, true)
	ctx := context.Background()
	key := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}
	res, err := r.s.Import(ctx, "src.test", &ImportSource{AXFR: &AXFRSource{Address: d.Addr, Key: key}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 4 || res.Serial != 9 {
		t.Fatalf("imported %+v", res)
	}
	r.state("src.test", true, false)

	// A source that cannot be reached, or does not answer: nothing left.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	_, err = r.s.Import(ctx, "other.test", &ImportSource{AXFR: &AXFRSource{Address: closed}}, "")
	is(t, err, ErrSource)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	_, err = r.s.Import(ctx, "other.test", &ImportSource{AXFR: &AXFRSource{Address: silent.Addr().String(), Timeout: 100 * time.Millisecond}}, "")
	is(t, err, ErrSourceTimeout)
	// The source does not serve the zone.
	_, err = r.s.Import(ctx, "other.test", &ImportSource{AXFR: &AXFRSource{Address: d.Addr, Key: key}}, "")
	is(t, err, ErrSource)
	r.state("other.test", false, false)
}

func TestCopy(t *testing.T) {
	r, _ := importRig(t, true)
	ctx := context.Background()
	_, err := r.s.Copy(ctx, "src.test", "dst.test", "")
	is(t, err, ErrNotFound) // not managed here
	if err := r.store.Put(zonestore.Entry{Name: "src.test", Type: "primary"}); err != nil {
		t.Fatal(err)
	}
	res, err := r.s.Copy(ctx, "src.test", "dst.test", "")
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 4 || res.Serial != 9 {
		t.Fatalf("copied %+v", res)
	}
	r.state("dst.test", true, false)
	data, _ := os.ReadFile(r.file("dst.test"))
	rrs, err := zonemodel.ParseZoneFile("dst.test", data, 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, rr := range rrs {
		if strings.Contains(rr.String(), "src.test") {
			t.Errorf("copied record still names the source: %s", rr)
		}
		if mx, ok := rr.(*dns.MX); ok && mx.Mx != "ns1.dst.test." {
			t.Errorf("MX %s", mx)
		}
	}
}

// TestImportRecordsHistory: an import is recorded in the change history
// as zone.imported (a create as zone.created).
func TestImportRecordsHistory(t *testing.T) {
	r, _ := importRig(t, true)
	log, err := history.Open(t.TempDir(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	r.s.History = log
	ctx := context.Background()
	if _, err := r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := r.create("c.test"); err != nil {
		t.Fatal(err)
	}
	es, err := log.Read(0, history.Filter{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Type != history.ZoneImported || es[0].Zone != "imp.test" || es[1].Type != history.ZoneCreated {
		t.Fatalf("history %+v, want zone.imported of imp.test then zone.created", es)
	}
}

// TestPreviewImport: the dry runs of Import and Copy check the zone as
// they do and return its records as the checker wrote them, and make
// nothing: no index entry, intent or file, named not asked; their
// refusals are Import's; the import then makes the zone, and a dry run
// of a zone that exists is ErrExists (or Existed for the same request).
func TestPreviewImport(t *testing.T) {
	for _, checker := range []bool{true, false} {
		t.Run(map[bool]string{true: "named-checkzone", false: "zoneapi"}[checker], func(t *testing.T) {
			r, d := importRig(t, checker)
			ctx := context.Background()
			p, err := r.s.PreviewImport(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "fp1")
			if err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, s := range p.RRsets {
				for _, v := range s.Values {
					lines = append(lines, s.Name+" "+s.Type+" "+v)
				}
			}
			want := []string{"imp.test. NS ns1.imp.test.", "imp.test. SOA ns1.imp.test. hostmaster.imp.test. 42 3600 600 604800 300", "ns1.imp.test. A 192.0.2.1", "www.imp.test. CNAME ns1.imp.test."}
			if p.Records != 4 || p.Serial != 42 || strings.Join(lines, "\n") != strings.Join(want, "\n") {
				t.Fatalf("preview %+v, records\n%s\nwant\n%s", p, strings.Join(lines, "\n"), strings.Join(want, "\n"))
			}
			r.state("imp.test", false, false)
			_, err = r.s.PreviewImport(ctx, "imp.test", &ImportSource{File: []byte(importFile + "www A 192.0.2.9\n")}, "")
			is(t, err, ErrInvalid)
			key := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}
			p, err = r.s.PreviewImport(ctx, "src.test", &ImportSource{AXFR: &AXFRSource{Address: d.Addr, Key: key}}, "")
			if err != nil || p.Records != 4 || p.Serial != 9 || len(p.RRsets) != 4 {
				t.Fatalf("AXFR preview %+v, %v", p, err)
			}
			r.state("src.test", false, false)
			_, err = r.s.PreviewImport(ctx, "other.test", &ImportSource{AXFR: &AXFRSource{Address: d.Addr, Key: key}}, "")
			is(t, err, ErrSource)
			if len(r.named.calls) != 0 {
				t.Fatalf("named was asked %v", r.named.calls)
			}

			if _, err := r.s.Import(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "fp1"); err != nil {
				t.Fatal(err)
			}
			r.state("imp.test", true, false)
			p, err = r.s.PreviewImport(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "fp1")
			if err != nil || !p.Existed {
				t.Fatalf("preview of the zone the same request made: %+v, %v", p, err)
			}
			_, err = r.s.PreviewImport(ctx, "imp.test", &ImportSource{File: []byte(importFile)}, "fp2")
			is(t, err, ErrExists)
			if _, err := r.s.Import(ctx, "src.test", &ImportSource{AXFR: &AXFRSource{Address: d.Addr, Key: key}}, ""); err != nil {
				t.Fatal(err)
			}
			p, err = r.s.PreviewCopy(ctx, "src.test", "copy.test", "")
			if err != nil || p.Records == 0 || p.RRsets[0].Name != "copy.test." {
				t.Fatalf("copy preview %+v, %v", p, err)
			}
			r.state("copy.test", false, false)
		})
	}
}
