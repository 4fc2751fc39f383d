package zonecheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

const good = `$TTL 1h
$ORIGIN check.test.
@ IN SOA ns1 hostmaster ( 7 ; serial
	3600 600 604800 300 )
	NS ns1
ns1	A 192.0.2.1
www	CNAME ns1
`

func checker(t *testing.T) *Checker {
	c := &Checker{}
	if !c.Available() {
		t.Fatal("named-checkzone is not installed (bind9-utils); these tests need it")
	}
	return c
}

func TestCheckGood(t *testing.T) {
	res, err := checker(t).Check(context.Background(), "check.test", []byte(good), 100)
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 4 || res.Serial != 7 {
		t.Fatalf("records %d serial %d, want 4 and 7", res.Records, res.Serial)
	}
	if !strings.Contains(string(res.Text), "www.check.test.") || !strings.HasPrefix(string(res.Text), "check.test.") {
		t.Fatalf("text %q: want absolute names, SOA first", res.Text)
	}
}

// TestCheckRefusals: what named refuses to load is refused with the line
// named-checkzone names, including checks a parser alone does not make
// (check-names, CNAME and other data).
func TestCheckRefusals(t *testing.T) {
	for _, c := range []struct {
		name, extra string
		line        int
		msg         string
	}{
		{"unknown type", "bad IN FOO x\n", 8, "unknown RR type"},
		{"CNAME and other data", "www A 192.0.2.9\n", 8, "CNAME and other data"},
		{"check-names", "bad_host A 192.0.2.9\n", 8, "bad owner name"},
		{"missing glue", "sub NS ns.sub\n", 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := checker(t).Check(context.Background(), "check.test", []byte(good+c.extra), 100)
			var fe *zonemodel.FileError
			if c.msg == "" {
				// named-checkzone only warns of missing glue below a
				// delegation (-i local), as named loads such a zone.
				if err != nil {
					t.Fatalf("err = %v, want the zone loaded", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Line != c.line || !strings.Contains(fe.Message, c.msg) {
				t.Fatalf("err = %#v (%v), want line %d with %q", fe, err, c.line, c.msg)
			}
		})
	}
}

// TestRefusalNamesTheFailure: a refusal names the line of the error
// named-checkzone failed on, not a warning it wrote before it (a file
// without $TTL warns "no TTL specified" first), where the warning was
// given as the reason.
func TestRefusalNamesTheFailure(t *testing.T) {
	fe := Refusal("t1.org", []string{
		"/dev/stdin:2: no TTL specified; using SOA MINTTL instead",
		"dns_master_load: /dev/stdin:5: t1.org: CNAME and other data",
		"zone t1.org/IN: loading from master file /dev/stdin failed: CNAME and other data",
		"zone t1.org/IN: not loaded due to errors.",
	})
	if fe.Line != 5 || fe.Message != "t1.org: CNAME and other data" {
		t.Errorf("Refusal = %#v, want line 5, CNAME and other data", fe)
	}
	fe = Refusal("t1.org", []string{"/dev/stdin:7: unknown RR type 'FOO'", "zone t1.org/IN: not loaded due to errors."})
	if fe.Line != 7 || fe.Message != "unknown RR type 'FOO'" {
		t.Errorf("Refusal without a reason = %#v", fe)
	}
	if _, err := checker(t).Check(context.Background(), "t1.org", []byte("$ORIGIN t1.org.\n@ IN SOA ns1.example.org. h.example.org. 1 3H 15 1W 3H\n@ IN NS ns1.example.org.\n@ IN CNAME www.example.org.\n"), 100); err == nil || !strings.Contains(err.Error(), "CNAME and other data") {
		t.Errorf("named-checkzone's refusal = %v, want CNAME and other data", err)
	}
}

func TestCheckLimit(t *testing.T) {
	_, err := checker(t).Check(context.Background(), "check.test", []byte(good), 3)
	var le *zonemodel.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want a *zonemodel.LimitError", err)
	}
}

// FuzzRefusal: any messages give a FileError with a line that is 0 or
// one a message named.
func FuzzRefusal(f *testing.F) {
	f.Add("dns_master_load: /dev/stdin:7: www.example.com: CNAME and other data\nzone example.com/IN: not loaded due to errors.")
	f.Add("/dev/stdin:99999999999999999999: x")
	f.Add("zone example.com/IN: loading from master file /dev/stdin failed: unexpected end of input")
	f.Fuzz(func(t *testing.T, s string) {
		fe := Refusal("example.com", strings.Split(s, "\n"))
		if fe == nil || fe.Line < 0 || fe.Message == "" && fe.Line == 0 {
			t.Fatalf("Refusal = %#v", fe)
		}
	})
}

// TestCheckWarningsBounded: a zone with a warning per record comes back
// with MaxWarnings of them and a count of the rest.
func TestCheckWarningsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString(good)
	for i := range 300 {
		fmt.Fprintf(&b, "mx%d MX 10 nothere%d\n", i, i) // check-mx-integrity: warn
	}
	res, err := checker(t).Check(context.Background(), "check.test", []byte(b.String()), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Warnings) != MaxWarnings+1 || !strings.Contains(res.Warnings[MaxWarnings], "and 200 more") {
		t.Fatalf("%d warnings, last %q", len(res.Warnings), res.Warnings[len(res.Warnings)-1])
	}
}
