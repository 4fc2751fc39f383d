package powerdns

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// importingNamed is fakeNamed that records the zone file texts imported.
type importingNamed struct {
	*fakeNamed
	imported []string
}

func (f *importingNamed) Import(_ context.Context, zone string, _ *zonemodel.ImportSource, _ string) (*zonemodel.Imported, error) {
	f.imported = append(f.imported, zone)
	return &zonemodel.Imported{}, nil
}

// TestImportOutOfZone: PowerDNS refuses zone file text with a record
// outside the zone, 422 "RRset example.org. IN AAAA: Name is out of
// zone" (test_Zones.py test_import_zone_axfr_outofzone), and creates
// nothing; named-checkzone only warns ("ignoring out-of-zone data") and
// named drops the record, so before, the zone was created without it
// (201). Text with every record in the zone is imported as before.
func TestImportOutOfZone(t *testing.T) {
	f := &importingNamed{fakeNamed: newFakeNamed(t)}
	mux := http.NewServeMux()
	for _, rt := range (&API{Service: f}).Routes() {
		mux.HandleFunc(rt.Method+" "+rt.Template, func(w http.ResponseWriter, r *http.Request) { rt.Handle(w, r, "") })
	}
	h := mux
	const soa = "86400 IN SOA ns1.example.net. hostmaster.example.net. 1 10800 3600 604800 10800\n"
	for _, tc := range []struct {
		name, text, want string
	}{
		{"out.test.", "out.test. " + soa + "out.test. 3600 IN NS ns.example.net.\nexample.org. 3600 IN AAAA 2001:db8::2\nout.test. " + soa, "RRset example.org. IN AAAA: Name is out of zone"},
		{"sibling.test.", "$ORIGIN sibling.test.\n@ " + soa + "@ 3600 IN NS ns.example.net.\nwww.xsibling.test. 60 IN A 192.0.2.1\n", "RRset www.xsibling.test. IN A: Name is out of zone"},
		{"in.test.", "$ORIGIN in.test.\n@ " + soa + "@ 3600 IN NS ns.example.net.\nwww 60 IN A 192.0.2.1\n", ""},
	} {
		before := len(f.imported)
		a := call(t, h, "POST", zp, map[string]any{"name": tc.name, "kind": "Master", "nameservers": []string{}, "zone": tc.text})
		if tc.want != "" {
			if a.status != 422 || a.body["error"] != tc.want {
				t.Errorf("%s: %d %s, want 422 %q", tc.name, a.status, a.raw, tc.want)
			}
			if len(f.imported) != before {
				t.Errorf("%s: imported although refused", tc.name)
			}
			continue
		}
		if len(f.imported) != before+1 || !strings.HasPrefix(f.imported[before], "in.test") {
			t.Errorf("%s: not imported (%d %s)", tc.name, a.status, a.raw)
		}
	}
}
