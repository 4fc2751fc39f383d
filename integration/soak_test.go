package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
)

// soakModel is what one soak client knows of its zones: which exist and
// the TXT values each holds.
type soakModel map[string]map[string]bool

// TestSoak runs 8 clients over HTTP/2 (h2c) mixing creates, record adds
// and removals, reads and deletes, each on its own zones, while the
// config is reloaded every 10 s (every 3 s in the short default run). It
// expects 0 unexpected answers, the state named serves equal to the model
// the clients kept, and caddy's goroutines and RSS flat (the second half
// of the run grows them by no more than a small bound). ZONEAPI_SOAK sets
// the duration (default 12s; the run is 3m).
func TestSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("soak skipped in -short")
	}
	dur, reloadEvery := 12*time.Second, 3*time.Second
	if v := os.Getenv("ZONEAPI_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("ZONEAPI_SOAK: %v", err)
		}
		dur, reloadEvery = d, 10*time.Second
	}
	ns := startNamed(t)
	c := startCaddy(t, ns, caddyOpts{})
	protos := new(http.Protocols)
	protos.SetUnencryptedHTTP2(true)
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{Protocols: protos, MaxConnsPerHost: 2}}
	defer client.CloseIdleConnections()

	var unexpected atomic.Int64
	var ops atomic.Int64
	var errMu sync.Mutex
	var errs []string
	fail := func(format string, args ...any) {
		unexpected.Add(1)
		errMu.Lock()
		if len(errs) < 20 {
			errs = append(errs, fmt.Sprintf(format, args...))
		}
		errMu.Unlock()
	}
	do := func(method, path string, body any, want ...int) map[string]any {
		var rd io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			rd = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, c.Base+path, rd)
		req.Header.Set("Authorization", "Bearer "+testToken)
		if rd != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		ops.Add(1)
		resp, err := client.Do(req)
		if err != nil {
			fail("%s %s: %v", method, path, err)
			return nil
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.ProtoMajor != 2 {
			fail("%s %s: answered over %s, want HTTP/2", method, path, resp.Proto)
		}
		ok := false
		for _, w := range want {
			ok = ok || resp.StatusCode == w
		}
		if !ok {
			fail("%s %s: %d %s", method, path, resp.StatusCode, raw)
			return nil
		}
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return m
	}

	type sample struct{ goroutines, rssKB float64 }
	measure := func() sample {
		return sample{goroutines(t, c), rssKB(c.Process().Pid)}
	}

	const clients = 8
	models := make([]soakModel, clients)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for k := range clients {
		models[k] = soakModel{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(k), uint64(time.Now().UnixNano())))
			model := models[k]
			seq := 0
			for {
				select {
				case <-stop:
					return
				default:
				}
				zone := fmt.Sprintf("soak%d-%d.test", k, rng.IntN(3))
				recs, exists := model[zone]
				switch p := rng.IntN(100); {
				case !exists:
					if do("POST", "/api/v1/zones", zoneBody(zone), 201) != nil {
						model[zone] = map[string]bool{}
					}
				case p < 40:
					seq++
					v := "v" + strconv.Itoa(seq)
					if do("POST", "/api/v1/zones/"+zone+"/records", map[string]any{"name": "s" + strconv.Itoa(seq%7), "type": "TXT", "value": v}, 201) != nil {
						recs["s"+strconv.Itoa(seq%7)+" "+v] = true
					}
				case p < 55 && len(recs) > 0:
					var pick string
					for r := range recs {
						pick = r
						break
					}
					name, v, _ := strings.Cut(pick, " ")
					if do("DELETE", "/api/v1/zones/"+zone+"/records", map[string]any{"name": name, "type": "TXT", "value": v}, 200) != nil {
						delete(recs, pick)
					}
				case p < 75:
					do("GET", "/api/v1/zones/"+zone, nil, 200)
				case p < 92:
					do("GET", "/api/v1/zones/"+zone+"/records?type=TXT", nil, 200)
				default:
					if do("DELETE", "/api/v1/zones/"+zone, nil, 200, 202) != nil {
						delete(model, zone)
					}
				}
			}
		}()
	}

	start := time.Now()
	var mid sample
	midTaken := false
	timeouts := []string{"10s", "9s"}
	reloads := 0
	for time.Since(start) < dur {
		time.Sleep(reloadEvery)
		reload(t, c, timeouts[reloads%2])
		reloads++
		if !midTaken && time.Since(start) >= dur/2 {
			mid, midTaken = measure(), true
		}
	}
	close(stop)
	wg.Wait()
	if !midTaken {
		mid = measure()
	}
	time.Sleep(500 * time.Millisecond) // let finished requests' goroutines end
	end := measure()
	t.Logf("%d requests by %d clients over HTTP/2 in %v with %d reloads; goroutines %v -> %v, RSS %v KiB -> %v KiB (half way -> end)",
		ops.Load(), clients, dur, reloads, mid.goroutines, end.goroutines, mid.rssKB, end.rssKB)
	if n := unexpected.Load(); n > 0 {
		t.Fatalf("%d unexpected answers, e.g.:\n%s", n, strings.Join(errs, "\n"))
	}
	if end.goroutines > mid.goroutines+50 {
		t.Errorf("goroutines grew from %v to %v in the second half", mid.goroutines, end.goroutines)
	}
	if end.rssKB > mid.rssKB*1.5+20<<10 {
		t.Errorf("RSS grew from %v KiB to %v KiB in the second half", mid.rssKB, end.rssKB)
	}

	// The state equals the model: the zones listed, and the TXT values
	// named serves in each.
	want := map[string]bool{}
	for _, m := range models {
		for z := range m {
			want[z] = true
		}
	}
	list := c.do("GET", "/api/v1/zones?limit=1000", nil)
	got := map[string]bool{}
	for _, z := range list.body["zones"].([]any) {
		got[z.(string)] = true
	}
	if fmt.Sprint(keys(got)) != fmt.Sprint(keys(want)) {
		t.Fatalf("zones listed %v, model %v", keys(got), keys(want))
	}
	for _, m := range models {
		for zone, recs := range m {
			have := map[string]bool{}
			for _, rr := range axfr(t, ns, zone) {
				if txt, ok := rr.(*dns.TXT); ok && txt.Hdr.Name != zone+"." {
					have[strings.TrimSuffix(strings.TrimSuffix(txt.Hdr.Name, "."), "."+zone)+" "+strings.Join(txt.Txt, "")] = true
				}
			}
			if fmt.Sprint(keys(have)) != fmt.Sprint(keys(recs)) {
				t.Errorf("%s: named serves %v, model %v", zone, keys(have), keys(recs))
			}
		}
	}
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// rssKB returns the resident set size of a process in KiB.
func rssKB(pid int) float64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 64)
			return f
		}
	}
	return 0
}

// goroutines returns caddy's goroutine count from its admin endpoint's
// goroutine profile ("goroutine profile: total N").
func goroutines(t testing.TB, c *caddy) float64 {
	t.Helper()
	resp, err := http.Get("http://" + c.AdminAddr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	line, _, _ := strings.Cut(readAllString(resp.Body), "\n")
	n, err := strconv.ParseFloat(strings.TrimPrefix(line, "goroutine profile: total "), 64)
	if err != nil {
		t.Fatalf("goroutine profile: %q", line)
	}
	return n
}

func readAllString(r io.Reader) string {
	b, _ := io.ReadAll(r)
	return string(b)
}
