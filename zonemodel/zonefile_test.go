package zonemodel

import (
	"bufio"
	"bytes"
	"errors"
	"slices"
	"strconv"
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
		{"incomplete escape in TXT", "$TTL 300\n@ SOA ns h 1 2 3 4 5\nt TXT \"TEST\\1\" \"TEST2\"\n", 3, `incomplete escape \1`},
		{"incomplete escape in a parenthesised TXT", "$TTL 300\n@ SOA ns h 1 2 3 4 5\nt TXT ( \"a\"\n \"b\\12\" )\n", 3, `incomplete escape \12`},
		{"an escaped backslash before a generated number (owner)", "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\n$GENERATE 10-10 \\\\$ A 0.0.0.0\n", 4, `the $GENERATE line makes the record \10.example.com., which has the incomplete escape \10`},
		{"an escaped backslash before a generated number (target)", "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\n$GENERATE 1-2 c$ CNAME x\\\\$\n", 4, `incomplete escape \1`},
		{"out-of-range escape in an owner", "$TTL 300\n@ SOA ns h 1 2 3 4 5\na\\256 A 192.0.2.1\n", 3, `escape \256, out of range`},
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
	// Complete escapes, and escapes in comments (named reads none
	// there), are taken.
	text := "$TTL 300\n@ SOA ns h 1 2 3 4 5 ; serial \\1\nt TXT \"a\\000b\" \"c\\\\1\" ; \\256\n"
	rrs, err := ParseZoneFile("example.com", []byte(text), MaxImportRecords)
	if err != nil || len(rrs) != 2 || RDataText(rrs[1]) != `"a\000b" "c\\1"` {
		t.Fatalf("ParseZoneFile = %v, %v", rrs, err)
	}
}

func TestParseZoneFileLimits(t *testing.T) {
	_, err := ParseZoneFile("example.com", []byte(strings.Repeat("$GENERATE 1-65536 h$ A 10.0.0.1\n", 16)), MaxImportRecords)
	var le *LimitError
	if !errors.As(err, &le) {
		t.Fatalf("$GENERATE lines over the limit: %v, want a *LimitError", err)
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

// TestParseZoneFileDirectives: every spelling of a directive that
// named-checkzone obeys (tried with BIND 9.18's: $INCLUDE in any case,
// quoted, with a quoted path, after a carriage return, after "(", "()"
// or "( )", after a line break inside parentheses; quoted $GENERATE,
// $ORIGIN and $TTL) is refused with its line before a record of it is
// made, as is an unknown one; what named does not read as a directive
// ("\$INCLUDE" as an owner, "$INCLUDE" inside a record's parentheses or
// as record data, a line that begins with a blank) is parsed as
// records. (Before: ScanDirectives refused a '$' at a line's first byte
// only, and named-checkzone read the text itself.)
func TestParseZoneFileDirectives(t *testing.T) {
	head := "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n"
	for _, c := range []struct {
		name, text string
		line       int
		msg        string
	}{
		{"include", "$INCLUDE /etc/passwd", 5, "$INCLUDE is not allowed"},
		{"include lower case", "$include /etc/passwd", 5, "$INCLUDE is not allowed"},
		{"include quoted", `"$INCLUDE" /etc/passwd`, 5, "$INCLUDE is not allowed"},
		{"include quoted lower case, quoted path", `"$include" "/etc/passwd"`, 5, "$INCLUDE is not allowed"},
		{"include quoted, no blank", `"$INCLUDE"/etc/passwd`, 5, "$INCLUDE is not allowed"},
		{"include after a parenthesis", "( $INCLUDE /etc/passwd )", 5, "$INCLUDE is not allowed"},
		{"include after parentheses", "()$INCLUDE /etc/passwd", 5, "$INCLUDE is not allowed"},
		{"include quoted after parentheses", `( )"$INCLUDE" /etc/passwd`, 5, "$INCLUDE is not allowed"},
		{"include after a line break in parentheses", "(\n$INCLUDE /etc/passwd )", 5, "$INCLUDE is not allowed"},
		{"include after a comment in parentheses", "( ; c\n\"$INCLUDE\" /etc/passwd )", 5, "$INCLUDE is not allowed"},
		{"include after a lone CR", "x TXT \"a\"\r$INCLUDE /etc/passwd", 5, "carriage return"},
		{"include quoted after a lone CR", "x TXT \"a\"\r\"$INCLUDE\" /etc/passwd", 5, "carriage return"},
		{"include after CRLF", "x TXT \"a\"\r\n$INCLUDE /etc/passwd\r", 6, "$INCLUDE is not allowed"},
		{"include /dev/zero", `"$INCLUDE" /dev/zero`, 5, "$INCLUDE is not allowed"},
		{"generate quoted", `"$GENERATE" 1-1100000 g$ A 10.0.0.1`, 5, "must be written unquoted"},
		{"generate after a parenthesis", `( $GENERATE 1-3 g$ A 10.0.0.1 )`, 5, "must be written unquoted"},
		{"origin quoted", "\"$ORIGIN\" other.test.\nx A 10.0.0.1", 5, "must be written unquoted"},
		{"ttl quoted", "\"$TTL\" 60", 5, "must be written unquoted"},
		{"unknown directive", "$FOO x", 5, `unknown directive "$FOO"`},
		{"owner beginning with a dollar", "$x A 10.0.0.1", 5, `unknown directive "$x"`},
		{"generate making $INCLUDE", `$GENERATE 1-1 \$INCLUDE /etc/passwd`, 5, "$INCLUDE is not allowed"},
		{"generate range over a line's limit", "$GENERATE 1-1100000 g$ A 10.0.0.1", 5, "at most 65536 records a line"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rrs, err := ParseZoneFile("example.com", []byte(head+c.text+"\n"), MaxImportRecords)
			var fe *FileError
			if !errors.As(err, &fe) || fe.Line != c.line || !strings.Contains(fe.Message, c.msg) {
				t.Fatalf("%d records, err %v; want line %d refused with %q", len(rrs), err, c.line, c.msg)
			}
		})
	}
	for _, c := range []struct {
		name, text, want string
	}{
		{"escaped dollar owner", `\$INCLUDE A 10.0.0.1`, "\\$INCLUDE.example.com.\t300\tIN\tA\t10.0.0.1"},
		{"include as record data", `x TXT "$INCLUDE" /etc/passwd`, "x.example.com.\t300\tIN\tTXT\t\"$INCLUDE\" \"/etc/passwd\""},
		{"include inside a record's parentheses", "x TXT ( \"a\"\n$INCLUDE /etc/passwd )", "x.example.com.\t300\tIN\tTXT\t\"a\" \"$INCLUDE\" \"/etc/passwd\""},
		{"blank owner", "  TXT $INCLUDE", "ns.example.com.\t300\tIN\tTXT\t\"$INCLUDE\""},
		{"quoted CR", "x TXT \"a\rb\"", "x.example.com.\t300\tIN\tTXT\t\"a\\013b\""},
		{"comment line before a directive", "; $INCLUDE /etc/passwd\n$TTL 60\nx A 10.0.0.1", "x.example.com.\t60\tIN\tA\t10.0.0.1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rrs, err := ParseZoneFile("example.com", []byte(head+c.text+"\n"), MaxImportRecords)
			if err != nil || len(rrs) != 4 || rrs[3].String() != c.want {
				t.Fatalf("%v, %v; want the record %q", rrs, err, c.want)
			}
		})
	}
}

// TestParseZoneFileLines: each record comes with the line it starts on:
// a record over several lines the line of its owner, an owner left blank
// its own line, a $GENERATE line's records that line.
func TestParseZoneFileLines(t *testing.T) {
	rrs, lines, err := ParseZoneFileLines("import.test", []byte(everyConstruct), MaxImportRecords)
	if err != nil {
		t.Fatal(err)
	}
	want := []int{4, 10, 11, 12, 13, 14, 15, 16, 17, 19, 20, 22, 22, 22}
	if len(rrs) != len(want) || !slices.Equal(lines, want) {
		t.Fatalf("lines %v, want %v", lines, want)
	}
}

// TestParseZoneFileStopsAtTheLimit: the parser stops at the record past
// the limit; $GENERATE lines are expanded one record at a time, so that
// 16 of them (over 1,000,000 records) never make more than the limit
// before the refusal; records larger in all than the bound of their
// size are refused, and so are a $GENERATE line over 1 KiB and
// $GENERATE lines over 1 MiB in all (miekg/dns joins a line's words in
// time that grows with the square of its length: an 80,000-word line
// took 11 s).
func TestParseZoneFileStopsAtTheLimit(t *testing.T) {
	text := strings.Repeat("$GENERATE 0-65535 g$ A 10.0.0.1\n", 16)
	var le *LimitError
	if _, err := ParseZoneFile("example.com", []byte(text), 100); !errors.As(err, &le) {
		t.Fatalf("%v, want a *LimitError", err)
	}
	long := "$GENERATE 0-65535 g$ TXT " + strings.Repeat("x", 900) + "\n"
	if _, _, err := parseZoneFile("example.com", []byte(strings.Repeat(long, 16)), MaxImportRecords, 8<<20, nil); !errors.As(err, &le) || !strings.Contains(le.Message, "8 MiB") {
		t.Fatalf("%v, want a *LimitError for 8 MiB", err)
	}
	if _, err := ParseZoneFile("example.com", []byte("$GENERATE 0-1 g$ TXT "+strings.Repeat("x ", 600)+"\n"), MaxImportRecords); err == nil || !strings.Contains(err.Error(), "longer than 1024 bytes") {
		t.Fatalf("a $GENERATE line of 1,200 bytes: %v, want it refused", err)
	}
	if _, err := ParseZoneFile("example.com", []byte(strings.Repeat("$GENERATE 0-1 g$ TXT "+strings.Repeat("x", 1000)+"\n", 1100)), MaxImportRecords); !errors.As(err, &le) || !strings.Contains(le.Message, "1 MiB") {
		t.Fatalf("$GENERATE lines of 1.1 MB: %v, want a *LimitError", err)
	}
}

// attackFiles are zone files that made named-checkzone read files of the
// server, or spin, before the import parsed them itself: every spelling
// of $INCLUDE and $GENERATE it obeys, and the tricks around them.
var attackFiles = []string{
	"$INCLUDE /etc/passwd\n",
	"\"$INCLUDE\" /etc/passwd\n",
	"\"$include\" \"/etc/bind/rndc.key\"\n",
	"\"$INCLUDE\" /dev/zero\n",
	"( $INCLUDE /etc/hosts )\n",
	"()\"$INCLUDE\" /etc/hosts\n",
	"(\n$INCLUDE /etc/hosts )\n",
	"x TXT \"a\"\r\"$INCLUDE\" /etc/passwd\n",
	"\\$INCLUDE A 10.0.0.1\n",
	"$x A 10.0.0.1\n",
	"\"$GENERATE\" 1-1100000 g$ A 10.0.0.1\n",
	"$GENERATE 1-3 \\$INCLUDE TXT x\n",
	"$GENERATE 1-3 \\$x$ A 10.0.0.$\n",
	"$GENERATE 1-3 g$ TXT \"\\$INCLUDE\" \\$TTL\n",
	"\"$ORIGIN\" other.test.\nx A 10.0.0.1\n",
	"x TXT ( \"a\"\n$INCLUDE /etc/passwd )\n",
	"$GENERATE 0-1 \\$$ A 0.0.0.0\n$GENERATE 10-10 \\\\$ A 0.0.0.0\n",
}

// FuzzRenderImport: whatever a client sends as a zone file, what the
// import gives named-checkzone (RenderRecords) and named (RenderFile)
// has no directive but the $ORIGIN and $TTL they write themselves, no
// line that named would read as one (a first byte '$', a quote or a
// parenthesis), nothing but one record a line; and it parses back to the
// same records.
func FuzzRenderImport(f *testing.F) {
	head := "$TTL 300\n@ SOA ns h 1 2 3 4 5\n@ NS ns\nns A 192.0.2.1\n"
	for _, a := range attackFiles {
		f.Add([]byte(head + a))
	}
	f.Add([]byte(everyConstruct))
	f.Fuzz(func(t *testing.T, text []byte) {
		rrs, lines, err := ParseZoneFileLines("fuzz.test", text, 64)
		if err != nil {
			return
		}
		if len(lines) != len(rrs) {
			t.Fatalf("%d lines for %d records", len(lines), len(rrs))
		}
		out, first, err := RenderRecords("fuzz.test", rrs)
		if err != nil {
			return // records miekg/dns prints in a form it does not read back
		}
		var streamed bytes.Buffer
		w := bufio.NewWriter(&streamed)
		if _, _, _, err := ParseZoneFileTo("fuzz.test", text, 64, w); err != nil || !bytes.Equal(streamed.Bytes(), out) {
			t.Fatalf("ParseZoneFileTo wrote %q (%v), RenderRecords %q", streamed.Bytes(), err, out)
		}
		checkRendered(t, out, first, []string{"$ORIGIN fuzz.test."}, rrs)
		z, err := ImportedZone("fuzz.test", rrs)
		if err != nil {
			return
		}
		if file, err := z.RenderFile(); err == nil {
			checkRendered(t, file, 4, []string{"$ORIGIN fuzz.test.", "$TTL " + strconv.FormatUint(uint64(z.TTL), 10)}, z.Records())
		}
	})
}

// checkRendered checks a rendered file: a comment line, the directives
// given, then from line first on one record a line, which parse back as
// rrs.
func checkRendered(t *testing.T, text []byte, first int, directives []string, rrs []dns.RR) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	if len(lines) != first-1+len(rrs) || !strings.HasPrefix(lines[0], "; ") || !slices.Equal(lines[1:first-1], directives) {
		t.Fatalf("rendered file is not a comment, %q and %d records:\n%s", directives, len(rrs), text)
	}
	for _, l := range lines[first-1:] {
		if l == "" || strings.ContainsAny(l[:1], "$\"();\t ") || strings.ContainsRune(l, '\r') {
			t.Fatalf("rendered line %q begins as named would not read a record", l)
		}
	}
	back, _, err := ParseZoneFileLines("fuzz.test", text, len(rrs))
	if err != nil || len(back) != len(rrs) {
		t.Fatalf("rendered file reads back as %d records (%v), want %d:\n%s", len(back), err, len(rrs), text)
	}
	a, b := make([]byte, dns.MaxMsgSize), make([]byte, dns.MaxMsgSize)
	for i := range rrs {
		if !sameWire(back[i], rrs[i], a, b) {
			t.Fatalf("record %d reads back as %q, want %q", i, back[i], rrs[i])
		}
	}
}
