package powerdns

import "testing"

func TestZoneID(t *testing.T) {
	for _, tc := range []struct{ name, id string }{
		{"example.com", "example.com."},
		{"example.com.", "example.com."},
		{"foo/bar.example.com", "foo=2Fbar.example.com."},
		{"_tcp.example.com", "=5Ftcp.example.com."},
		{"0/24.2.0.192.in-addr.arpa", "0=2F24.2.0.192.in-addr.arpa."},
		{".", "=2E"},
		{"", "=2E"},
	} {
		if got := ZoneID(tc.name); got != tc.id {
			t.Errorf("ZoneID(%q) = %q, want %q", tc.name, got, tc.id)
		}
		want := FQDN(tc.name)
		if got := ZoneName(tc.id); FQDN(got) != want {
			t.Errorf("ZoneName(%q) = %q, want %q", tc.id, got, want)
		}
	}
	// Ids need no trailing dot, and a stray '=' stays.
	for id, want := range map[string]string{"example.com": "example.com", "a=b.example.": "a=b.example.", "x=2": "x=2"} {
		if got := ZoneName(id); got != want {
			t.Errorf("ZoneName(%q) = %q, want %q", id, got, want)
		}
	}
}

func TestKinds(t *testing.T) {
	for kind, want := range map[string]string{
		"": BINDPrimary, "Native": BINDPrimary, "Master": BINDPrimary, "Primary": BINDPrimary, "MASTER": BINDPrimary,
		"Slave": BINDSecondary, "Secondary": BINDSecondary, "slave": BINDSecondary,
	} {
		got, err := BINDType(kind)
		if err != nil || got != want {
			t.Errorf("BINDType(%q) = %q, %v; want %q", kind, got, err, want)
		}
	}
	for _, kind := range []string{"Producer", "Consumer", "Forwarded", "x"} {
		if _, err := BINDType(kind); err == nil {
			t.Errorf("BINDType(%q) accepted", kind)
		}
	}
	if Kind("primary") != KindMaster || Kind("secondary") != KindSlave || Kind("master") != KindMaster {
		t.Error("Kind does not map BIND types onto Master and Slave")
	}
}

func TestCanonicalName(t *testing.T) {
	for name, want := range map[string]string{
		"Example.COM.": "example.com.", "_acme-challenge.example.com.": "_acme-challenge.example.com.",
		"*.example.com.": "*.example.com.", ".": ".", "foo/bar.example.": "foo/bar.example.",
	} {
		got, err := CanonicalName(name)
		if err != nil || got != want {
			t.Errorf("CanonicalName(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for name, msg := range map[string]string{
		"example.com": "is not canonical", "": "is not canonical", "test..example.": "Unable to parse DNS Name",
		"test:x.example.": "contains unsupported characters", "a b.example.": "contains unsupported characters",
	} {
		_, err := CanonicalName(name)
		if err == nil || !contains(err.Error(), msg) {
			t.Errorf("CanonicalName(%q) = %v, want an error with %q", name, err, msg)
		}
	}
	if !InZone("www.example.com.", "example.com") || !InZone("example.com.", "example.com.") || InZone("notexample.com.", "example.com") || InZone("not-in-zone.", "example.com") {
		t.Error("InZone")
	}
}

func contains(s, sub string) bool {
	return len(sub) == 0 || len(s) >= len(sub) && (s[:len(sub)] == sub || contains(s[1:], sub))
}

// TestDefaultMailbox: PowerDNS's default SOA names hostmaster.<zone>;
// for a zone named with '/' (whose hostmaster.<zone> named's check-names
// refuses) the nearest enclosing name without '/'. Failed before: the
// default SOA was always hostmaster.<zone>.
func TestDefaultMailbox(t *testing.T) {
	for name, want := range map[string]string{
		"example.com.":               "hostmaster.example.com.",
		"example.com":                "hostmaster.example.com.",
		".":                          "hostmaster.",
		"0/25.2.0.192.in-addr.arpa.": "hostmaster.2.0.192.in-addr.arpa.",
		"foo/bar.x/y.example.":       "hostmaster.example.",
		"a/b.":                       "hostmaster.",
	} {
		if got := DefaultMailbox(name); got != want {
			t.Errorf("DefaultMailbox(%q) = %q, want %q", name, got, want)
		}
	}
	if m := defaultSOA("0/25.2.0.192.in-addr.arpa.", nil).AdminEmail; m != "hostmaster.2.0.192.in-addr.arpa." {
		t.Errorf("defaultSOA's mailbox = %q", m)
	}
}
