package integration

import (
	"context"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
	"github.com/zoneapi/caddy-zoneapi/zonestore"
)

// BenchmarkCreateIntent measures, in one run against one named and one
// zone directory, a zone create the way the handler did it before the
// lifecycle (file, addzone, index put) and through zoneservice.Service
// (intent record, file, addzone, index put and intent done in one
// append), alternating in rounds of 10 so that both see the same machine.
// It prints the p50 of each and their ratio; the issue asks for the
// intent's p50 within 1.2x of the baseline. ZONEAPI_BENCH_CREATES sets the
// number of creates of each (default 200).
func BenchmarkCreateIntent(b *testing.B) {
	n := 200
	if v := os.Getenv("ZONEAPI_BENCH_CREATES"); v != "" {
		fmt.Sscan(v, &n)
	}
	ns := startNamed(b)
	store, err := zonestore.Open(ns.ZoneDir)
	if err != nil {
		b.Fatal(err)
	}
	key, err := rndc.NewKey(ns.RNDCKeyName, ns.RNDCAlgorithm, ns.RNDCSecret)
	if err != nil {
		b.Fatal(err)
	}
	rc := &rndc.Client{Addr: ns.ControlAddr, Key: key, Timeout: 10 * time.Second, Expiry: 20 * time.Second}
	defer rc.Close()
	life := &zoneservice.Service{Store: store, Control: rc, UpdateKey: ns.TSIGKeyName, SendWithin: 10 * time.Second, Expiry: rc.Expiry}
	ctx := context.Background()
	zone := func(name string) *zonemodel.Zone {
		req := createRequest(name)
		z, err := req.Normalize(time.Now())
		if err != nil {
			b.Fatal(err)
		}
		return z
	}

	// The handler's sequence before the lifecycle, under the zone lock.
	baseline := func(name string) {
		z := zone(name)
		unlock, err := store.Lock(ctx, name)
		if err != nil {
			b.Fatal(err)
		}
		defer unlock()
		if _, found, _ := store.Get(name); found {
			b.Fatal("exists")
		}
		data, err := z.RenderFile()
		if err != nil {
			b.Fatal(err)
		}
		path, err := store.CreateFile(name, data)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := rc.AddZone(ctx, zoneservice.AddZoneStatement(z, path, ns.TSIGKeyName, "")); err != nil {
			b.Fatal(err)
		}
		if err := store.Put(zonestore.Entry{Name: name, Type: z.Type}); err != nil {
			b.Fatal(err)
		}
	}
	withIntent := func(name string) {
		req := createRequest(name)
		z, err := req.Normalize(time.Now())
		if err != nil {
			b.Fatal(err)
		}
		if _, err := life.Create(ctx, z, zoneservice.Fingerprint(req)); err != nil {
			b.Fatal(err)
		}
	}

	var before, after []time.Duration
	for round := 0; round*10 < n; round++ {
		for i := 0; i < 10; i++ {
			t0 := time.Now()
			baseline(fmt.Sprintf("b%04d-%d.bench", round, i))
			before = append(before, time.Since(t0))
		}
		for i := 0; i < 10; i++ {
			t0 := time.Now()
			withIntent(fmt.Sprintf("i%04d-%d.bench", round, i))
			after = append(after, time.Since(t0))
		}
	}
	p50 := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	pb, pa := p50(before), p50(after)
	b.ReportMetric(pb.Seconds()*1000, "baseline-p50-ms")
	b.ReportMetric(pa.Seconds()*1000, "intent-p50-ms")
	b.ReportMetric(ratio(pa, pb), "intent/baseline")
	fmt.Printf("\nzone create, %d each, alternating in rounds of 10, same named and zone directory:\n", len(before))
	fmt.Printf("| create | p50 | ratio |\n|---|---|---|\n")
	fmt.Printf("| before: file, addzone, index put | %s | 1.00x |\n", ms(pb))
	fmt.Printf("| zoneservice: intent, file, addzone, index put + intent done | %s | %.2fx |\n", ms(pa), ratio(pa, pb))
}

// createRequest is zoneBody as a request struct.
func createRequest(zone string) *zonemodel.CreateZoneRequest {
	serial := uint32(2026112501)
	ttl := uint32(300)
	return &zonemodel.CreateZoneRequest{ZoneName: zone, ZoneType: "primary", ZoneConfig: &zonemodel.ZoneConfig{
		TTL:           3600,
		SOA:           &zonemodel.SOA{PrimaryNS: "ns1." + zone + ".", AdminEmail: "hostmaster." + zone + ".", Serial: &serial},
		NameServers:   []string{"ns1." + zone + ".", "ns2." + zone + "."},
		NameServerIPs: map[string]string{"ns1." + zone + ".": "192.0.2.53", "ns2." + zone + ".": "2001:db8::53"},
		Records:       []zonemodel.Record{{Name: "www", Type: "A", Value: "192.0.2.80", TTL: &ttl}},
	}}
}
