package console

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/console"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testcaddy"
)

// TestSignInToken: with zone_api logging at trace, a token pasted at
// sign-in is sent only in the Authorization header: it is in no URL the
// page requested or showed, in no localStorage key or value, in no line
// of Caddy's logs; a 401 in the middle of an edit brings the sign-in
// back, and once signed in again the edit is applied (nothing lost);
// sign-out forgets the token. Every console answer carries the CSP and
// the other headers, and the page reported no violation.
func TestSignInToken(t *testing.T) {
	e := start(t, func(o *testcaddy.Options) { o.Env = append(o.Env, "RUST_LOG=trace") })
	e.createZone("signin.test", [3]string{"www", "A", "192.0.2.1"})
	tok := e.tok["admin"]
	e.openZone("admin", "signin.test", "records")
	e.docShot("zone")
	e.open("#/")
	e.waitText("za-overview", "Ready")
	e.docShot("overview")
	e.open("#/history")
	e.waitText("za-history", "zone.created")
	e.open("#/zones/signin.test/records")
	e.waitJS(`document.querySelector('za-zone')?.base?.size > 0`, "the zone's records")

	// A 401 for the apply: the API would answer so once the token is
	// revoked or expired.
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(e.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/v1/zones/signin.test/records"}}}); err != nil {
		t.Fatal(err)
	}
	go func() {
		refused := false
		for ev, err := range paused {
			if err != nil {
				return
			}
			if ev.Request.Method == "PATCH" && !refused {
				refused = true
				_, _ = chromedp.Call(ctx, fetch.FulfillRequest, fetch.FulfillRequestParams{RequestID: ev.RequestID, ResponseCode: 401,
					ResponseHeaders: []*fetch.HeaderEntry{{Name: "Content-Type", Value: "application/json"}, {Name: "WWW-Authenticate", Value: `Bearer realm="zone_api"`}},
					Body:            []byte(`{"error":"Unauthorized","message":"token expired"}`)})
				continue
			}
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
		}
	}()
	e.stageEdit("www A", "192.0.2.8")
	e.click("za-zone .pending button.primary")
	e.waitText("dialog.signin", "token expired")
	e.docShot("signin")
	e.want("www.signin.test", dns.TypeA, "192.0.2.1")
	e.typeToken("admin")
	e.run("waiting for the sign-in", waitSignedIn)
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("www.signin.test", dns.TypeA, "192.0.2.8")
	cancel()
	if _, err := chromedp.Call(e.ctx, fetch.Disable, struct{}{}); err != nil {
		t.Fatal(err)
	}

	// Where the token is, and is not.
	if !evalAs[bool](e, `sessionStorage.getItem('zoneapi.console.token') !== null`) {
		t.Error("the token is not in sessionStorage while signed in")
	}
	if ls := evalAs[string](e, `JSON.stringify(Object.entries(localStorage))`); strings.Contains(ls, tok) {
		t.Errorf("localStorage holds the token: %s", ls)
	}
	e.mu.Lock()
	urls := append([]string{evalAs[string](e, `location.href`)}, e.urls...)
	e.mu.Unlock()
	for _, u := range urls {
		if strings.Contains(u, tok) {
			t.Errorf("a URL holds the token: %s", u)
		}
	}
	if len(urls) < 10 {
		t.Errorf("only %d URLs seen: the check would prove nothing", len(urls))
	}
	e.click(".who button") // sign out
	e.waitJS(`document.querySelector('dialog.signin').open`, "the sign-in after sign-out")
	if s := evalAs[string](e, `JSON.stringify(Object.entries(sessionStorage)) + JSON.stringify(Object.entries(localStorage))`); strings.Contains(s, tok) {
		t.Errorf("the token is still stored after sign-out: %s", s)
	}

	// Caddy's logs, zone_api's at trace.
	e.cd.Stop()
	var debugLines int
	for _, name := range []string{e.cd.LogPath(), filepath.Join(e.cd.Dir, "caddy.stderr")} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, tok) {
				t.Errorf("%s has a line with the token: %s", name, line)
			}
			if strings.Contains(line, `"level":"debug"`) && strings.Contains(line, `"target":"http.handlers.zone_api`) {
				debugLines++
			}
		}
	}
	if debugLines == 0 {
		t.Error("caddy's log has no debug line of zone_api: RUST_LOG=trace did not take, and the check proves nothing")
	}

	// Headers of every console answer.
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.responses) < 8 {
		t.Errorf("%d console answers seen, want the page and its assets", len(e.responses))
	}
	for u, h := range e.responses {
		for k, want := range map[string]string{"content-security-policy": console.CSP, "x-content-type-options": "nosniff", "referrer-policy": "no-referrer"} {
			if got := header(h, k); got != want {
				t.Errorf("%s: %s %q, want %q", u, k, got, want)
			}
		}
	}
	e.mu.Unlock()
	e.noProblems()
	e.mu.Lock()
}

// header reads a header of a DevTools response, whatever its case.
func header(h map[string]any, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			s, _ := v.(string)
			return s
		}
	}
	return ""
}
