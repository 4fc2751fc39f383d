package integration

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
)

// BenchmarkCreateRatio is issue 27's create goal (API create rate ≥ 0.9x
// named's bare addzone rate at the same number of zones) at the sizes
// where the API's own fixed cost per create weighs most, on demand. One
// named; at each checkpoint (ZONEAPI_CREATE_CHECKPOINTS, default
// "2000,5000,10000": zones in named, the bare ones included) it runs
// ZONEAPI_CREATE_ROUNDS rounds (default 7) of one block each
// (ZONEAPI_CREATE_BLOCK zones, default 80, at concurrency 8) of:
//
//   - bare `rndc addzone` through the project's rndc client (zone files
//     written, not fsynced, before the block's clock starts);
//   - creates through this tree's API;
//   - with $ZONEAPI_BASELINE_CADDY (another build of the module), creates
//     through that build's API (a zone directory of its own),
//
// the order rotated round by round, and prints each side's rate over all
// blocks and the median and range of the rounds' ratios (a round's
// blocks meet named in the same state), with named's CPU time a zone
// during each side's blocks and each Caddy's (its threads' schedstat:
// steadier than rates on a loaded machine). The zones up to a checkpoint are
// created through the APIs, half each with a baseline. With
// ZONEAPI_CREATE_PROFILE=<dir>, at each checkpoint before its rounds, this
// tree's Caddy is CPU-profiled for 10 s while it creates zones at c=8
// (cpu-<zones>.pprof; those zones count towards the next checkpoint). It
// asserts nothing.
func BenchmarkCreateRatio(b *testing.B) {
	block := envInt("ZONEAPI_CREATE_BLOCK", 80)
	rounds := envInt("ZONEAPI_CREATE_ROUNDS", 7)
	checkpoints := envInts(b, "ZONEAPI_CREATE_CHECKPOINTS", []int{2000, 5000, 10000})
	loadAtStart := loadAverage()

	ns := testbind.Start(b, nil)
	rc := benchRNDC(b, ns)
	bareDir := filepath.Join(ns.Dir, "bare")
	if err := os.MkdirAll(bareDir, 0o755); err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()

	type side struct {
		name   string
		create func(from, to int) // zones [from, to) of its own
		made   int
		pid    int // its Caddy's (0: none)
	}
	apiSide := func(name string, c *caddy) *side {
		return &side{name: name, pid: c.Process().Pid, create: func(from, to int) {
			parallel(8, from, to, func(i int) {
				z := fmt.Sprintf("%s%06d.ratio", name, i)
				if r := c.do("POST", "/api/v1/zones", flatZoneBody(z)); r.status != http.StatusCreated {
					b.Errorf("create %s: %d %.200s", z, r.status, r.raw)
				}
			})
		}}
	}
	bare := &side{name: "bare", create: func(from, to int) {}}
	newCaddy := startCaddy(b, ns, caddyOpts{})
	sides := []*side{bare, apiSide("new", newCaddy)}
	if base := os.Getenv("ZONEAPI_BASELINE_CADDY"); base != "" {
		sides = append(sides, apiSide("baseline", startCaddy(b, ns, caddyOpts{bin: base, zoneDir: baselineDir(b, ns)})))
	}
	apis := sides[1:]
	// run makes side s's next k zones and returns the time it took (for
	// bare zones, without writing their files).
	run := func(s *side, k int) time.Duration {
		from := s.made
		s.made += k
		if s != bare {
			t0 := time.Now()
			s.create(from, from+k)
			return time.Since(t0)
		}
		stmts := make([]*rndc.ZoneStatement, k)
		for j := range k {
			stmts[j] = bareZone(b, bareDir, fmt.Sprintf("bare%06d.ratio", from+j), ns.TSIGKeyName)
		}
		t0 := time.Now()
		parallel(8, 0, k, func(j int) {
			if _, err := rc.AddZone(ctx, stmts[j]); err != nil {
				b.Errorf("addzone: %v", err)
			}
		})
		return time.Since(t0)
	}
	total := func() (n int) {
		for _, s := range sides {
			n += s.made
		}
		return n
	}

	type result struct {
		zones  int
		rate   []float64   // by side, over all blocks
		named  []float64   // by side: named's CPU per zone, ms
		caddy  []float64   // by side: its Caddy's CPU per zone, ms
		ratios [][]float64 // by side: its rate / bare's, round by round
		vsBase []float64   // new / baseline, round by round
	}
	var results []result
	for _, cp := range checkpoints {
		if missing := cp - total(); missing > 0 {
			for i, s := range apis {
				run(s, missing*(i+1)/len(apis)-missing*i/len(apis))
			}
		}
		if b.Failed() {
			b.FailNow()
		}
		if dir := os.Getenv("ZONEAPI_CREATE_PROFILE"); dir != "" {
			profileCreates(b, dir, total(), block, sides[1].pid, newCaddy, func() { run(sides[1], block) })
		}
		r := result{zones: total(), rate: make([]float64, len(sides)), ratios: make([][]float64, len(sides)),
			named: make([]float64, len(sides)), caddy: make([]float64, len(sides))}
		made := make([]int, len(sides))
		took := make([]time.Duration, len(sides))
		namedCPU := make([]time.Duration, len(sides))
		caddyCPU := make([]time.Duration, len(sides))
		for round := range rounds {
			rate := make([]float64, len(sides))
			for j := range sides {
				i := (j + round) % len(sides)
				n0, c0 := threadsCPU(ns.Pid()), threadsCPU(sides[i].pid)
				d := run(sides[i], block)
				namedCPU[i] += threadsCPU(ns.Pid()) - n0
				caddyCPU[i] += threadsCPU(sides[i].pid) - c0
				made[i] += block
				took[i] += d
				rate[i] = float64(block) / d.Seconds()
			}
			for i := range sides {
				r.ratios[i] = append(r.ratios[i], rate[i]/rate[0])
			}
			if len(sides) == 3 {
				r.vsBase = append(r.vsBase, rate[1]/rate[2])
			}
		}
		for i := range sides {
			r.rate[i] = float64(made[i]) / took[i].Seconds()
			r.named[i] = namedCPU[i].Seconds() * 1000 / float64(made[i])
			r.caddy[i] = caddyCPU[i].Seconds() * 1000 / float64(made[i])
		}
		results = append(results, r)
	}

	var sb strings.Builder
	fmt.Fprintf(&sb, "\nBenchmarkCreateRatio: one named, %d rounds of %d zones a side at c=8 at each checkpoint, the order rotated; load average %s at the start, %s at the end\n\n", rounds, block, loadAtStart, loadAverage())
	fmt.Fprintf(&sb, "| zones | bare addzone /s | named CPU a zone |")
	for _, s := range apis {
		fmt.Fprintf(&sb, " %s API create /s | %s / bare, median (range) | named CPU a zone | %s Caddy CPU a zone |", s.name, s.name, s.name)
	}
	if len(sides) == 3 {
		fmt.Fprintf(&sb, " new / baseline, median (range) |")
	}
	fmt.Fprintf(&sb, "\n|%s\n", strings.Repeat("---|", 3+4*len(apis)+len(sides)/3))
	for _, r := range results {
		fmt.Fprintf(&sb, "| %d | %.0f | %.3f ms |", r.zones, r.rate[0], r.named[0])
		for i := range apis {
			fmt.Fprintf(&sb, " %.0f | %s | %.3f ms | %.3f ms |", r.rate[i+1], ratioSpread(r.ratios[i+1]), r.named[i+1], r.caddy[i+1])
		}
		if len(sides) == 3 {
			fmt.Fprintf(&sb, " %s |", ratioSpread(r.vsBase))
		}
		sb.WriteString("\n")
	}
	fmt.Print(sb.String())
}

// profileCreates saves c's CPU profile, 10 s long, to dir/cpu-<zones>.pprof
// while burst runs again and again, and logs c's CPU time a create over
// those bursts (block creates each).
func profileCreates(b *testing.B, dir string, zones, block, pid int, c *caddy, burst func()) {
	got := make(chan []byte, 1)
	go func() {
		resp, err := http.Get("http://" + c.AdminAddr + "/debug/pprof/profile?seconds=10")
		if err != nil {
			b.Error(err)
			got <- nil
			return
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		got <- data
	}()
	c0, bursts := threadsCPU(pid), 0
	for {
		select {
		case data := <-got:
			_ = os.WriteFile(filepath.Join(dir, fmt.Sprintf("cpu-%d.pprof", zones)), data, 0o644)
			b.Logf("profiled at %d zones: %d creates, Caddy CPU %.3f ms a create", zones, block*bursts, (threadsCPU(pid)-c0).Seconds()*1000/float64(block*bursts))
			return
		default:
		}
		burst()
		bursts++
	}
}
