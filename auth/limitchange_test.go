package auth

import (
	"testing"
	"time"

	"github.com/caddyserver/caddy/v2"
	"go.uber.org/zap"
)

// TestReloadLoweringLimitKeepsExhaustion: an identity that has spent its
// burst under rate_limit 3 1h, after a reload that lowers the limit to
// 2 1h (an operator tightening it against that very identity), is still
// limited: it spent more than the new limit allows in the hour. It
// fails on main at 72f1acb: the bucket's key holds the limit's rate and
// burst, so the lowered limit starts a full new bucket and the identity
// gets 2 more requests at once (5 in the hour where either limit allows
// at most 3).
func TestReloadLoweringLimitKeepsExhaustion(t *testing.T) {
	t.Skip("finding: a reload that changes a rate limit gives every subject a full new bucket (bucket key = kind, rate, burst, subject); keeping the spent tokens needs a design decision (two handlers with different limits share the pool). Route: lead (auth)")
	guard := func(requests int) *Guard {
		return &Guard{Disabled: true, PerIdentity: &RateLimit{Requests: requests, Interval: caddy.Duration(time.Hour)}, Log: zap.NewNop(), Limits: AcquireLimits()}
	}
	const ip = "192.0.2.91"
	old := guard(3)
	for i := range 3 {
		if _, rej := old.Check(guardReq(ip, "")); rej != nil {
			t.Fatalf("request %d within the burst: %+v", i, rej)
		}
	}
	if _, rej := old.Check(guardReq(ip, "")); rej == nil || rej.Status != 429 {
		t.Fatalf("fourth request: %+v, want 429", rej)
	}
	lowered := guard(2) // the reload, before the old generation's release
	old.Release()
	defer lowered.Release()
	if _, rej := lowered.Check(guardReq(ip, "")); rej == nil || rej.Status != 429 {
		t.Errorf("after a reload lowering the limit to 2/h: %+v, want 429 (3 spent this hour)", rej)
	}
}
