package rndc

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestObserve: every command, typed helpers included, reaches the Observe
// hook once with its verb, zone, output and error.
func TestObserve(t *testing.T) {
	key := testKey(t, HMACSHA256)
	ctx := context.Background()
	var got []CommandEvent
	observe := func(_ context.Context, e CommandEvent) { got = append(got, e) }

	ok := newFake(t, key, "ok")
	c := &Client{Addr: ok.addr(), Key: key, Timeout: 2 * time.Second, Observe: observe}
	if _, err := c.Status(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.DelZone(ctx, "example.com", true); err != nil {
		t.Fatal(err)
	}
	if _, err := c.AddZone(ctx, primaryStatement("a.test", "a.test.zone")); err != nil {
		t.Fatal(err)
	}
	bad := newFake(t, key, "close")
	c2 := &Client{Addr: bad.addr(), Key: key, Timeout: 2 * time.Second, Observe: observe}
	_, failed := c2.Thaw(ctx, "b.test")

	want := []CommandEvent{
		{Verb: "status", Output: "ok status"},
		{Verb: "delzone", Zone: "example.com", Output: "ok delzone -clean example.com"},
		{Verb: "addzone", Zone: "a.test", Output: `ok addzone a.test { type primary; file "a.test.zone"; };`},
		{Verb: "thaw", Zone: "b.test", Err: failed},
	}
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Verb != w.Verb || g.Zone != w.Zone || g.Output != w.Output || !errors.Is(g.Err, w.Err) || (w.Err == nil) != (g.Err == nil) {
			t.Errorf("event %d = %+v, want %+v", i, g, w)
		}
		if g.Duration <= 0 {
			t.Errorf("event %d has no duration", i)
		}
	}
	if !errors.Is(failed, ErrAuth) {
		t.Errorf("thaw against a closing server: %v", failed)
	}
}
