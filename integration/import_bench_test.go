package integration

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zoneapitest/testbind"
	"github.com/zoneapi/caddy-zoneapi/zonecheck"
)

// bigZoneBody is the part of a generated zone file after its $ORIGIN
// line: SOA, two NS with addresses, then A, AAAA, TXT, MX and CNAME
// records up to n records in all, with relative names.
func bigZoneBody(n int) string {
	var b strings.Builder
	b.WriteString("$TTL 3600\n@ IN SOA ns1 hostmaster ( 2026112601 3600 600 604800 300 )\n\tNS ns1\n\tNS ns2\nns1 A 192.0.2.1\nns2 A 192.0.2.2\n")
	for i := 5; i < n; i++ {
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "h%d A 10.%d.%d.%d\n", i, i>>16&255, i>>8&255, i&255)
		case 1:
			fmt.Fprintf(&b, "h%d AAAA 2001:db8::%x:%x\n", i, i>>16, i&0xffff)
		case 2:
			fmt.Fprintf(&b, "t%d TXT \"record %d; with a comment char\"\n", i, i)
		case 3:
			fmt.Fprintf(&b, "m%d MX 10 h%d\n", i, i-3)
		case 4:
			fmt.Fprintf(&b, "c%d CNAME h%d\n", i, i-4)
		}
	}
	return b.String()
}

// BenchmarkImport100k measures, in one run against one named, importing
// a 100,000-record zone file through the API (POST
// /api/v1/zones/{name}/import, text/dns: upload, named-checkzone, the
// file written, addzone, the index) against the shell way (the file
// written into the zone directory, the named-checkzone program, the
// rndc program's addzone), alternating one of each per round; each zone
// is deleted, untimed, after its round. It prints the p50 of each and
// the ratio. ZONEAPI_BENCH_IMPORT_ROUNDS sets the rounds (default 5),
// ZONEAPI_BENCH_IMPORT_RECORDS the zone's size (default 100,000). With
// $ZONEAPI_BASELINE_CADDY (another build of the module, e.g. of the
// commit before a change) the same import through that build is a third
// way of each round, against the same named, and its ratio to the
// build under test is printed too.
func BenchmarkImport100k(b *testing.B) {
	rounds, records := 5, 100_000
	if v := os.Getenv("ZONEAPI_BENCH_IMPORT_ROUNDS"); v != "" {
		fmt.Sscan(v, &rounds)
	}
	if v := os.Getenv("ZONEAPI_BENCH_IMPORT_RECORDS"); v != "" {
		fmt.Sscan(v, &records)
	}
	ns := startNamed(b)
	c := startCaddy(b, ns, caddyOpts{})
	var base *caddy
	if bin := os.Getenv("ZONEAPI_BASELINE_CADDY"); bin != "" {
		base = startCaddy(b, ns, caddyOpts{bin: bin, zoneDir: baselineDir(b, ns)})
	}
	checkzone := (&zonecheck.Checker{}).Program()
	if checkzone == "" {
		b.Fatal("named-checkzone is not installed")
	}
	body := bigZoneBody(records)
	fileOf := func(zone string) string { return "$ORIGIN " + zone + ".\n" + body }

	api := func(c *caddy, zone string) time.Duration {
		text := fileOf(zone)
		t0 := time.Now()
		req, err := http.NewRequest("POST", c.Base+"/api/v1/zones/"+zone+"/import", strings.NewReader(text))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "text/dns")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		d := time.Since(t0)
		resp.Body.Close()
		if resp.StatusCode != 201 {
			b.Fatalf("import %s: %d", zone, resp.StatusCode)
		}
		return d
	}
	var steps [3][]time.Duration // the shell way's write, named-checkzone, addzone
	shell := func(zone string) time.Duration {
		text := fileOf(zone)
		path := filepath.Join(ns.ZoneDir, zone+".shell.db")
		t0 := time.Now()
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if out, err := exec.Command(checkzone, zone, path).CombinedOutput(); err != nil {
			b.Fatalf("named-checkzone: %v %s", err, out)
		}
		t2 := time.Now()
		defer func() {
			steps[0] = append(steps[0], t1.Sub(t0))
			steps[1] = append(steps[1], t2.Sub(t1))
			steps[2] = append(steps[2], time.Since(t2))
		}()
		stmt := fmt.Sprintf(`{ type primary; file %q; allow-update { key %q; }; };`, path, ns.TSIGKeyName)
		if out, err := exec.Command(testbind.RNDCPath, "-c", ns.RNDCConfFile, "addzone", zone, stmt).CombinedOutput(); err != nil {
			b.Fatalf("rndc addzone: %v %s", err, out)
		}
		return time.Since(t0)
	}

	var apiTimes, shellTimes, baseTimes []time.Duration
	for i := 0; i < rounds; i++ {
		za, zs, zb := fmt.Sprintf("api%d.bench", i), fmt.Sprintf("shell%d.bench", i), fmt.Sprintf("base%d.bench", i)
		if i%2 == 0 {
			apiTimes = append(apiTimes, api(c, za))
			shellTimes = append(shellTimes, shell(zs))
		} else {
			shellTimes = append(shellTimes, shell(zs))
			apiTimes = append(apiTimes, api(c, za))
		}
		if base != nil {
			baseTimes = append(baseTimes, api(base, zb))
			expect(b, base.do("DELETE", "/api/v1/zones/"+zb, nil), http.StatusOK, "delete "+zb)
		}
		// Both zones serve the same records (the API's count matches).
		if i == 0 {
			if a, s := len(axfr(b, ns, za)), len(axfr(b, ns, zs)); a != records || s != records {
				b.Fatalf("served records: api %d, shell %d, want %d", a, s, records)
			}
		}
		expect(b, c.do("DELETE", "/api/v1/zones/"+za, nil), http.StatusOK, "delete "+za)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		if _, err := ns.RNDCContext(ctx, "delzone", "-clean", zs); err != nil {
			b.Fatal(err)
		}
		cancel()
	}
	pa, ps := p50(apiTimes), p50(shellTimes)
	b.ReportMetric(pa.Seconds()*1000, "api-p50-ms")
	b.ReportMetric(ps.Seconds()*1000, "shell-p50-ms")
	b.ReportMetric(ratio(pa, ps), "api/shell")
	fmt.Printf("\nimport of a %d-record zone file (%d bytes), %d of each, alternating, same named:\n", records, len(fileOf("api0.bench")), rounds)
	fmt.Printf("| way | p50 | ratio |\n|---|---|---|\n")
	fmt.Printf("| shell: write the file, named-checkzone, rndc addzone | %s | 1.00x |\n", ms(ps))
	fmt.Printf("| API: POST /zones/{name}/import (text/dns) | %s | %.2fx |\n", ms(pa), ratio(pa, ps))
	if base != nil {
		pb := p50(baseTimes)
		b.ReportMetric(ratio(pa, pb), "api/baseline")
		fmt.Printf("| baseline build's API ($ZONEAPI_BASELINE_CADDY) | %s | %.2fx |\n", ms(pb), ratio(pb, ps))
		fmt.Printf("this build / baseline build: %.2fx\n", ratio(pa, pb))
	}
	fmt.Printf("shell steps, p50: write %s, named-checkzone %s, rndc addzone %s\n", ms(p50(steps[0])), ms(p50(steps[1])), ms(p50(steps[2])))
}

// p50 is the median of d (sorted in place).
func p50(d []time.Duration) time.Duration {
	slices.Sort(d)
	return d[len(d)/2]
}
