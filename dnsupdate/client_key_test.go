package dnsupdate

import (
	"strings"
	"testing"
	"time"
)

// TestNewClientRefusesBadKeys: a key whose secret is not base64 or whose
// name is not a domain name is refused when the client is made, before
// anything is sent (an AXFR import's key comes from the client).
func TestNewClientRefusesBadKeys(t *testing.T) {
	for _, c := range []struct {
		key  TSIGKey
		want string
	}{
		{TSIGKey{Name: "k", Algorithm: "hmac-sha256", Secret: "not base64!"}, "not base64"},
		{TSIGKey{Name: "k", Algorithm: "hmac-sha256", Secret: ""}, "not base64"},
		{TSIGKey{Name: "k", Algorithm: "hmac-sha256", Secret: "c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0"[:31]}, "not base64"},
		{TSIGKey{Name: "a..b", Algorithm: "hmac-sha256", Secret: testSecret}, "not a domain name"},
		{TSIGKey{Name: "k", Algorithm: "hmac-sha3", Secret: testSecret}, "unsupported algorithm"},
		{TSIGKey{Name: "transfer-key", Algorithm: "hmac-sha256", Secret: testSecret}, ""},
	} {
		_, err := NewClient("127.0.0.1:53", &c.key, time.Second)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("NewClient with %+v: %v, want %q", c.key, err, c.want)
		}
	}
}
