package localcall

import (
	"errors"
	"io"
	"net/http"
	"testing"
)

// Without a registered server, Transport says so instead of sending
// anything anywhere.
func TestTransportWithoutServer(t *testing.T) {
	saved := swap(nil)
	defer swap(saved)
	req, _ := http.NewRequest(http.MethodGet, "http://zone-api.local/api/v1/health", nil)
	if _, err := Transport().RoundTrip(req); !errors.Is(err, ErrNoServer) {
		t.Fatalf("err = %v, want ErrNoServer", err)
	}
}

type fakeServer struct{ name string }

func (f *fakeServer) ServeLocal(w http.ResponseWriter, r *http.Request) error {
	if !IsLocal(r) {
		return errors.New("not marked local")
	}
	w.WriteHeader(http.StatusTeapot)
	_, err := io.WriteString(w, f.name)
	return err
}

// The most recently registered server answers; unregistering it makes the
// one before current again, as a config reload does.
func TestTransportUsesCurrentServer(t *testing.T) {
	saved := swap(nil)
	defer swap(saved)
	a, b := &fakeServer{"a"}, &fakeServer{"b"}
	Register(a)
	Register(b)
	get := func() string {
		req, _ := http.NewRequest(http.MethodGet, "http://zone-api.local/x", nil)
		resp, err := Transport().RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusTeapot {
			t.Fatalf("status %d", resp.StatusCode)
		}
		body, _ := io.ReadAll(resp.Body)
		return string(body)
	}
	if got := get(); got != "b" {
		t.Fatalf("got %q, want b", got)
	}
	Unregister(b)
	if got := get(); got != "a" {
		t.Fatalf("got %q, want a", got)
	}
}

// An HTTP request cannot claim to be local: only the context key set in
// process does.
func TestIsLocalOnlyInProcess(t *testing.T) {
	req, _ := http.NewRequest(http.MethodGet, "http://x/api/v1/zones", nil)
	req.Header.Set("X-Zone-Api-Local", "true")
	if IsLocal(req) {
		t.Fatal("a plain request is local")
	}
}
