package integration

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/client"
)

// createZone creates zone through the Go client with the standard test
// content (zoneBody).
func createZone(t testing.TB, c *client.Client, zone string) {
	t.Helper()
	ttl := uint32(300)
	prio := uint16(10)
	serial := uint32(2026112501)
	_, err := c.CreateZone(context.Background(), client.CreateZone{
		ZoneName: zone, ZoneType: "primary",
		ZoneConfig: &client.ZoneConfig{
			TTL:           3600,
			SOA:           &client.SOA{PrimaryNS: "ns1." + zone + ".", AdminEmail: "hostmaster." + zone + ".", Serial: &serial},
			NameServers:   []string{"ns1." + zone + "."},
			NameServerIPs: map[string]string{"ns1." + zone + ".": "192.0.2.53"},
			Records: []client.Record{
				{Name: "www", Type: "A", Value: "192.0.2.80", TTL: &ttl},
				{Name: "@", Type: "MX", Value: "mail." + zone + ".", Priority: &prio},
			},
		},
	})
	if err != nil {
		t.Fatalf("creating %s: %v", zone, err)
	}
}

// TestGoClient drives the real API with the Go client: zones, records,
// ETags and conditional writes, errors as values; named's answers are
// checked after each change.
func TestGoClient(t *testing.T) {
	ns := startNamed(t)
	cd := startCaddy(t, ns, caddyOpts{})
	ctx := context.Background()
	c, err := client.New(cd.Base, testToken)
	if err != nil {
		t.Fatal(err)
	}

	h, err := c.Health(ctx)
	if err != nil || h.Status != "healthy" {
		t.Fatalf("health %+v, %v", h, err)
	}
	if r, err := c.Ready(ctx); err != nil || !r.Ready {
		t.Fatalf("ready %+v, %v", r, err)
	}

	createZone(t, c, "client.test")
	createZone(t, c, "client2.test")
	var zones []string
	for z, err := range c.AllZones(ctx, client.ListZonesOptions{Limit: 1}) {
		if err != nil {
			t.Fatal(err)
		}
		zones = append(zones, z.Name)
	}
	if !slices.Equal(zones, []string{"client.test", "client2.test"}) {
		t.Errorf("AllZones: %v", zones)
	}
	zi, err := c.GetZone(ctx, "client.test.")
	if err != nil || zi.Serial == nil || *zi.Serial != 2026112501 || zi.State != "active" {
		t.Fatalf("GetZone %+v, %v", zi, err)
	}

	// Errors are values with the status and the API's body.
	_, err = c.GetZone(ctx, "nosuch.test")
	var apiErr *client.Error
	if !errors.As(err, &apiErr) || !client.IsNotFound(err) || apiErr.Reason != "Not Found" || apiErr.Message == "" {
		t.Fatalf("GetZone of an unknown zone: %#v", err)
	}
	_, err = c.AddRecord(ctx, "client.test", client.Record{Name: "bad", Type: "A", Value: "not-an-address"})
	if client.StatusCode(err) != http.StatusBadRequest {
		t.Fatalf("bad record: %v", err)
	}

	ch, err := c.AddRecord(ctx, "client.test", client.Record{Name: "api", Type: "TXT", Value: "hello from Go"})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Serial == nil || ch.ETag == "" || ch.Record == nil || ch.Record.Name != "api.client.test." {
		t.Errorf("AddRecord answer %+v", ch)
	}
	if got := answers(query(t, ns, "api.client.test", dns.TypeTXT), dns.TypeTXT); !slices.Equal(got, []string{`"hello from Go"`}) {
		t.Errorf("named answers %v", got)
	}

	// Reads carry the serial as ETag; an unchanged zone answers 304.
	page, err := c.ListRecords(ctx, "client.test", client.ListRecordsOptions{Name: "api", Type: "TXT"})
	if err != nil || len(page.RRsets) != 1 || page.RRsets[0].Values[0] != `"hello from Go"` || page.Serial != *ch.Serial {
		t.Fatalf("ListRecords %+v, %v", page, err)
	}
	again, err := c.ListRecords(ctx, "client.test", client.ListRecordsOptions{IfNoneMatch: page.ETag})
	if err != nil || !again.NotModified {
		t.Fatalf("ListRecords with If-None-Match: %+v, %v", again, err)
	}
	sets, serial, err := c.RRsets(ctx, "client.test")
	if err != nil || serial != page.Serial || len(sets) < 5 {
		t.Fatalf("RRsets: %d sets, serial %d, %v", len(sets), serial, err)
	}

	// A batch conditional on a serial that has moved fails, changing nothing.
	stale := page.Serial - 1
	_, err = c.Batch(ctx, "client.test", []client.Change{{Op: client.OpReplace, Name: "api", Type: "TXT", Values: []string{"overwritten"}}}, client.IfMatch(stale))
	if !client.IsPreconditionFailed(err) {
		t.Fatalf("stale batch: %v", err)
	}
	if got := answers(query(t, ns, "api.client.test", dns.TypeTXT), dns.TypeTXT); !slices.Equal(got, []string{`"hello from Go"`}) {
		t.Errorf("after the stale batch named answers %v", got)
	}
	br, err := c.Batch(ctx, "client.test", []client.Change{
		{Op: client.OpReplace, Name: "api", Type: "TXT", Values: []string{"one", "two"}},
		{Op: client.OpAdd, Name: "api", Type: "A", Value: "192.0.2.7"},
	}, client.IfMatchETag(page.ETag))
	if err != nil || br.OldSerial != page.Serial || br.Serial != page.Serial+1 || br.Changes != 2 {
		t.Fatalf("batch %+v, %v", br, err)
	}
	got := answers(query(t, ns, "api.client.test", dns.TypeTXT), dns.TypeTXT)
	slices.Sort(got)
	if !slices.Equal(got, []string{`"one"`, `"two"`}) {
		t.Errorf("after the batch named answers %v", got)
	}

	if _, err := c.UpdateRecord(ctx, "client.test", client.UpdateRecord{Name: "api", Type: "TXT", CurrentValue: "absent", NewValue: "x"}); !client.IsNotFound(err) {
		t.Errorf("update of an absent value: %v", err)
	}
	if _, err := c.UpdateRecord(ctx, "client.test", client.UpdateRecord{Name: "api", Type: "TXT", CurrentValue: "one", NewValue: "three"}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RemoveRecord(ctx, "client.test", client.RemoveRecord{Name: "api", Type: "TXT"}); err != nil {
		t.Fatal(err)
	}
	if m := query(t, ns, "api.client.test", dns.TypeTXT); len(answers(m, dns.TypeTXT)) != 0 {
		t.Errorf("TXT still served after delete: %v", m.Answer)
	}
	if body, etag, err := c.Export(ctx, "client.test"); err != nil || etag == "" || len(body) == 0 {
		t.Errorf("export: %d bytes, etag %q, %v", len(body), etag, err)
	}

	if _, err := c.DeleteZone(ctx, "client2.test"); err != nil {
		t.Fatal(err)
	}
	if m := query(t, ns, "client2.test", dns.TypeSOA); m.Rcode == dns.RcodeSuccess && len(m.Answer) > 0 {
		t.Errorf("client2.test still served after delete")
	}
}
