package module

import (
	"net/http"
	"testing"
)

// An HTTP request cannot claim the local identity: only the context key
// set in process does.
func TestLocalIdentityOnlyInProcess(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://x/api/v1/zones", nil)
	req.Header.Set("X-Zone-Api-Local", "true")
	if localIdentity(req) != nil {
		t.Fatal("a plain request got the local identity")
	}
}
