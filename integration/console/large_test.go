package console

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/fetch"
	"github.com/chromedp/chromedp"
	"github.com/miekg/dns"
)

// TestLargeZoneJourney: a zone of 2,500 RRsets (three pages of the API)
// shows its first rows, filterable, as soon as the first page is read,
// while the rest is still being read (held here through the DevTools
// Fetch domain); applying waits for the whole zone. Once read, the filter
// finds an RRset of the last page, "Show more rows" shows 50 more, and a
// deletion staged during the read is applied: named no longer serves it.
// Fails on a console that shows nothing until the whole zone is read.
func TestLargeZoneJourney(t *testing.T) {
	e := start(t)
	e.createZone("large.test")
	for i := 0; i < 2500; i += 500 {
		var cs []any
		for j := i; j < i+500; j++ {
			cs = append(cs, map[string]any{"op": "add", "name": fmt.Sprintf("r%05d", j), "type": "A", "ttl": 300, "value": fmt.Sprintf("10.0.%d.%d", j>>8, j&255)})
		}
		if st, body := e.api("admin", "PATCH", "/api/v1/zones/large.test/records", map[string]any{"changes": cs}); st != 200 {
			t.Fatalf("records: %d %v", st, body)
		}
	}
	e.want("r00001.large.test", dns.TypeA, "10.0.0.1")
	e.signIn("admin")

	// Hold every page after the first.
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	paused := chromedp.Events(ctx, fetch.RequestPaused)
	if _, err := chromedp.Call(e.ctx, fetch.Enable, fetch.EnableParams{Patterns: []*fetch.RequestPattern{{URLPattern: "*/api/v1/zones/large.test/records?*cursor=*"}}}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []fetch.RequestID
	released := false
	go func() {
		for ev, err := range paused {
			if err != nil {
				return
			}
			mu.Lock()
			if released {
				_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: ev.RequestID})
			} else {
				held = append(held, ev.RequestID)
			}
			mu.Unlock()
		}
	}()
	release := func() {
		mu.Lock()
		defer mu.Unlock()
		released = true
		for _, id := range held {
			_, _ = chromedp.Call(ctx, fetch.ContinueRequest, fetch.ContinueRequestParams{RequestID: id})
		}
	}
	e.open("#/zones/large.test/records")
	e.waitJS(`document.querySelectorAll('za-zone .records tbody tr').length === 50`, "the first 50 rows while the zone is read")
	e.waitText("za-zone .records [role=status]", "Reading the zone: 1000 RRsets so far")
	e.fill("za-zone input[type=search]", "r00001")
	e.waitJS(`document.querySelectorAll('za-zone .records tbody tr').length === 1`, "the filter on the RRsets read")
	e.click(`za-zone button[aria-label="Delete r00001 A"]`)
	e.waitText("za-zone .pending", "Pending changes (1)")
	if !evalAs[bool](e, `document.querySelector('za-zone .pending button.primary').disabled`) {
		t.Error("Apply is enabled before the whole zone is read")
	}
	e.fill("za-zone input[type=search]", "r02400")
	e.waitJS(`document.querySelectorAll('za-zone .records tbody tr').length === 0`, "no row of an RRset not read yet")
	release()

	e.waitJS(`document.querySelector('za-zone').loading === false && document.querySelectorAll('za-zone .records tbody tr').length === 1`, "r02400 found once the zone is read")
	e.waitText("za-zone .records tbody", "10.0.9.96")
	e.fill("za-zone input[type=search]", "r0")
	e.waitJS(`document.querySelectorAll('za-zone .records tbody tr').length === 50`, "50 rows of the filter")
	e.click("za-zone .records button.more")
	e.waitJS(`document.querySelectorAll('za-zone .records tbody tr').length === 100`, "100 rows after Show more rows")
	e.click("za-zone .pending button.primary")
	e.waitText("za-zone .notice", "Applied 1 change")
	e.want("r00001.large.test", dns.TypeA)
	e.want("r02400.large.test", dns.TypeA, "10.0.9.96")
	e.noProblems()
	cancel()
	if _, err := chromedp.Call(e.ctx, fetch.Disable, struct{}{}); err != nil {
		t.Fatal(err)
	}
}
