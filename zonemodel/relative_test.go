package zonemodel

import "testing"

func TestHasRelativeNames(t *testing.T) {
	for _, tc := range []struct {
		typ, value string
		want       bool
	}{
		{"MX", "10 mail.example.org.", false},
		{"MX", "10 mail", true},
		{"CNAME", "target.example.com", true},
		{"CNAME", "target.example.com.", false},
		{"SRV", "0 5 5060 sip.example.com.", false},
		{"SRV", "0 5 5060 sip", true},
		{"NS", "ns1.example.net.", false},
		{"TXT", `"mail"`, false},
		{"TXT", "mail", false},
		{"A", "192.0.2.1", false},
		{"CAA", `0 issue "letsencrypt.org"`, false},
		{"MX", "not valid", false},
	} {
		if got := HasRelativeNames(tc.typ, tc.value); got != tc.want {
			t.Errorf("HasRelativeNames(%s, %q) = %v, want %v", tc.typ, tc.value, got, tc.want)
		}
	}
}
