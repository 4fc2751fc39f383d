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

// TestLimitNamesKeepSeparateBuckets: Guards of different names (the
// module's handlers on different zone directories) keep separate
// buckets of one subject in the process's Limits, even under the same
// limit, while a Guard of the same name shares them. It failed before
// the buckets were keyed by LimitName: the bucket's key was the limit's
// kind, rate, burst and subject, so two handlers with the same limit
// shared each subject's bucket.
func TestLimitNamesKeepSeparateBuckets(t *testing.T) {
	guard := func(name string) *Guard {
		return &Guard{Disabled: true, PerIdentity: &RateLimit{Requests: 2, Interval: caddy.Duration(time.Hour)},
			Log: zap.NewNop(), Limits: AcquireLimits(), LimitName: name}
	}
	const ip = "192.0.2.92"
	a, b, a2 := guard("/zones/a"), guard("/zones/b"), guard("/zones/a")
	defer a.Release()
	defer b.Release()
	defer a2.Release()
	for i := range 2 {
		if _, rej := a.Check(guardReq(ip, "")); rej != nil {
			t.Fatalf("request %d within the burst: %+v", i, rej)
		}
	}
	if _, rej := a2.Check(guardReq(ip, "")); rej == nil || rej.Status != 429 {
		t.Errorf("a Guard of the same name after the burst: %+v, want 429", rej)
	}
	if _, rej := b.Check(guardReq(ip, "")); rej != nil {
		t.Errorf("a Guard of another name after the first's burst: %+v, want its own bucket", rej)
	}
}
