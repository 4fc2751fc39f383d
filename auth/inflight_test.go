package auth

import (
	"net/http/httptest"
	"testing"
)

// TestExpensiveReadsInFlight: an identity has at most MaxExpensiveReads
// expensive reads in flight; the next is a 429 with Retry-After until
// one is released; a release counts once; other identities, and
// anonymous requests per address, have slots of their own.
func TestExpensiveReadsInFlight(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	a, b := &Identity{ID: "static:a"}, &Identity{ID: "static:b"}
	g := &Guard{}
	var held []func()
	for range MaxExpensiveReads {
		release, rej := g.AcquireExpensiveRead(r, a)
		if rej != nil {
			t.Fatalf("refused under the limit: %+v", rej)
		}
		held = append(held, release)
	}
	_, rej := g.AcquireExpensiveRead(r, a)
	if rej == nil || rej.Status != 429 || rej.RetryAfter < 1 {
		t.Fatalf("over the limit: %+v, want a 429 with Retry-After", rej)
	}
	if release, rej := g.AcquireExpensiveRead(r, b); rej != nil {
		t.Fatalf("another identity refused: %+v", rej)
	} else {
		release()
	}
	if release, rej := g.AcquireExpensiveRead(r, anonymous); rej != nil {
		t.Fatalf("an anonymous request refused: %+v", rej)
	} else {
		release()
	}
	held[0]()
	held[0]() // a second release gives nothing back
	release, rej := g.AcquireExpensiveRead(r, a)
	if rej != nil {
		t.Fatalf("refused after a release: %+v", rej)
	}
	if _, rej := g.AcquireExpensiveRead(r, a); rej == nil {
		t.Fatal("a double release freed two slots")
	}
	release()
	for _, h := range held[1:] {
		h()
	}
	if n := len(g.limits().reads.n); n != 0 {
		t.Errorf("%d subjects left in the table after every release", n)
	}
}
