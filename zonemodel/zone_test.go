package zonemodel

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestNormalizeZoneName(t *testing.T) {
	cases := []struct {
		in, want, err string
	}{
		{in: "example.com", want: "example.com"},
		{in: "Example.COM.", want: "example.com"},
		{in: "_tcp.x-y.example", want: "_tcp.x-y.example"},
		{in: "localhost", want: "localhost"},
		{in: "2.0.192.in-addr.arpa", want: "2.0.192.in-addr.arpa"},
		{in: strings.Repeat("a", 63) + ".com", want: strings.Repeat("a", 63) + ".com"},
		{in: "", err: "must not be empty"},
		{in: ".", want: "."},
		{in: "example.com..", err: "'..'"},
		{in: "a..b", err: "'..'"},
		{in: "../etc", err: "must not contain '..'"},
		{in: ".example.com", err: "must not start with '.'"},
		{in: "a b", err: `invalid character ' '`},
		{in: "a/b", want: "a/b"},
		{in: "0/25.2.0.192.In-Addr.Arpa.", want: "0/25.2.0.192.in-addr.arpa"},
		{in: "foo/bar.example", want: "foo/bar.example"},
		{in: "a\nb", err: `invalid character '\n'`},
		{in: "-x", err: "must not start or end with '-'"},
		{in: "x-.com", err: "must not start or end with '-'"},
		{in: "*.example.com", err: "invalid character '*'"},
		{in: strings.Repeat("a", 64) + ".com", err: "longer than 63"},
		{in: strings.Repeat("abcdefghi.", 30), err: "longer than 253"},
	}
	for _, c := range cases {
		got, err := NormalizeZoneName(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("NormalizeZoneName(%q) = %q, %v; want error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("NormalizeZoneName(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

func TestDefaultSerial(t *testing.T) {
	cases := []struct {
		t    time.Time
		want uint32
	}{
		{time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC), 2026010200},
		{time.Date(2026, 1, 2, 0, 14, 0, 0, time.UTC), 2026010200},
		{time.Date(2026, 1, 2, 0, 15, 0, 0, time.UTC), 2026010201},
		{time.Date(2026, 12, 31, 12, 0, 0, 0, time.UTC), 2026123150},
		{time.Date(2026, 12, 31, 23, 59, 59, 0, time.UTC), 2026123199},
		{time.Date(2026, 12, 31, 23, 59, 0, 0, time.FixedZone("x", -3600)), 2027010104},
	}
	for _, c := range cases {
		if got := DefaultSerial(c.t); got != c.want {
			t.Errorf("DefaultSerial(%v) = %d, want %d", c.t, got, c.want)
		}
	}
	z, err := (&CreateZoneRequest{ZoneName: "e.com", ZoneType: "primary", ZoneConfig: minimalConfig()}).Normalize(testNow)
	if err != nil || z.Serial != 2026112550 {
		t.Errorf("default serial = %d, %v; want 2026112550", z.Serial, err)
	}
}

// mutate returns a valid primary request changed by f.
func mutate(f func(r *CreateZoneRequest)) *CreateZoneRequest {
	r := &CreateZoneRequest{ZoneName: "example.com", ZoneType: "primary", ZoneConfig: &ZoneConfig{
		TTL:           3600,
		SOA:           &SOA{PrimaryNS: "ns1", AdminEmail: "hostmaster"},
		NameServers:   []string{"ns1"},
		NameServerIPs: map[string]string{"ns1": "192.0.2.1"},
	}}
	f(r)
	return r
}

func rec(name, typ, value string) Record { return Record{Name: name, Type: typ, Value: value} }

func withRecords(rs ...Record) *CreateZoneRequest {
	return mutate(func(r *CreateZoneRequest) { r.ZoneConfig.Records = rs })
}

func TestNormalizeRejects(t *testing.T) {
	cases := []struct {
		name  string
		req   *CreateZoneRequest
		field string
		msg   string
	}{
		{"empty zone name", mutate(func(r *CreateZoneRequest) { r.ZoneName = "" }), "zoneName", "must not be empty"},
		{"path traversal", mutate(func(r *CreateZoneRequest) { r.ZoneName = "../etc" }), "zoneName", "must not contain '..'"},
		{"space in name", mutate(func(r *CreateZoneRequest) { r.ZoneName = "a b" }), "zoneName", "invalid character ' '"},
		{"leading hyphen", mutate(func(r *CreateZoneRequest) { r.ZoneName = "-x" }), "zoneName", "must not start or end with '-'"},
		{"long name", mutate(func(r *CreateZoneRequest) { r.ZoneName = strings.Repeat("a.", 150) }), "zoneName", "longer than 253"},
		{"missing type", mutate(func(r *CreateZoneRequest) { r.ZoneType = "" }), "zoneType", "must not be empty"},
		{"bad type", mutate(func(r *CreateZoneRequest) { r.ZoneType = "stub" }), "zoneType", `"stub" is not a zone type`},
		{"secondary without primaries", &CreateZoneRequest{ZoneName: "e.com", ZoneType: "secondary", ZoneConfig: &ZoneConfig{}}, "zoneConfig.primaries", "at least one primary"},
		{"secondary without config", &CreateZoneRequest{ZoneName: "e.com", ZoneType: "secondary"}, "zoneConfig.primaries", "at least one primary"},
		{"secondary bad primary", &CreateZoneRequest{ZoneName: "e.com", ZoneType: "secondary", ZoneConfig: &ZoneConfig{Primaries: []string{"1.2.3.4 port 53"}}}, "zoneConfig.primaries[0]", `"1.2.3.4 port 53" is not`},
		{"secondary with update key", &CreateZoneRequest{ZoneName: "e.com", ZoneType: "secondary", UpdateKeyName: "k", ZoneConfig: &ZoneConfig{Primaries: []string{"192.0.2.1"}}}, "updateKeyName", "only for primary zones"},
		{"primary without config", &CreateZoneRequest{ZoneName: "e.com", ZoneType: "primary"}, "zoneConfig", "required for primary zones"},
		{"primary without soa", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA = nil }), "zoneConfig.soa", "required"},
		{"primary without ns", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServers = nil }), "zoneConfig.nameServers", "at least one name server"},
		{"ttl zero", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.TTL = 0 }), "zoneConfig.ttl", "between 1 and 2147483647"},
		{"ttl too big", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.TTL = 1 << 31 }), "zoneConfig.ttl", "between 1 and 2147483647"},
		{"soa ns empty", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.PrimaryNS = "" }), "zoneConfig.soa.primaryNs", "must not be empty"},
		{"soa ns bad", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.PrimaryNS = "ns 1." }), "zoneConfig.soa.primaryNs", "invalid character ' '"},
		{"admin empty", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.AdminEmail = "" }), "zoneConfig.soa.adminEmail", "must not be empty"},
		{"admin two at", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.AdminEmail = "a@b@c" }), "zoneConfig.soa.adminEmail", "is not a mailbox"},
		// A zone may have a '/' in its name, but named's check-names
		// refuses an SOA mailbox there (before: the zone name was refused).
		{"admin in a slash zone", mutate(func(r *CreateZoneRequest) {
			r.ZoneName, r.ZoneConfig.SOA.PrimaryNS, r.ZoneConfig.NameServers, r.ZoneConfig.NameServerIPs = "0/25.2.0.192.in-addr.arpa", "ns1.example.net.", []string{"ns1.example.net."}, nil
		}), "zoneConfig.soa.adminEmail", "named's check-names refuses in an SOA"},
		{"admin @ a slash domain", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.AdminEmail = "hostmaster@a/b.example" }), "zoneConfig.soa.adminEmail", "is not a host name"},
		{"admin bad local", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.AdminEmail = "a\"b@c.com" }), "zoneConfig.soa.adminEmail", "invalid character '\"'"},
		{"soa refresh", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.Refresh = u32(1 << 31) }), "zoneConfig.soa.refresh", "at most"},
		{"ns bad", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServers = []string{"ns1", "bad..name."} }), "zoneConfig.nameServers[1]", "'..'"},
		{"ns in zone without glue", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServers = []string{"ns1", "ns2"} }), "zoneConfig.nameServers[1]", "has no address"},
		{"glue outside zone", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServerIPs["ns.other.org."] = "192.0.2.2" }), `zoneConfig.nameServerIps["ns.other.org."]`, "outside the zone"},
		{"glue suffix not label boundary", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServerIPs["notexample.com."] = "192.0.2.2" }), `zoneConfig.nameServerIps["notexample.com."]`, "outside the zone"},
		{"glue bad ip", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServerIPs["ns1"] = "300.1.1.1" }), `zoneConfig.nameServerIps["ns1"]`, "not an IPv4 or IPv6"},
		{"update key charset", mutate(func(r *CreateZoneRequest) { r.UpdateKeyName = `k"; }; also-notify {` }), "updateKeyName", "invalid character '\"'"},
		{"update key long", mutate(func(r *CreateZoneRequest) { r.UpdateKeyName = strings.Repeat("k", 254) }), "updateKeyName", "longer than 253"},
		{"dnssec policy charset", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.DNSSECPolicy = "a b" }), "zoneConfig.dnssecPolicy", "invalid character ' '"},
		{"also-notify bad", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AlsoNotify = []string{"192.0.2.1", "[bad]:53"} }), "zoneConfig.alsoNotify[1]", "is not"},
		{"also-notify port range", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AlsoNotify = []string{"192.0.2.1:99999"} }), "zoneConfig.alsoNotify[0]", "is not"},
		{"also-notify port zero", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AlsoNotify = []string{"192.0.2.1:0"} }), "zoneConfig.alsoNotify[0]", "is not"},
		{"also-notify v6 without brackets", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AlsoNotify = []string{"2001:db8::1:53:x"} }), "zoneConfig.alsoNotify[0]", "is not"},
		{"allow-transfer bad", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AllowTransfer = []string{"any"} }), "zoneConfig.allowTransfer[0]", "not an IP address or a CIDR"},
		{"allow-transfer host bits", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.AllowTransfer = []string{"192.0.2.1/24"} }), "zoneConfig.allowTransfer[0]", `did you mean "192.0.2.0/24"`},
		{"record type unknown", withRecords(rec("www", "BOGUS", "x")), "zoneConfig.records[0].type", `"BOGUS" is not a known record type`},
		{"record type empty", withRecords(rec("www", "", "x")), "zoneConfig.records[0].type", "must not be empty"},
		{"record type SOA", withRecords(rec("@", "SOA", "a. b. 1 2 3 4 5")), "zoneConfig.records[0].type", "cannot be created"},
		{"record type RRSIG", withRecords(rec("@", "rrsig", "x")), "zoneConfig.records[0].type", "cannot be created"},
		{"record name empty", withRecords(rec("", "A", "192.0.2.1")), "zoneConfig.records[0].name", "must not be empty"},
		{"record name bad char", withRecords(rec("a@b", "A", "192.0.2.1")), "zoneConfig.records[0].name", "invalid character '@'"},
		{"record name wildcard inside", withRecords(rec("a.*", "A", "192.0.2.1")), "zoneConfig.records[0].name", "allowed only as the whole first label"},
		{"record out of zone", withRecords(rec("www.example.org.", "A", "192.0.2.1")), "zoneConfig.records[0].name", "outside the zone"},
		{"record out of zone suffix", withRecords(rec("notexample.com.", "A", "192.0.2.1")), "zoneConfig.records[0].name", "outside the zone"},
		{"record ttl", withRecords(Record{Name: "a", Type: "A", Value: "192.0.2.1", TTL: u32(1 << 31)}), "zoneConfig.records[0].ttl", "at most"},
		{"value empty", withRecords(rec("a", "A", " ")), "zoneConfig.records[0].value", "must not be empty"},
		{"value A invalid", withRecords(rec("a", "A", "1.2.3")), "zoneConfig.records[0].value", "not valid A data"},
		{"value AAAA invalid", withRecords(rec("a", "AAAA", "192.0.2.1")), "zoneConfig.records[0].value", "not valid AAAA data"},
		{"value newline", withRecords(rec("a", "A", "192.0.2.1\nevil 3600 IN A 1.1.1.1")), "zoneConfig.records[0].value", `control character '\n'`},
		{"value tab", withRecords(rec("a", "TXT", "x\ty")), "zoneConfig.records[0].value", `control character '\t'`},
		{"value NUL", withRecords(rec("a", "MX", "10 a\x00.")), "zoneConfig.records[0].value", `control character '\x00'`},
		{"value $INCLUDE", withRecords(rec("a", "TXT", `"x" $INCLUDE /etc/passwd`)), "zoneConfig.records[0].value", "$INCLUDE"},
		{"value $ORIGIN lower", withRecords(rec("a", "CNAME", "$origin")), "zoneConfig.records[0].value", "$ORIGIN"},
		{"value $TTL", withRecords(rec("a", "TXT", "$TTL 0")), "zoneConfig.records[0].value", "$TTL"},
		{"value $GENERATE", withRecords(rec("a", "CNAME", "$GENERATE 1-9 x")), "zoneConfig.records[0].value", "$GENERATE"},
		{"value comment", withRecords(rec("a", "A", "192.0.2.1 ; hi")), "zoneConfig.records[0].value", "comments are not allowed"},
		{"value unbalanced quote", withRecords(rec("a", "TXT", `"abc`)), "zoneConfig.records[0].value", "unterminated quoted string"},
		{"value unbalanced quote CAA", withRecords(rec("@", "CAA", `0 issue "letsencrypt.org`)), "zoneConfig.records[0].value", "unterminated quoted string"},
		{"value unbalanced paren", withRecords(rec("a", "MX", "( 10 mail.example.com.")), "zoneConfig.records[0].value", "unbalanced parentheses"},
		{"value close paren", withRecords(rec("a", "MX", "10 mail.example.com. )")), "zoneConfig.records[0].value", "unbalanced parentheses"},
		{"value dangling escape", withRecords(rec("a", "CNAME", `x\`)), "zoneConfig.records[0].value", "dangling"},
		{"value two records", withRecords(rec("a", "A", "192.0.2.1 192.0.2.2")), "zoneConfig.records[0].value", "not valid A data"},
		{"value MX missing pref", withRecords(rec("a", "MX", "mail.example.com.")), "zoneConfig.records[0].value", "not valid MX data"},
		{"value MX empty parens", withRecords(rec("a", "MX", "()")), "zoneConfig.records[0].value", "does not make a complete record"},
		{"value CNAME empty parens", withRecords(rec("a", "CNAME", "( )")), "zoneConfig.records[0].value", "does not make a complete record"},
		{"value MX pref twice", withRecords(Record{Name: "a", Type: "MX", Value: "10 mail.example.com.", Priority: u16(5)}), "zoneConfig.records[0].value", "not valid MX data"},
		{"value CAA bad", withRecords(rec("@", "CAA", "issue")), "zoneConfig.records[0].value", "not valid CAA data"},
		{"priority on A", withRecords(Record{Name: "a", Type: "A", Value: "192.0.2.1", Priority: u16(5)}), "zoneConfig.records[0].priority", "only for MX and SRV"},
		{"cname at apex", withRecords(rec("@", "CNAME", "www")), "zoneConfig.records[0].name", "not allowed at the zone apex"},
		{"cname beside A", withRecords(rec("www", "A", "192.0.2.1"), rec("www", "CNAME", "other.example.org.")), "zoneConfig.records[1].name", "cannot coexist"},
		{"cname beside glue", withRecords(rec("ns1", "CNAME", "other.example.org.")), "zoneConfig.records[0].name", "cannot coexist"},
		{"two cnames", withRecords(rec("w", "CNAME", "a.example.org."), rec("w", "CNAME", "b.example.org.")), "zoneConfig.records[0].name", "cannot coexist"},
		{"duplicate record", withRecords(rec("w", "A", "192.0.2.1"), rec("W.example.com.", "A", "192.0.2.1")), "zoneConfig.records[1]", "duplicates zoneConfig.records[0]"},
		{"delegation without glue", withRecords(rec("sub", "NS", "ns.sub")), "zoneConfig.records[0]", "has no address"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z, err := c.req.Normalize(testNow)
			if err == nil {
				t.Fatalf("Normalize accepted the request: %+v", z)
			}
			var ve *ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("error is %T, want *ValidationError", err)
			}
			for _, p := range ve.Problems {
				if p.Field == c.field && strings.Contains(p.Message, c.msg) {
					return
				}
			}
			t.Errorf("no problem %s: ...%s...; got %v", c.field, c.msg, ve.Problems)
		})
	}
}

func TestNormalizeAccepts(t *testing.T) {
	cases := []struct {
		name  string
		req   *CreateZoneRequest
		check func(t *testing.T, z *Zone)
	}{
		{"aliases and case", mutate(func(r *CreateZoneRequest) { r.ZoneType = "MASTER" }), func(t *testing.T, z *Zone) {
			if z.Type != TypePrimary {
				t.Errorf("type %q", z.Type)
			}
		}},
		{"slave alias", &CreateZoneRequest{ZoneName: "E.com", ZoneType: "slave", ZoneConfig: &ZoneConfig{Primaries: []string{"192.0.2.1"}, TTL: 0, SOA: nil}}, func(t *testing.T, z *Zone) {
			if z.Type != TypeSecondary || z.Name != "e.com" {
				t.Errorf("got %q %q", z.Type, z.Name)
			}
		}},
		{"mailbox forms", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.SOA.AdminEmail = "John.Doe@Example.org." }), func(t *testing.T, z *Zone) {
			if got := z.rrs[0].String(); !strings.Contains(got, `john\.doe.example.org.`) {
				t.Errorf("soa %s", got)
			}
		}},
		{"literal TXT keeps quotes and semicolons", withRecords(rec("t", "TXT", `say "hi"; (ok`)), func(t *testing.T, z *Zone) {
			if got := z.rrs[len(z.rrs)-1].String(); !strings.HasSuffix(got, `"say \"hi\"; (ok"`) {
				t.Errorf("txt %s", got)
			}
		}},
		{"TXT unicode", withRecords(rec("t", "txt", "café")), func(t *testing.T, z *Zone) {
			if _, err := z.RenderFile(); err != nil {
				t.Error(err)
			}
		}},
		{"record ttl zero and explicit", withRecords(Record{Name: "a", Type: "A", Value: "192.0.2.1", TTL: u32(0)}), func(t *testing.T, z *Zone) {
			if z.rrs[len(z.rrs)-1].Header().Ttl != 0 {
				t.Error("ttl not 0")
			}
		}},
		{"v4-mapped glue is A", mutate(func(r *CreateZoneRequest) { r.ZoneConfig.NameServerIPs["ns1"] = "::ffff:192.0.2.9" }), func(t *testing.T, z *Zone) {
			if got := z.rrs[2].String(); !strings.Contains(got, "\tA\t192.0.2.9") {
				t.Errorf("glue %s", got)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			z, err := c.req.Normalize(testNow)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, z)
			if z.Type == TypePrimary {
				if _, err := z.RenderFile(); err != nil {
					t.Fatalf("RenderFile: %v", err)
				}
			}
		})
	}
}

func TestNormalizeReportsAllProblems(t *testing.T) {
	req := &CreateZoneRequest{
		ZoneName:      "bad name",
		ZoneType:      "primary",
		UpdateKeyName: "bad key",
		ZoneConfig: &ZoneConfig{
			TTL:           0,
			SOA:           &SOA{PrimaryNS: "", AdminEmail: "a@@b"},
			NameServers:   []string{"ns 1"},
			AlsoNotify:    []string{"nope"},
			AllowTransfer: []string{"10.0.0.1/8"},
		},
	}
	_, err := req.Normalize(testNow)
	var ve *ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got %v", err)
	}
	want := []string{"zoneName", "updateKeyName", "zoneConfig.alsoNotify[0]", "zoneConfig.allowTransfer[0]"}
	got := map[string]bool{}
	for _, p := range ve.Problems {
		got[p.Field] = true
	}
	for _, f := range want {
		if !got[f] {
			t.Errorf("missing problem for %s in %v", f, ve.Problems)
		}
	}
	if !strings.Contains(err.Error(), "zoneName: zone name label \"bad name\" contains invalid character ' '; ") {
		t.Errorf("Error() = %q", err.Error())
	}

	// With a valid name the content problems are reported too.
	req.ZoneName = "example.com"
	_, err = req.Normalize(testNow)
	errors.As(err, &ve)
	got = map[string]bool{}
	for _, p := range ve.Problems {
		got[p.Field] = true
	}
	for _, f := range []string{"updateKeyName", "zoneConfig.ttl", "zoneConfig.soa.primaryNs", "zoneConfig.soa.adminEmail", "zoneConfig.nameServers[0]", "zoneConfig.alsoNotify[0]", "zoneConfig.allowTransfer[0]"} {
		if !got[f] {
			t.Errorf("missing problem for %s in %v", f, ve.Problems)
		}
	}
	if len(ve.Problems) < 7 {
		t.Errorf("want >= 7 problems, got %d: %s", len(ve.Problems), err)
	}
}

// TestHexDigestsInLowerCase: DS, CDS and TLSA data whose hex is in lower
// case (as dnssec-dsfromkey's peers and registries print it) are records
// like any other, where the round-trip check refused them as "does not
// make a complete record" because the digest is written in upper case.
func TestHexDigestsInLowerCase(t *testing.T) {
	for _, c := range []struct{ typ, value string }{
		{"DS", "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"},
		{"CDS", "44030 8 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"},
		{"TLSA", "3 1 1 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"},
		{"SSHFP", "4 2 d4c3d5552b8679faeebc317e5f048b614b2e5f607dc57f1553182d49ab2179f7"},
	} {
		rr, err := ParseRecord("example.com", 3600, "sub", c.typ, c.value, nil, nil, "f", "v")
		if err != nil || rr == nil || !strings.Contains(strings.ToLower(rr.String()), c.value) {
			t.Errorf("%s %s: %v, %v", c.typ, c.value, rr, err)
		}
	}
}
