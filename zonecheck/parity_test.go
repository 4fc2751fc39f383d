package zonecheck

import (
	"context"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestFallbackParity compares the checks the service makes without
// named-checkzone (zonemodel.ParseZoneFile and ImportedZone) with
// named-checkzone's, file by file: on the rules the fallback implements
// both give the same verdict; where named checks more (check-names, the
// rows marked namedOnly), the fallback accepts and named refuses (named's
// own refusal at addzone then undoes the import). The one rule where the
// fallback is stricter is out-of-zone data (stricter): named-checkzone
// and named drop such records with a warning, the fallback refuses the
// file, naming the record.
func TestFallbackParity(t *testing.T) {
	const head = "$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 604800 300\n@ NS ns1\nns1 A 192.0.2.1\n"
	for _, c := range []struct {
		name, text string
		ok         bool // named-checkzone's verdict
		namedOnly  bool // a rule only named-checkzone checks
		stricter   bool // a rule the fallback checks and named only warns of
	}{
		{"minimal", head, true, false, false},
		{"every construct", "$ORIGIN p.test.\n$TTL 1h\n@ IN SOA ns1 h ( 1 ; c\n 2 3 4 5 )\n\tNS ns1\nns1 A 192.0.2.1\nwww CNAME ns1 ; x\n", true, false, false},
		{"no SOA", "$TTL 300\n@ NS ns1\nns1 A 192.0.2.1\n", false, false, false},
		{"no NS", "$TTL 300\n@ SOA ns1 h 1 2 3 4 5\nns1 A 192.0.2.1\n", false, false, false},
		{"two SOA", head + "@ SOA ns2 h 2 2 3 4 5\n", false, false, false},
		{"CNAME and other data", head + "www CNAME ns1\nwww TXT x\n", false, false, false},
		{"CNAME with RRSIG", head + "www CNAME ns1\nwww RRSIG CNAME 8 3 300 20300101000000 20200101000000 1 p.test. AAAA\n", true, false, false},
		{"two CNAMEs", head + "www CNAME ns1\nwww CNAME ns2\n", false, false, false},
		{"apex NS without address", head + "@ NS ns2\n", false, false, false},
		{"delegation without glue", head + "sub NS ns.sub\n", true, false, false},
		{"delegation with glue", head + "sub NS ns.sub\nns.sub A 192.0.2.9\n", true, false, false},
		{"out-of-zone NS", head + "@ NS ns.other.net.\n", true, false, false},
		{"unknown type", head + "x FOO bar\n", false, false, false},
		{"bad address", head + "x A 300.1.1.1\n", false, false, false},
		{"unbalanced parenthesis", head + "x TXT ( \"a\"\n", false, false, false},
		{"$GENERATE", head + "$GENERATE 1-5 h$ A 10.0.0.$\n", true, false, false},
		{"bad owner name", head + "bad_name A 192.0.2.7\n", false, true, false},
		{"MX to nothing", head + "@ MX 10 nothere\n", true, false, false},
		{"wildcard", head + "* A 192.0.2.5\n", true, false, false},
		{"out-of-zone data", head + "$ORIGIN other.test.\nx A 192.0.2.5\n", true, false, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, nerr := checker(t).Check(context.Background(), "p.test", []byte(c.text), 1000)
			if (nerr == nil) != c.ok {
				t.Fatalf("named-checkzone: %v, want ok %v", nerr, c.ok)
			}
			rrs, err := zonemodel.ParseZoneFile("p.test", []byte(c.text), 1000)
			if err == nil {
				_, err = zonemodel.ImportedZone("p.test", rrs)
			}
			want := (c.ok || c.namedOnly) && !c.stricter
			if (err == nil) != want {
				t.Fatalf("fallback: %v, want ok %v (named-checkzone: %v)", err, want, nerr)
			}
		})
	}
}
