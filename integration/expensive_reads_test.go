package integration

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestExpensiveReadsBounded: a read-only token cannot make Caddy hold
// answers of any size (issue 25, defect 3). On a zone of 30,000 records,
// a PowerDNS search with max over MaxSearchResults (10,000) is 422
// before anything is read (before: 24 parallel max=1000000 searches of
// 15 MB each took Caddy from 190 MiB to 1.1 GiB); max=10000 answers at
// most 10,000 results; and of 24 parallel searches, exports and lists of
// every zone by one token, at most auth.MaxExpensiveReads (4) run at
// once: the others are 429 with Retry-After and the error body. Caddy's
// resident size before and after each burst is logged (figures for
// docs, not asserted).
func TestExpensiveReadsBounded(t *testing.T) {
	ns := startNamed(t)
	tok, hash := tokens(t, "admin", "ro")
	c := startCaddy(t, ns, caddyOpts{handle: "/api*", extra: fmt.Sprintf(`powerdns
			auth static {
				token admin %s
				token ro %s {
					actions read
				}
			}`, hash["admin"], hash["ro"])})
	const zone = "many.test"
	r := c.send("POST", "/api/v1/zones/"+zone+"/import", "$ORIGIN "+zone+".\n"+bigZoneBody(30_000),
		map[string]string{"Content-Type": "text/dns", "Authorization": "Bearer " + tok["admin"]})
	expect(t, r, http.StatusCreated, "import of 30,000 records")
	rss := func(what string) {
		if p := c.Process(); p != nil {
			t.Logf("caddy VmRSS %s: %.0f MiB", what, rssKB(p.Pid)/1024)
		}
	}
	rss("after the import")

	search := "/api/v1/servers/localhost/search-data?q=*&max="
	pdnsError(t, c.pdns(tok["ro"], "GET", search+"1000000", nil), http.StatusUnprocessableEntity, "over 10000")
	r = c.pdns(tok["ro"], "GET", search+"10000", nil)
	expect(t, r, http.StatusOK, "a search of max=10000")
	var results []any
	if err := json.Unmarshal(r.raw, &results); err != nil || len(results) != 10000 {
		t.Fatalf("the search answered %d results (%v), want 10000", len(results), err)
	}

	burst := func(path string, pdns bool) (ok, refused int) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		start := make(chan struct{})
		for range 24 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var r *response
				if pdns {
					r = c.pdns(tok["ro"], "GET", path, nil)
				} else {
					r = c.as(tok["ro"], "GET", path, nil)
				}
				mu.Lock()
				defer mu.Unlock()
				switch r.status {
				case http.StatusOK:
					ok++
				case http.StatusUnprocessableEntity:
					if !strings.HasSuffix(path, "max=1000000") {
						t.Errorf("GET %s: %d %s", path, r.status, r.raw)
					}
				case http.StatusTooManyRequests:
					refused++
					if r.header.Get("Retry-After") == "" || !json429(r, pdns) {
						t.Errorf("GET %s: 429 without Retry-After or the error body: %v %s", path, r.header, r.raw)
					}
				default:
					t.Errorf("GET %s: %d %s", path, r.status, r.raw)
				}
			}()
		}
		close(start)
		wg.Wait()
		return ok, refused
	}
	for _, b := range []struct {
		path string
		pdns bool
	}{
		{search + "1000000", true},
		{search + "10000", true},
		{"/api/v1/servers/localhost/zones/" + zone + "./export", true},
		{"/api/v1/zones/" + zone + "/export", false},
	} {
		// The burst is sent again (up to 5 times) while the machine
		// happens to serve every request before the next arrives.
		for try := 1; ; try++ {
			ok, refused := burst(b.path, b.pdns)
			rss("after 24 parallel GET " + b.path)
			t.Logf("GET %s ×24: %d answered, %d refused", b.path, ok, refused)
			if b.path == search+"1000000" {
				break // all 422, checked by burst
			}
			if refused > 0 || try == 5 {
				if refused == 0 {
					t.Errorf("GET %s: 24 parallel requests of one token were never limited in 5 bursts", b.path)
				}
				break
			}
		}
	}
}

// json429 reports whether a 429's body is the API's error body: PowerDNS's
// {"error": …} on its routes, {"error": "Too Many Requests", "message": …}
// on the zone API's.
func json429(r *response, pdns bool) bool {
	if pdns {
		return len(r.body) == 1 && strings.Contains(r.str("error"), "in flight")
	}
	return r.str("error") == "Too Many Requests" && strings.Contains(r.str("message"), "in flight")
}
