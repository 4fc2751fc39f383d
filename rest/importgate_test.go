package rest

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestImportGate: an identity runs at most perIdentity imports at once
// (429 past it), all identities at most total (503), both with
// Retry-After; a release makes room again, once however often it is
// called.
func TestImportGate(t *testing.T) {
	g := NewImportGate(3, 2, nil)
	a1, err1 := g.Enter("a")
	_, err2 := g.Enter("a")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	status := func(err error) int {
		t.Helper()
		var busy *ImportsBusy
		if !errors.As(err, &busy) {
			t.Fatalf("err = %v, want an *ImportsBusy", err)
		}
		w := httptest.NewRecorder()
		busy.failure().Write(w)
		if w.Header().Get("Retry-After") != "5" {
			t.Errorf("Retry-After %q", w.Header().Get("Retry-After"))
		}
		return w.Code
	}
	if _, err := g.Enter("a"); status(err) != http.StatusTooManyRequests {
		t.Error("a's third import is not 429")
	}
	if _, err := g.Enter("b"); err != nil {
		t.Fatal(err)
	}
	if _, err := g.Enter("c"); status(err) != http.StatusServiceUnavailable {
		t.Error("the fourth import in all is not 503")
	}
	a1()
	a1()
	if _, err := g.Enter("c"); err != nil {
		t.Fatalf("after a release: %v", err)
	}
	if _, err := g.Enter("d"); status(err) != http.StatusServiceUnavailable {
		t.Error("a second release made room twice")
	}
}
