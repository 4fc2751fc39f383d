package module

import (
	"errors"
	"net/http"
	"testing"
)

// Without a provisioned handler, LocalTransport says so instead of
// sending anything anywhere.
func TestLocalTransportWithoutHandler(t *testing.T) {
	localMu.Lock()
	saved := localHandlers
	localHandlers = nil
	localMu.Unlock()
	defer func() { localMu.Lock(); localHandlers = saved; localMu.Unlock() }()
	req, _ := http.NewRequest(http.MethodGet, "http://zone-api.local/api/v1/health", nil)
	if _, err := LocalTransport().RoundTrip(req); !errors.Is(err, ErrNoLocalHandler) {
		t.Fatalf("err = %v, want ErrNoLocalHandler", err)
	}
}

// An HTTP request cannot claim the local identity: only the context key
// set in process does.
func TestLocalIdentityOnlyInProcess(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://x/api/v1/zones", nil)
	req.Header.Set("X-Zone-Api-Local", "true")
	if localIdentity(req) != nil {
		t.Fatal("a plain request got the local identity")
	}
}
