package console

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// benchSize reads a size from the environment, or the default.
func benchSize(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// BenchmarkConsole measures the console in the real browser against the
// same run's API: the bytes of the first load (as sent, and gzipped as
// an encode directive would send them), the time from navigation to a
// usable zone list of ZONEAPI_BENCH_ZONES zones (default 1,000) against
// the time a Go client takes to read that list from the API, the same
// for the page of a zone of ZONEAPI_BENCH_RECORDS records (default
// 50,000) against reading its records, and the time of one keystroke of
// the filter on that zone (goals: 200 KB, 1 s, 1 s, 50 ms).
//
//	cd integration/console && ZONEAPI_BENCH_ZONES=10000 go test -run '^$' -bench Console -benchtime 3x
func BenchmarkConsole(b *testing.B) {
	nZones, nRecords := benchSize("ZONEAPI_BENCH_ZONES", 1000), benchSize("ZONEAPI_BENCH_RECORDS", 50000)
	e := start(b)
	t0 := time.Now()
	e.createZone("big.test")
	for i := 0; i < nRecords; i += 1000 {
		var cs []any
		for j := i; j < min(i+1000, nRecords); j++ {
			cs = append(cs, map[string]any{"op": "add", "name": fmt.Sprintf("r%05d", j), "type": "A", "ttl": 300, "value": fmt.Sprintf("10.%d.%d.%d", j>>16&255, j>>8&255, j&255)})
		}
		if st, body := e.api("admin", "PATCH", "/api/v1/zones/big.test/records", map[string]any{"changes": cs}); st != 200 {
			b.Fatalf("records: %d %v", st, body)
		}
	}
	e.createZones(nZones - 1)
	b.Logf("set up %d zones and %d records in %v", nZones, nRecords, time.Since(t0).Round(time.Second))

	// The first load, without the browser's cache.
	if _, err := chromedp.Call(e.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		b.Fatal(err)
	}
	e.mu.Lock()
	e.loaded = 0
	e.mu.Unlock()
	e.signIn("admin")
	e.waitJS(`!!document.querySelector('za-overview .changes li')`, "the overview")
	e.mu.Lock()
	sent := e.loaded
	var consoleURLs []string
	for u := range e.responses {
		consoleURLs = append(consoleURLs, u)
	}
	e.mu.Unlock()
	raw, gz := gzipSizes(b, consoleURLs)

	var list, page, apiList, apiPage, key time.Duration
	var keyMax float64
	b.ResetTimer()
	for range b.N {
		e.open("#/")
		e.waitJS(`!!document.querySelector('za-overview')`, "the overview")
		list += e.navTime("#/zones", fmt.Sprintf(`document.querySelector('za-zones .msg')?.textContent === '' && document.querySelectorAll('za-zones tbody tr').length > 0 && document.querySelector('za-zones').items.length === %d`, nZones))
		page += e.navTime("#/zones/big.test/records", fmt.Sprintf(`document.querySelector('za-zone')?.base?.size >= %d && !!document.querySelector('za-zone .records table')`, nRecords))
		ks := evalAs[[]float64](e, `(() => {
			const el = document.querySelector('za-zone input[type=search]');
			const out = [];
			for (const s of ['r', 'r0', 'r01', 'r012', 'r0123', 'r012', 'r01', '10.0.1', '']) {
				const t = performance.now();
				el.value = s;
				el.dispatchEvent(new Event('input'));
				void document.body.offsetHeight; // layout included
				out.push(performance.now() - t);
			}
			return out;
		})()`)
		b.Logf("keystrokes (ms): %.1f", ks)
		for _, k := range ks {
			key += time.Duration(k * float64(time.Millisecond) / float64(len(ks)))
			keyMax = max(keyMax, k)
		}
		apiList += e.apiTime("/api/v1/zones?limit=1000")
		apiPage += e.apiTime("/api/v1/zones/big.test/records?limit=1000")
	}
	b.StopTimer()
	n := time.Duration(b.N)
	list, page, apiList, apiPage, key = list/n, page/n, apiList/n, apiPage/n, key/n
	b.ReportMetric(float64(gz)/1024, "KB-first-load-gzip")
	b.ReportMetric(float64(list.Milliseconds()), "ms-zone-list")
	b.ReportMetric(float64(page.Milliseconds()), "ms-zone-page")
	b.ReportMetric(float64(key.Microseconds())/1000, "ms-keystroke")
	b.Logf(`the console in headless chromium, %d zones, a zone of %d records (%d runs)
  first load: %d KB received (uncompressed: no encode directive), console files %d KB, %d KB gzipped (goal 200 KB)
  | what                          | console  | API alone (Go client) | ratio |
  | zone list usable (%5d zones) | %8v | %8v | %.1f |
  | zone page usable (%5d RRsets)| %8v | %8v | %.1f |
  filter keystroke: mean %v, max %.1f ms (goal 50 ms)`,
		nZones, nRecords, b.N, sent/1024, raw/1024, gz/1024,
		nZones, list.Round(time.Millisecond), apiList.Round(time.Millisecond), float64(list)/float64(apiList),
		nRecords, page.Round(time.Millisecond), apiPage.Round(time.Millisecond), float64(page)/float64(apiPage),
		key.Round(10*time.Microsecond), keyMax)
}

// navTime navigates to the fragment and returns the time until cond
// holds, measured in the page (checked at every animation frame).
func (e *env) navTime(fragment, cond string) time.Duration {
	e.t.Helper()
	ms := evalAsAwait[float64](e, fmt.Sprintf(`new Promise((resolve) => {
		const t0 = performance.now();
		const check = () => (%s) ? resolve(performance.now() - t0) : requestAnimationFrame(check);
		location.hash = %q;
		requestAnimationFrame(check);
	})`, cond, fragment))
	return time.Duration(ms * float64(time.Millisecond))
}

// apiTime reads every page of a list from the API with a Go client and
// returns how long it took.
func (e *env) apiTime(path string) time.Duration {
	e.t.Helper()
	t0 := time.Now()
	cursor := ""
	for {
		p := path
		if cursor != "" {
			p += "&cursor=" + cursor
		}
		st, body := e.api("admin", "GET", p, nil)
		if st != 200 {
			e.t.Fatalf("%s: %d", p, st)
		}
		next, _ := body["nextCursor"].(string)
		if next == "" {
			return time.Since(t0)
		}
		cursor = next
	}
}

// createZones creates n small zones, four at a time.
func (e *env) createZones(n int) {
	e.t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failed []string
	next := make(chan int)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				body := fmt.Sprintf(`{"zoneName":"b%05d.bench.test","zoneType":"primary","zoneConfig":{"ttl":3600,"soa":{"primaryNs":"ns1.bench.test.","adminEmail":"admin.bench.test."},"nameServers":["ns1.bench.test."]}}`, i)
				req, _ := http.NewRequest("POST", e.cd.Base+"/api/v1/zones", strings.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+e.tok["admin"])
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				if err != nil || res.StatusCode != 201 {
					mu.Lock()
					failed = append(failed, fmt.Sprint(i, err))
					mu.Unlock()
				}
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if len(failed) > 0 {
		e.t.Fatalf("%d creates failed: %v", len(failed), failed[:min(5, len(failed))])
	}
}

// gzipSizes fetches the URLs and returns their sizes, raw and gzipped.
func gzipSizes(tb testing.TB, urls []string) (raw, gz int) {
	for _, u := range urls {
		res, err := http.Get(u)
		if err != nil {
			tb.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		var buf bytes.Buffer
		w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		w.Write(b)
		w.Close()
		raw += len(b)
		gz += buf.Len()
	}
	return raw, gz
}
