package powerdns

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzPlanPatch: no PATCH body panics the translation; every plan names
// only in-zone owners and operations the zone service knows, and every
// refusal is an *InputError.
func FuzzPlanPatch(f *testing.F) {
	f.Add(`[{"name":"www.example.com.","type":"A","ttl":300,"changetype":"REPLACE","records":[{"content":"192.0.2.1"}]}]`)
	f.Add(`[{"name":"example.com.","type":"TXT","ttl":1,"changetype":"EXTEND","records":[{"content":"\"x\""}]},{"name":"x.example.com.","type":"A","changetype":"DELETE"}]`)
	f.Add(`[{"name":"a.example.com.","type":"CNAME","changetype":"prune","records":[{"content":"b."}],"comments":[]}]`)
	f.Add(`[{"name":"not-in-zone.","type":"NS","changetype":"DELETE"}]`)
	f.Add(`[{"name":"t.example.com.","type":"TXT","ttl":60,"changetype":"REPLACE","records":[{"content":"\"TEST\\1\" \"TEST2\\\\\""}]}]`)
	f.Fuzz(func(t *testing.T, body string) {
		var sets []RRset
		if json.Unmarshal([]byte(body), &sets) != nil {
			return
		}
		p, err := PlanPatch("example.com", sets)
		if err != nil {
			if _, ok := err.(*InputError); !ok {
				t.Fatalf("error %T %v is not an *InputError", err, err)
			}
			return
		}
		if len(p.Changes) != len(p.RRset) {
			t.Fatalf("%d changes, %d origins", len(p.Changes), len(p.RRset))
		}
		for i, c := range p.Changes {
			if !InZone(c.Name, "example.com") {
				t.Fatalf("change %d names %q outside the zone", i, c.Name)
			}
			switch c.Op {
			case "add", "remove", "replace", "delete":
			default:
				t.Fatalf("change %d has op %q", i, c.Op)
			}
			if p.Label(i) == "" {
				t.Fatalf("change %d has no label", i)
			}
		}
	})
}

// FuzzZoneID: a zone id decodes back to the name it was made from.
func FuzzZoneID(f *testing.F) {
	for _, s := range []string{"example.com", "foo/bar.example", "_x.example", ".", "a=b.example", "é.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		name = strings.TrimSuffix(name, ".")
		id := ZoneID(name)
		for i := 0; i < len(id); i++ {
			c := id[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == '=') {
				t.Fatalf("ZoneID(%q) = %q has %q", name, id, c)
			}
		}
		if got := ZoneName(id); FQDN(got) != FQDN(name) {
			t.Fatalf("ZoneName(ZoneID(%q)) = %q", name, got)
		}
	})
}
