package zoneservice

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// TestAddZoneStatement: the statement addzone is given (it was
// zonestore's Zone.BINDConfig, these cases its TestBINDConfig).
func TestAddZoneStatement(t *testing.T) {
	yes, no := true, false
	cases := []struct {
		name string
		req  *zonemodel.CreateZoneRequest
		file string
		key  string
		want string
	}{
		{
			name: "primary minimal, default key",
			req:  &zonemodel.CreateZoneRequest{ZoneName: "example.com", ZoneType: "primary", ZoneConfig: minimalZoneConfig()},
			file: "/zones/example.com.zone", key: "zoneapi-key",
			want: `{ type primary; file "/zones/example.com.zone"; allow-update { key "zoneapi-key"; }; };`,
		},
		{
			name: "primary, no key at all",
			req:  &zonemodel.CreateZoneRequest{ZoneName: "example.com", ZoneType: "primary", ZoneConfig: minimalZoneConfig()},
			file: "/zones/example.com.zone",
			want: `{ type primary; file "/zones/example.com.zone"; };`,
		},
		{
			name: "primary, request key wins, all options",
			req: &zonemodel.CreateZoneRequest{ZoneName: "example.com", ZoneType: "master", UpdateKeyName: "tenant-a.key",
				ZoneConfig: func() *zonemodel.ZoneConfig {
					c := minimalZoneConfig()
					c.AlsoNotify = []string{"192.0.2.1", "192.0.2.2:5353", "[2001:db8::2]:53", "2001:db8::3"}
					c.AllowTransfer = []string{"192.0.2.7", "198.51.100.0/24", "2001:db8::/32"}
					c.Primaries = []string{"192.0.2.100"} // ignored for primaries
					c.DNSSECPolicy = "default"
					c.InlineSigning = &yes
					return c
				}()},
			file: "/zones/example.com.zone", key: "zoneapi-key",
			want: `{ type primary; file "/zones/example.com.zone"; allow-update { key "tenant-a.key"; }; ` +
				`also-notify { 192.0.2.1; 192.0.2.2 port 5353; 2001:db8::2 port 53; 2001:db8::3; }; ` +
				`allow-transfer { 192.0.2.7; 198.51.100.0/24; 2001:db8::/32; key "zoneapi-key"; }; ` +
				`dnssec-policy "default"; inline-signing yes; };`,
		},
		{
			name: "secondary with file, no allow-update",
			req: &zonemodel.CreateZoneRequest{ZoneName: "example.net", ZoneType: "slave",
				ZoneConfig: &zonemodel.ZoneConfig{Primaries: []string{"192.0.2.1", "[2001:db8::1]:5353"}, InlineSigning: &no}},
			file: "/zones/example.net.zone", key: "zoneapi-key",
			want: `{ type secondary; file "/zones/example.net.zone"; primaries { 192.0.2.1; 2001:db8::1 port 5353; }; inline-signing no; };`,
		},
		{
			name: "caller values are quoted safely",
			req:  &zonemodel.CreateZoneRequest{ZoneName: "example.com", ZoneType: "primary", ZoneConfig: minimalZoneConfig()},
			file: "/zones/\"x\";\n", key: "bad\"key",
			want: `{ type primary; file "/zones/\"x\";"; };`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z, err := c.req.Normalize(testNow)
			if err != nil {
				t.Fatal(err)
			}
			got := AddZoneStatement(z, c.file, c.key, "").Block()
			if got != c.want {
				t.Errorf("AddZoneStatement:\n got %s\nwant %s", got, c.want)
			}
			if strings.ContainsAny(got, "\n\r") {
				t.Error("AddZoneStatement's block spans lines")
			}
		})
	}
}

func minimalZoneConfig() *zonemodel.ZoneConfig {
	return &zonemodel.ZoneConfig{
		TTL:         3600,
		SOA:         &zonemodel.SOA{PrimaryNS: "ns1.example.net.", AdminEmail: "hostmaster.example.net."},
		NameServers: []string{"ns1.example.net."},
	}
}

// FuzzAddZoneStatement: for any create request that validates, the
// statement addzone is given is one line and reads back (as named would
// read it) as the same clauses.
func FuzzAddZoneStatement(f *testing.F) {
	f.Add([]byte(`{"zoneName":"e.com","zoneType":"secondary","zoneConfig":{"primaries":["192.0.2.1:53"],"alsoNotify":["[2001:db8::1]:5353"]}}`))
	f.Add([]byte(`{"zoneName":"e.com","zoneType":"primary","updateKeyName":"k.1","zoneConfig":{"ttl":60,"soa":{"primaryNs":"ns.","adminEmail":"a."},"nameServers":["ns."],"allowTransfer":["10.0.0.0/8","192.0.2.1"],"dnssecPolicy":"default","inlineSigning":true}}`))
	f.Add([]byte(`{"zoneName":".","zoneType":"primary","zoneConfig":{"ttl":60,"soa":{"primaryNs":"ns.e.","adminEmail":"hostmaster"},"nameServers":["ns.e."],"nameServerIps":{"ns.e.":"192.0.2.1"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var req zonemodel.CreateZoneRequest
		if json.Unmarshal(data, &req) != nil {
			return
		}
		z, err := req.Normalize(testNow)
		if err != nil {
			return
		}
		zs := AddZoneStatement(z, "/zones/"+z.Name+".zone", "zoneapi-key", "/keys")
		text := zs.String()
		if strings.ContainsAny(text, "\n\r\x00") {
			t.Fatalf("statement spans lines: %q", text)
		}
		again, err := rndc.ParseZoneStatement(text)
		if err != nil {
			t.Fatalf("statement %q does not parse: %v", text, err)
		}
		if again.Name != z.Name || again.Block() != zs.Block() || again.Type() != z.Type {
			t.Fatalf("statement %q reads back as %q", text, again.String())
		}
	})
}
