package auth

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// TestLimitsHandedOverAndFreed: the Guards of two configuration
// generations that hold the process's Limits (AcquireLimits) share their
// buckets and expensive reads, so a reload that provisions the new Guard
// before it releases the old one keeps them; once the last Guard has
// released them, the next Guard starts afresh (before, the buckets were a
// package table that no Guard owned, kept for the life of the process).
func TestLimitsHandedOverAndFreed(t *testing.T) {
	limit := &RateLimit{Requests: 1, Interval: caddy.Duration(time.Hour)}
	guard := func() *Guard {
		return &Guard{Disabled: true, PerIdentity: limit, Log: zap.NewNop(), Limits: AcquireLimits()}
	}
	const ip = "192.0.2.80"
	old := guard()
	if _, rej := old.Check(guardReq(ip, "")); rej != nil {
		t.Fatalf("first request: %+v", rej)
	}
	r := guardReq(ip, "")
	read, rej := old.AcquireExpensiveRead(r, nil)
	if rej != nil {
		t.Fatal(rej)
	}
	reloaded := guard() // the new generation, before the old one's release
	old.Release()
	old.Release() // a second release gives nothing back
	if _, rej := reloaded.Check(guardReq(ip, "")); rej == nil || rej.Status != 429 {
		t.Fatalf("after a reload that keeps the limit: %+v, want the old generation's bucket (429)", rej)
	}
	for range MaxExpensiveReads - 1 {
		if _, rej := reloaded.AcquireExpensiveRead(r, nil); rej != nil {
			t.Fatalf("expensive read refused under the limit: %+v", rej)
		}
	}
	if _, rej := reloaded.AcquireExpensiveRead(r, nil); rej == nil {
		t.Fatal("the old generation's read in flight was forgotten by the new one")
	}
	read()
	reloaded.Release()
	if n, ok := limitsPool.References(limitsKey); ok {
		t.Fatalf("%d references to the limits after every Guard released them", n)
	}
	fresh := guard()
	defer fresh.Release()
	if _, rej := fresh.Check(guardReq(ip, "")); rej != nil {
		t.Errorf("a Guard after every other released the limits: %+v, want a new bucket", rej)
	}
}

// TestGuardWithoutLimits: a Guard given no Limits makes its own, which
// a Release leaves alone (it is not the pool's).
func TestGuardWithoutLimits(t *testing.T) {
	g := &Guard{Disabled: true, PerIdentity: &RateLimit{Requests: 1, Interval: caddy.Duration(time.Hour)}, Log: zap.NewNop()}
	if _, rej := g.Check(guardReq("192.0.2.81", "")); rej != nil {
		t.Fatal(rej)
	}
	g.Release()
	if _, rej := g.Check(guardReq("192.0.2.81", "")); rej == nil || rej.Status != 429 {
		t.Fatalf("second request: %+v, want 429", rej)
	}
	if _, ok := limitsPool.References(limitsKey); ok {
		t.Error("a Guard without Limits took a reference to the pool's")
	}
}
