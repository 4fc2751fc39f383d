package zoneservice

import (
	"testing"

	"github.com/miekg/dns"
)

func TestKeyBits(t *testing.T) {
	for _, tc := range []struct {
		rr   string
		bits int
	}{
		{"example. 3600 IN DNSKEY 257 3 13 OoFPZsZOthRFG2HbsEpKjT8HFlhRNj5ES6cBA/yanvBtFZWGVunQW66QWi5b2IEldYnPybDkL/freEbBGiY6oQ==", 256},
		// RFC 5702 section 6.1's 512-bit RSA/SHA-256 key.
		{"example.net. 3600 IN DNSKEY 256 3 8 AwEAAcFcGsaxxdgiuuGmCkVImy4h99CqT7jwY3pexPGcnUFtR2Fh36BponcwtkZ4cAgtvd4Qs8PkxUdp6p/DlUmObdk=", 512},
	} {
		rr, err := dns.NewRR(tc.rr)
		if err != nil {
			t.Fatal(err)
		}
		if got := keyBits(rr.(*dns.DNSKEY)); got != tc.bits {
			t.Errorf("keyBits(%s) = %d, want %d", tc.rr, got, tc.bits)
		}
	}
}
