package inventory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// namedStats renders a /json/v1/zones answer of n zones as named 9.18
// writes it (each zone with its load and expiry times), in two views,
// plus _bind's built-ins.
func namedStats(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"json-stats-version":"1.7","boot-time":"2026-11-27T20:00:00.000Z","config-time":"2026-11-27T20:00:00.000Z","current-time":"2026-11-27T21:00:00.000Z","version":"9.18.28","views":{`)
	for v, view := range []string{"_default", "other"} {
		if v > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `%q:{"zones":[`, view)
		for i := v; i < n; i += 2 {
			if i > 1 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"Zone%d.Example","class":"IN","serial":%d,"type":"primary","loaded":"2026-11-27T20:00:01Z","expires":"","refresh":""}`, i, 2026112700+i%100)
		}
		b.WriteString(`],"resolver":{"stats":{"Queryv4":0}}}`)
	}
	b.WriteString(`,"_bind":{"zones":[{"name":"authors.bind","class":"CH","serial":0,"type":"builtin","loaded":"2026-11-27T20:00:00Z"}]}}}`)
	return b.Bytes()
}

// parseWhole is Parse as it was before it read the answer as it comes
// (the answer decoded whole by json.Unmarshal), for the same-run
// comparisons.
func parseWhole(body []byte) ([]Zone, []string, error) {
	var st struct {
		Views map[string]struct {
			Zones []struct {
				Name   string          `json:"name"`
				Class  string          `json:"class"`
				Serial json.RawMessage `json:"serial"`
				Type   string          `json:"type"`
			} `json:"zones"`
		} `json:"views"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		return nil, nil, err
	}
	if st.Views == nil {
		return nil, nil, fmt.Errorf("no views")
	}
	var zones []Zone
	var views []string
	for view, v := range st.Views {
		if view == "_bind" {
			continue
		}
		views = append(views, view)
		for _, z := range v.Zones {
			if z.Class != "IN" || z.Type == "builtin" || z.Name == "" {
				continue
			}
			zone := Zone{Name: strings.ToLower(strings.TrimSuffix(z.Name, ".")), View: view, Type: z.Type}
			if zone.Name == "" {
				zone.Name = "."
			}
			var n int64
			if err := json.Unmarshal(z.Serial, &n); err == nil && n >= 0 && n <= 1<<32-1 {
				zone.Serial, zone.HasSerial = uint32(n), true
			}
			zones = append(zones, zone)
		}
	}
	sort.Strings(views)
	sort.Slice(zones, func(i, j int) bool { return compareZones(&zones[i], &zones[j]) < 0 })
	return zones, views, nil
}

// probe is a body that measures the heap live (after a collection) once
// it has been read whole.
type probe struct {
	r    io.Reader
	base uint64
	live atomic.Int64
}

func (p *probe) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err == io.EOF && p.live.Load() == 0 {
		p.live.Store(int64(liveHeap()) - int64(p.base))
	}
	return n, err
}

func (p *probe) Close() error { return nil }

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestRefreshReadsAsItComes: a refresh (Open) parses named's answer as it
// is read, and never holds it whole: once the body has been read to its
// end, less than its size is live (the zones parsed, some 0.6x of the
// answer here), where reading it first, as Fetch does (and every refresh
// did), holds all of it before its decoding starts. Its zones and views
// are those the answer decoded whole gives, for named's answer and for
// answers with odd members.
func TestRefreshReadsAsItComes(t *testing.T) {
	body := namedStats(20_000)
	var opened *probe
	inv := &Inventory{Open: func(context.Context) (io.ReadCloser, error) {
		opened = &probe{r: bytes.NewReader(body), base: liveHeap()}
		return opened, nil
	}}
	defer inv.Stop()
	snap, err := inv.RefreshNow(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	live := opened.live.Load()
	t.Logf("%d zones, an answer of %d bytes: %d bytes live once it was read to its end (%.2fx)", len(snap.Zones()), len(body), live, float64(live)/float64(len(body)))
	if live >= int64(len(body)) {
		t.Errorf("%d bytes live once the answer of %d bytes was read: held whole", live, len(body))
	}
	want, wantViews, _ := parseWhole(body)
	if !slices.Equal(snap.Zones(), want) || !slices.Equal(snap.Views, wantViews) {
		t.Errorf("the zones read as they come differ from the answer decoded whole")
	}
	for _, odd := range []string{
		`{"views":{"v":{"zones":null},"w":{"other":[1,{"a":[]}],"zones":[{"name":"A.test.","class":"IN","serial":"-","type":"secondary"},{"name":".","class":"IN","serial":4294967295,"type":"hint"},{"name":"c.test","class":"CH","serial":1,"type":"primary"},{"name":"d.test","class":"IN","serial":-1,"type":"primary"},{"name":"e.test","class":"IN","type":"primary","serial":12,"extra":{"x":[1,2]}},{"class":"IN","name":"f.test","type":"stub"}]}},"memory":{}}`,
		`{"views":{}}`,
	} {
		got, gotViews, err := Parse([]byte(odd))
		want, wantViews, werr := parseWhole([]byte(odd))
		if err != nil || werr != nil || !slices.Equal(got, want) || !slices.Equal(gotViews, wantViews) {
			t.Errorf("%s:\n got %v %v %v\nwant %v %v %v", odd, got, gotViews, err, want, wantViews, werr)
		}
	}
	for _, bad := range []string{`{"views":{}} x`, `{"views":{"v":{"zones":[{"name":1}]}}}`, `{"views":[]}`, `{"views":{"v":{"zones":{}}}}`} {
		if _, _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
		if _, _, err := parseWhole([]byte(bad)); err == nil {
			t.Errorf("parseWhole(%q) accepted", bad)
		}
	}
}

// TestParseRepeatedMembersLastWins: a member named twice counts as
// json.Unmarshal counts it (the answer decoded whole, parseWhole): a
// repeated view or "zones" replaces the one before (they were appended
// to it), a null "zones" or view leaves none, a null "views" drops the
// views before it, and a repeated "views" adds to them.
func TestParseRepeatedMembersLastWins(t *testing.T) {
	z := func(name string) string {
		return `{"name":"` + name + `","class":"IN","serial":1,"type":"primary"}`
	}
	for _, body := range []string{
		`{"views":{"v":{"zones":[` + z("a.test") + `]},"v":{"zones":[` + z("b.test") + `]}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `]},"w":{"zones":[` + z("c.test") + `]},"v":{"zones":[` + z("b.test") + `]}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `],"Zones":[` + z("b.test") + `]}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `],"zones":null}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `]},"v":null}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `]}},"views":{"w":{"zones":[` + z("b.test") + `]}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `]}},"Views":{"v":{"zones":[` + z("b.test") + `]}}}`,
		`{"views":{"v":{"zones":[` + z("a.test") + `]}},"views":null,"views":{"w":{"zones":[` + z("b.test") + `]}}}`,
	} {
		got, gotViews, err := Parse([]byte(body))
		want, wantViews, werr := parseWhole([]byte(body))
		if err != nil || werr != nil || !slices.Equal(got, want) || !slices.Equal(gotViews, wantViews) {
			t.Errorf("%s:\n got %v %v %v\nwant %v %v %v", body, got, gotViews, err, want, wantViews, werr)
		}
	}
	// A null "views" last leaves none: both refuse the answer.
	body := `{"views":{"v":{"zones":[` + z("a.test") + `]}},"views":null}`
	if _, _, err := Parse([]byte(body)); err == nil {
		t.Errorf("%s: accepted, with its views dropped", body)
	}
	if _, _, err := parseWhole([]byte(body)); err == nil {
		t.Errorf("%s: parseWhole accepted", body)
	}
}

// BenchmarkRefreshHeap: a refresh's read of named's answer at 20,000 and
// 100,000 zones, the answer read whole and decoded (as every refresh did:
// Fetch, parseWhole) and read as it comes (Open, ParseFrom), same run:
// the heap allocated, its peak above the live heap before (HeapAlloc
// sampled every millisecond, garbage included: what the heap must grow
// to) and what stays live.
//
//	go test ./inventory -run '^$' -bench BenchmarkRefreshHeap -benchtime 1x
func BenchmarkRefreshHeap(b *testing.B) {
	for _, n := range []int{20_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			body := namedStats(n)
			measure := func(read func() []Zone) (peak, alloc, live float64) {
				base := liveHeap()
				var ms0 runtime.MemStats
				runtime.ReadMemStats(&ms0)
				var max atomic.Uint64
				done := make(chan struct{})
				sampled := make(chan struct{})
				go func() {
					defer close(sampled)
					var ms runtime.MemStats
					for {
						runtime.ReadMemStats(&ms)
						if ms.HeapAlloc > max.Load() {
							max.Store(ms.HeapAlloc)
						}
						select {
						case <-done:
							return
						case <-time.After(time.Millisecond):
						}
					}
				}()
				zones := read()
				close(done)
				<-sampled
				var ms1 runtime.MemStats
				runtime.ReadMemStats(&ms1)
				live = float64(int64(liveHeap())-int64(base)) / (1 << 20)
				runtime.KeepAlive(zones)
				return float64(int64(max.Load())-int64(base)) / (1 << 20), float64(ms1.TotalAlloc-ms0.TotalAlloc) / (1 << 20), live
			}
			for range b.N {
				wPeak, wAlloc, wLive := measure(func() []Zone {
					data, _ := io.ReadAll(bytes.NewReader(body)) // as the HTTP GET read it
					zones, _, err := parseWhole(data)
					if err != nil || len(zones) != n {
						b.Fatal(err, len(zones))
					}
					return zones
				})
				sPeak, sAlloc, sLive := measure(func() []Zone {
					zones, _, err := ParseFrom(io.MultiReader(bytes.NewReader(body)), n)
					if err != nil || len(zones) != n {
						b.Fatal(err, len(zones))
					}
					return zones
				})
				b.ReportMetric(float64(len(body))/(1<<20), "MB-answer")
				b.ReportMetric(wPeak, "MB-peak-whole")
				b.ReportMetric(sPeak, "MB-peak-streamed")
				b.ReportMetric(sPeak/wPeak, "x-peak")
				b.ReportMetric(wAlloc, "MB-alloc-whole")
				b.ReportMetric(sAlloc, "MB-alloc-streamed")
				b.ReportMetric(wLive, "MB-live-whole")
				b.ReportMetric(sLive, "MB-live-streamed")
			}
		})
	}
}

// TestSnapshotHeap: a snapshot of named's zones holds some 32 bytes a
// zone beside its name (a row, its view, type and source shared), where it
// held a Zone of 72: at 20,000 zones, what a refresh leaves live is under
// 72 bytes a zone with names of 24 bytes.
func TestSnapshotHeap(t *testing.T) {
	const n = 20_000
	var b bytes.Buffer
	b.WriteString(`{"views":{"_default":{"zones":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"zone%06d.example.","class":"IN","serial":%d,"type":"primary"}`, i, 2026112700+i%100)
	}
	b.WriteString(`]}}}`)
	body := b.Bytes()
	inv := &Inventory{Fetch: func(context.Context) ([]byte, error) { return body, nil }}
	defer inv.Stop()
	base := liveHeap()
	if _, err := inv.RefreshNow(context.Background()); err != nil {
		t.Fatal(err)
	}
	perZone := float64(int64(liveHeap())-int64(base)) / n
	runtime.KeepAlive(inv)
	t.Logf("%.1f bytes live a zone after a refresh of %d zones", perZone, n)
	if perZone >= 72 {
		t.Errorf("%.1f bytes live a zone after a refresh, want under 72 (a row of 32 and a name of 24)", perZone)
	}
}
