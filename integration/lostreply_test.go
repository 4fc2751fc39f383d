package integration

import (
	"context"
	"strings"
	"testing"
)

// The defects of issue 18, each reproduced exactly against a real named
// and caddy: a proxy on the control channel or the DNS port that loses
// named's reply, a zone directory whose disk is full at the compaction, a
// journal named left empty when it was killed as it created it, a
// secondary that cached its primary as unreachable.

// newProxiedRig starts named, a control-channel proxy in front of it and
// caddy talking to named through the proxy.
func newProxiedRig(t *testing.T, rndcTimeout, extra string) (*crashRig, *ctlProxy) {
	ns := startNamed(t)
	p := newCtlProxy(t, ns.ControlAddr)
	return newCrashRigOn(t, ns, rndcTimeout, caddyOpts{control: p.addr(), extra: extra}), p
}

// TestLostControlReplyAnswers504: named executes a zone PATCH (modzone),
// freeze, thaw, notify or reload but its reply is lost: the answer is 504
// "outcome unknown" saying how to learn the outcome, as for create and
// delete (before: 500 "rndc modzone failed … the command was sent but
// named did not answer"). Each command reaches named once: the rndc
// client used to send a command again when its reused connection closed
// after the command was written (7 lost replies for these 5 commands).
func TestLostControlReplyAnswers504(t *testing.T) {
	r, p := newProxiedRig(t, "3s", "")
	// The restart watch's first look sends rndc notify for every zone:
	// had it come while notify's reply is lost (a slow run), named would
	// have been sent two.
	waitFirstLook(t, r.c)
	const zone = "lostreply.test"
	r.must("POST", "/api/v1/zones", zoneBody(zone), 201)

	check := func(verb, method, path string, body any) {
		t.Helper()
		p.lose(verb)
		defer p.lose()
		before := p.picked.Load()
		st, m, raw := r.try(method, path, body)
		if n := p.picked.Load() - before; n != 1 {
			t.Errorf("%s with its reply lost: named was sent it %d times, want once (a copy sent again may execute twice)", verb, n)
		}
		if st != 504 || m["error"] != "Gateway Timeout" || !strings.Contains(raw, "outcome is unknown") || !strings.Contains(raw, "GET /api/v1/zones/"+zone) {
			t.Errorf("%s with its reply lost: %d %s, want 504 saying the outcome is unknown and how to learn it", verb, st, raw)
		}
	}
	check("modzone", "PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{"192.0.2.7"}})
	// named executed it.
	zc, err := r.rc.ShowZoneStatement(context.Background(), zone)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := zc.Get("also-notify"); !strings.Contains(v.String(), "192.0.2.7") {
		t.Errorf("modzone was not executed: %s", zc.String())
	}
	check("freeze", "POST", "/api/v1/zones/"+zone+"/freeze", nil)
	check("thaw", "POST", "/api/v1/zones/"+zone+"/thaw", nil)
	check("notify", "POST", "/api/v1/zones/"+zone+"/notify", nil)
	check("reload", "POST", "/api/v1/zones/"+zone+"/reload", nil)
	if n := p.lost.Load(); n != 5 {
		t.Errorf("%d replies lost for 5 commands, want 5 (one each, none sent again)", n)
	}
	// Nothing is stuck: the same requests now answer.
	r.must("PATCH", "/api/v1/zones/"+zone, map[string]any{"alsoNotify": []string{"192.0.2.8"}}, 200)
	r.must("DELETE", "/api/v1/zones/"+zone, nil, 200)
}
