package integration

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestConfigReloadUnderLoad reloads Caddy's config through the admin API
// several times while clients keep sending requests over HTTP/2: none may
// fail.
func TestConfigReloadUnderLoad(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	expect(t, c.do("POST", "/api/v1/zones", zoneBody("reload.test")), http.StatusCreated, "create")

	var (
		stop     atomic.Bool
		ok, fail atomic.Int64
		wg       sync.WaitGroup
		firstErr atomic.Value
	)
	// HTTP/2, as HTTPS clients negotiate it: on a reload the old server
	// sends GOAWAY and the client moves to the new one. (Over HTTP/1.1, Go's
	// http.Server closes, without an answer, a connection whose request it
	// reads after its Shutdown began; see docs/operations.md.)
	tr := &http.Transport{Protocols: new(http.Protocols)}
	tr.Protocols.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 10 * time.Second, Transport: tr}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			paths := []string{"/api/v1/zones/reload.test", "/api/v1/zones", "/api/v1/health"}
			for n := 0; !stop.Load(); n++ {
				req, _ := http.NewRequest("GET", c.Base+paths[(n+i)%len(paths)], nil)
				req.Header.Set("Authorization", "Bearer "+testToken)
				resp, err := client.Do(req)
				if err != nil {
					fail.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != 200 {
					fail.Add(1)
					firstErr.CompareAndSwap(nil, fmt.Sprintf("status %d on %s", resp.StatusCode, req.URL.Path))
					continue
				}
				ok.Add(1)
			}
		}(i)
	}

	for i := 0; i < 5; i++ {
		time.Sleep(150 * time.Millisecond)
		cfg := c.Caddyfile(fmt.Sprintf("%ds", 5+i)) // a real change each time
		req, _ := http.NewRequest("POST", "http://"+c.AdminAddr+"/load", strings.NewReader(cfg))
		req.Header.Set("Content-Type", "text/caddyfile")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("reload %d: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("reload %d: status %d", i, resp.StatusCode)
		}
	}
	time.Sleep(150 * time.Millisecond)
	stop.Store(true)
	wg.Wait()
	if fail.Load() != 0 {
		t.Fatalf("%d of %d requests failed during reloads; first: %v", fail.Load(), ok.Load()+fail.Load(), firstErr.Load())
	}
	if ok.Load() < 50 {
		t.Fatalf("only %d requests ran during the reloads", ok.Load())
	}
	t.Logf("%d requests, 5 reloads, 0 failures", ok.Load())
}

// TestListPaging creates zones of both types and pages through them.
func TestListPaging(t *testing.T) {
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	var want []string
	for i := 0; i < 7; i++ {
		z := fmt.Sprintf("p%02d.test", i)
		want = append(want, z)
		expect(t, c.do("POST", "/api/v1/zones", zoneBody(z)), http.StatusCreated, "create "+z)
	}
	sec := map[string]any{"zoneName": "sec.test", "zoneType": "secondary", "zoneConfig": map[string]any{"primaries": []string{"192.0.2.1"}}}
	expect(t, c.do("POST", "/api/v1/zones", sec), http.StatusCreated, "create secondary")

	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		if pages > 10 {
			t.Fatal("paging does not end")
		}
		r := c.do("GET", "/api/v1/zones?type=primary&limit=3&cursor="+cursor, nil)
		expect(t, r, 200, "list page")
		for _, z := range r.body["zones"].([]any) {
			got = append(got, z.(string))
		}
		if r.body["total"] != float64(7) {
			t.Errorf("total = %v, want 7", r.body["total"])
		}
		cursor = r.str("nextCursor")
		if cursor == "" {
			break
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("paged list = %v, want %v", got, want)
	}
	r := c.do("GET", "/api/v1/zones?type=secondary", nil)
	if zs := r.body["zones"].([]any); len(zs) != 1 || zs[0] != "sec.test" {
		t.Errorf("secondary list: %s", r.raw)
	}
	r = c.do("GET", "/api/v1/zones/sec.test", nil)
	expect(t, r, 200, "get secondary")
	if r.str("zoneType") != "secondary" {
		t.Errorf("secondary get: %s", r.raw)
	}
	for _, q := range []string{"limit=0", "limit=1001", "limit=x", "type=master"} {
		expect(t, c.do("GET", "/api/v1/zones?"+q, nil), 400, q)
	}
}
