package zonemodel

import (
	"errors"
	"strings"
	"testing"

	"github.com/miekg/dns"
)

// everyConstruct is a master file with every RFC 1035 construct the
// import takes: $ORIGIN, $TTL, relative and absolute names, @, an owner
// left blank (the previous one), parentheses over several lines, comments
// (whole-line, trailing, inside parentheses), quoted strings with ';',
// and a $GENERATE line.
const everyConstruct = `; a zone file as people write them
$TTL 1h ; the default TTL
$ORIGIN import.test.
@	IN SOA	ns1 hostmaster (
		2024010101 ; serial
		3600       ; refresh
		600        ; retry
		604800     ; expire
		300 )      ; negative TTL
	IN NS	ns1
	IN NS	ns2.import.test.
	IN MX	10 mail
ns1	IN A	192.0.2.1
ns2	300 IN A 192.0.2.2
mail	A	192.0.2.3
	AAAA	2001:db8::3
txt	TXT	"semi;colon" "two ( strings )"
$ORIGIN sub.import.test.
www	CNAME	mail.import.test.
host	A	192.0.2.4
$ORIGIN import.test.
$GENERATE 1-3 gen$ A 198.51.100.$
`

func TestParseZoneFileEveryConstruct(t *testing.T) {
	rrs, err := ParseZoneFile("import.test", []byte(everyConstruct), MaxImportRecords)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"import.test.\t3600\tIN\tSOA\tns1.import.test. hostmaster.import.test. 2024010101 3600 600 604800 300",
		"import.test.\t3600\tIN\tNS\tns1.import.test.",
		"import.test.\t3600\tIN\tNS\tns2.import.test.",
		"import.test.\t3600\tIN\tMX\t10 mail.import.test.",
		"ns1.import.test.\t3600\tIN\tA\t192.0.2.1",
		"ns2.import.test.\t300\tIN\tA\t192.0.2.2",
		"mail.import.test.\t3600\tIN\tA\t192.0.2.3",
		"mail.import.test.\t3600\tIN\tAAAA\t2001:db8::3",
		"txt.import.test.\t3600\tIN\tTXT\t\"semi;colon\" \"two ( strings )\"",
		"www.sub.import.test.\t3600\tIN\tCNAME\tmail.import.test.",
		"host.sub.import.test.\t3600\tIN\tA\t192.0.2.4",
		"gen1.import.test.\t3600\tIN\tA\t198.51.100.1",
		"gen2.import.test.\t3600\tIN\tA\t198.51.100.2",
		"gen3.import.test.\t3600\tIN\tA\t198.51.100.3",
	}
	if len(rrs) != len(want) {
		t.Fatalf("%d records, want %d: %v", len(rrs), len(want), rrs)
	}
	for i, rr := range rrs {
		if rr.String() != want[i] {
			t.Errorf("record %d = %q, want %q", i, rr.String(), want[i])
		}
	}
	z, err := ImportedZone("import.test", rrs)
	if err != nil {
		t.Fatal(err)
	}
	if z.Serial != 2024010101 || len(z.Records()) != len(want) {
		t.Fatalf("serial %d, %d records", z.Serial, len(z.Records()))
	}
	if _, err := z.RenderFile(); err != nil {
		t.Fatal(err)
	}
}

func TestParseZoneFileRefusals(t *testing.T) {
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"include", "$TTL 300\n@ SOA ns h 1 2 3 4 5\n$INCLUDE /etc/passwd\n", 3, "$INCLUDE is not allowed"},
		{"include lower case", "$include other.zone\n", 1, "$INCLUDE is not allowed"},
		{"unknown type", "$TTL 300\n@ SOA ns h 1 2 3 4 5\n\nwww IN FOO x\n", 4, "FOO"},
		{"bad address", "$TTL 300\n@ SOA ns h (\n 1 2 3 4 5 )\n@ NS ns\nns A 300.1.2.3\n", 5, "bad A"},
		{"unclosed parenthesis", "$TTL 300\n@ SOA ns h ( 1 2 3 4 5\n", 2, "unbalanced"},
		{"bad generate range", "$GENERATE 5-1 h$ A 10.0.0.$\n", 1, "$GENERATE"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseZoneFile("example.com", []byte(c.text), MaxImportRecords)
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *FileError", err)
			}
			if fe.Line != c.line || !strings.Contains(fe.Message, c.msg) {
				t.Fatalf("line %d %q, want line %d containing %q", fe.Line, fe.Message, c.line, c.msg)
			}
		})
	}
}

func TestParseZoneFileLimits(t *testing.T) {
	_, err := ParseZoneFile("example.com", []byte("$GENERATE 1-2000000 h$ A 10.0.0.1\n"), MaxImportRecords)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("a $GENERATE over the limit: %v, want a *LimitError", err)
	}
	text := "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 10.0.0.1\nb A 10.0.0.2\n"
	if _, err := ParseZoneFile("example.com", []byte(text), 3); !errors.As(err, &le) {
		t.Fatalf("4 records with a limit of 3: %v, want a *LimitError", err)
	}
	if _, err := ParseZoneFile("example.com", []byte(text), 4); err != nil {
		t.Fatalf("4 records with a limit of 4: %v", err)
	}
}

func TestImportedZoneChecks(t *testing.T) {
	base := "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n"
	for _, c := range []struct{ name, extra, msg string }{
		{"fine", "", ""},
		{"no SOA", "-", "no SOA"},
		{"two SOA", "@ SOA ns2 h 2 2 3 4 5\n", "more than one SOA"},
		{"SOA below apex", "sub SOA ns h 1 2 3 4 5\n", "must be at the zone apex"},
		{"out of zone", "other.net. A 192.0.2.9\n", "outside the zone"},
		{"CNAME and other data", "www CNAME ns\nwww TXT x\n", "CNAME and other data"},
		{"CNAME at apex", "@ CNAME ns\n", "not allowed at the zone apex"},
		{"apex NS without address", "@ NS ns2\n", "no address records"},
		{"delegation without glue", "sub NS ns.sub\n", ""},
		{"delegation with glue", "sub NS ns.sub\nns.sub A 192.0.2.7\n", ""},
		{"out-of-zone NS", "sub NS ns.other.net.\n", ""},
		{"chaos class", "x CH TXT hi\n", "class"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text := base + c.extra
			if c.extra == "-" {
				text = "$TTL 300\n@ NS ns\nns A 192.0.2.1\n"
			}
			rrs, err := ParseZoneFile("example.com", []byte(text), MaxImportRecords)
			if err != nil {
				t.Fatal(err)
			}
			_, err = ImportedZone("example.com", rrs)
			if c.msg == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err = %v, want %q", err, c.msg)
			}
		})
	}
}

// FuzzParseZoneFile: any input is parsed or refused with a *FileError or
// *LimitError (never a panic, never another error); a line number is
// within the file; what parses and passes the checks renders to a file
// that parses back to the same records.
func FuzzParseZoneFile(f *testing.F) {
	f.Add([]byte(everyConstruct))
	f.Add([]byte("$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n"))
	f.Add([]byte("$INCLUDE x\n"))
	f.Add([]byte("$GENERATE 1-10/3 h${1,3,x} A 10.0.0.$\n"))
	f.Add([]byte("@ SOA ns h ( 1 2 3 4 5\n"))
	f.Fuzz(func(t *testing.T, text []byte) {
		rrs, err := ParseZoneFile("fuzz.test", text, 1000)
		if err != nil {
			var fe *FileError
			var le *LimitError
			switch {
			case errors.As(err, &fe):
				if fe.Line < 0 || fe.Line > strings.Count(string(text), "\n")+2 {
					t.Fatalf("line %d of a %d-line file", fe.Line, strings.Count(string(text), "\n")+1)
				}
			case errors.As(err, &le):
			default:
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(rrs) > 1000 {
			t.Fatalf("%d records past the limit", len(rrs))
		}
		z, err := ImportedZone("fuzz.test", rrs)
		if err != nil {
			var fe *FileError
			if !errors.As(err, &fe) {
				t.Fatalf("check error of type %T: %v", err, err)
			}
			return
		}
		out, err := z.RenderFile()
		if err != nil {
			// RenderFile verifies its own output; records miekg/dns
			// prints in a form it does not read back are refused, not
			// written.
			return
		}
		back, err := ParseZoneFile("fuzz.test", out, 1000)
		if err != nil || len(back) != len(rrs) {
			t.Fatalf("rendered file reads back as %d records (%v), want %d", len(back), err, len(rrs))
		}
		if back[0].Header().Rrtype != dns.TypeSOA {
			t.Fatalf("rendered file starts with %s", back[0])
		}
	})
}

func TestCopyRecords(t *testing.T) {
	text := "$TTL 300\n@ SOA ns1 hostmaster 5 2 3 4 5\n@ NS ns1\n@ NS ns.other.net.\nns1 A 192.0.2.1\n" +
		"@ MX 10 mail\nmail CNAME ns1\nwww CNAME www.other.net.\n_sip._tcp SRV 0 0 5060 ns1\n@ RRSIG A 8 2 300 20300101000000 20200101000000 1 from.test. AAAA\n"
	rrs, err := ParseZoneFile("from.test", []byte(text), 100)
	if err != nil {
		t.Fatal(err)
	}
	got := CopyRecords(rrs, "from.test", "to.test")
	var lines []string
	for _, rr := range got {
		lines = append(lines, rr.String())
	}
	want := strings.Join([]string{
		"to.test.\t300\tIN\tSOA\tns1.to.test. hostmaster.to.test. 5 2 3 4 5",
		"to.test.\t300\tIN\tNS\tns1.to.test.",
		"to.test.\t300\tIN\tNS\tns.other.net.",
		"ns1.to.test.\t300\tIN\tA\t192.0.2.1",
		"to.test.\t300\tIN\tMX\t10 mail.to.test.",
		"mail.to.test.\t300\tIN\tCNAME\tns1.to.test.",
		"www.to.test.\t300\tIN\tCNAME\twww.other.net.",
		"_sip._tcp.to.test.\t300\tIN\tSRV\t0 0 5060 ns1.to.test.",
	}, "\n")
	if strings.Join(lines, "\n") != want {
		t.Fatalf("copy:\n%s\nwant:\n%s", strings.Join(lines, "\n"), want)
	}
	if rrs[0].Header().Name != "from.test." {
		t.Fatal("CopyRecords changed its input")
	}
	if _, err := ImportedZone("to.test", got); err != nil {
		t.Fatal(err)
	}
}

// TestScanDirectivesCarriageReturn: named's master file reader ends a
// line at a lone carriage return too, so a directive after one is a
// directive to named-checkzone and named ("x TXT a\r$INCLUDE /etc/passwd"
// includes the file: its first words come back in the checker's error,
// or its records into the zone). ScanDirectives, which guards the file
// before named-checkzone reads it, must see it. (Before: only '\n' ended
// a line, and both lines below passed.)
func TestScanDirectivesCarriageReturn(t *testing.T) {
	head := "$TTL 300\n@ SOA ns h 1 2 3 4 5\n"
	for _, c := range []struct {
		name, text string
		line       int
	}{
		{"include after CR", head + "x TXT \"a\"\r$INCLUDE /etc/passwd\n", 3},
		{"include after CR CR", head + "x TXT \"a\"\r\r$include /etc/passwd\n", 3},
		{"include after CRLF", head + "x TXT \"a\"\r\n$INCLUDE /etc/passwd\r\n", 4},
	} {
		err := ScanDirectives([]byte(c.text), MaxImportRecords)
		var fe *FileError
		if !errors.As(err, &fe) || fe.Line != c.line || !strings.Contains(fe.Message, "$INCLUDE is not allowed") {
			t.Errorf("%s: %v, want the $INCLUDE refused at line %d", c.name, err, c.line)
		}
	}
	var le *LimitError
	if err := ScanDirectives([]byte(head+"x TXT \"a\"\r$GENERATE 1-2000000 h$ A 10.0.0.1\n"), MaxImportRecords); !errors.As(err, &le) {
		t.Errorf("a $GENERATE over the limit after a CR: %v, want a *LimitError", err)
	}
	if err := ScanDirectives([]byte(head+"x TXT \"a\\r$INCLUDE\"\n y TXT \"b\"\r $INCLUDE x\n"), MaxImportRecords); err != nil {
		t.Errorf("no directive at a line's first byte: %v", err)
	}
}
