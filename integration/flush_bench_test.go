package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

// BenchmarkChangeAnswerFlush: the REST API's record add at concurrency 1
// through this tree's Caddy and another build ($ZONEAPI_BASELINE_CADDY,
// e.g. main's), both with the default logging (the audit line and the
// request's "request completed" line written at info), one named, in
// interleaved rounds ($ZONEAPI_BENCH_N adds a build, default 2,000): a
// change's answer is flushed before those lines are written since
// internal/apirouter holds it (reqlog.Recorder.Hold), where it left once
// the handler had returned, after them. It prints p50 and mean and their
// ratios, and the answer of one add of each build as it came (Date left
// out; the two zones' names have the same length), which must be the
// same but for the Content-Length's place among the header lines. It
// asserts nothing about time; without $ZONEAPI_BASELINE_CADDY it skips.
//
//	ZONEAPI_CADDY=$(bash scripts/build.sh) ZONEAPI_BASELINE_CADDY=<another build> \
//	  go test ./integration -run '^$' -bench ChangeAnswerFlush -benchtime 1x
func BenchmarkChangeAnswerFlush(b *testing.B) {
	base := os.Getenv("ZONEAPI_BASELINE_CADDY")
	if base == "" {
		b.Skip("ZONEAPI_BASELINE_CADDY names no baseline caddy build")
	}
	loadAtStart := loadAverage()
	ns := startNamed(b)
	builds := []struct {
		name, zone string
		c          *caddy
	}{
		{"this tree", "flush-new.test", startCaddy(b, ns, caddyOpts{})},
		{"baseline", "flush-old.test", startCaddy(b, ns, caddyOpts{bin: base, zoneDir: baselineDir(b, ns)})},
	}
	n := 2000
	if s := os.Getenv("ZONEAPI_BENCH_N"); s != "" {
		fmt.Sscan(s, &n)
	}
	var answers []string
	for _, bd := range builds {
		if r := bd.c.do("POST", "/api/v1/zones", zoneBody(bd.zone)); r.status != http.StatusCreated {
			b.Fatalf("create %s: %d %s", bd.zone, r.status, r.raw)
		}
		answers = append(answers, rawRecordAdd(b, bd.c, bd.zone))
		runConcurrent("warm", 1, 100, leanAPIWorker(b, bd.c, bd.zone, "w"))
	}
	names := []string{builds[0].name, builds[1].name}
	workers := []func(int) func() func(int) error{
		func(r int) func() func(int) error {
			return leanAPIWorker(b, builds[0].c, builds[0].zone, fmt.Sprintf("r%d-", r))
		},
		func(r int) func() func(int) error {
			return leanAPIWorker(b, builds[1].c, builds[1].zone, fmt.Sprintf("r%d-", r))
		},
	}
	res := interleaved(10, 1, n, names, workers)
	fmt.Printf("\nREST record adds at concurrency 1, default logging, %d adds a build in 10 interleaved rounds (load average %s at the start, %s at the end):\n\n", n, loadAtStart, loadAverage())
	fmt.Printf("| build | p50 | mean | p99 | errors |\n|---|---|---|---|---|\n")
	for _, r := range res {
		fmt.Printf("| %s | %s | %s | %s | %d |\n", r.method, msf(r.p50), msf(r.mean), msf(r.p99), r.errors)
	}
	fmt.Printf("\nthis tree / baseline: p50 %.3f, mean %.3f\n", float64(res[0].p50)/float64(res[1].p50), float64(res[0].mean)/float64(res[1].mean))
	same := func(s string) []string {
		s = strings.ReplaceAll(s, "flush-new", "flush-ZONE")
		s = strings.ReplaceAll(s, "flush-old", "flush-ZONE")
		head, body, _ := strings.Cut(s, "\r\n\r\n")
		ls := strings.Split(head, "\r\n")
		slices.Sort(ls[1:])
		return append(ls, body)
	}
	fmt.Printf("\nthe first add's answer, this tree:\n%q\nbaseline:\n%q\nthe same status, header lines (in any order) and body: %v\n", answers[0], answers[1], slices.Equal(same(answers[0]), same(answers[1])))
}

// rawRecordAdd adds a record to zone through c on a connection of its
// own and returns the answer's bytes as they came, its Date line left
// out.
func rawRecordAdd(b *testing.B, c *caddy, zone string) string {
	addr := strings.TrimPrefix(c.Base, "http://")
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	body := `{"name":"first","type":"A","value":"192.0.2.1","ttl":60}`
	fmt.Fprintf(conn, "POST /api/v1/zones/%s/records HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		zone, addr, testToken, len(body), body)
	var got bytes.Buffer
	resp, err := http.ReadResponse(bufio.NewReader(io.TeeReader(conn, &got)), nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.ReadAll(resp.Body); err != nil {
		b.Fatal(err)
	}
	var out []string
	for _, l := range strings.SplitAfter(got.String(), "\r\n") {
		if !strings.HasPrefix(l, "Date: ") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}
