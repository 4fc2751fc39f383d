package dnsupdate_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate/dnstest"
)

// TestTransferFrom: a signed AXFR from another server gives the zone,
// SOA first; more records than the bound is cut off (TooLarge); a closed
// port is a *DialError; a wrong key is refused.
func TestTransferFrom(t *testing.T) {
	d := dnstest.NewServer(t, map[string]string{
		"src.test": "src.test. 300 IN SOA ns1.src.test. h.src.test. 9 1 1 1 1\nsrc.test. 300 IN NS ns1.src.test.\n" +
			"ns1.src.test. 300 IN A 192.0.2.1\nwww.src.test. 300 IN A 192.0.2.2\n",
	})
	key := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: dnstest.TSIGSecret}
	ctx := context.Background()
	rrs, err := dnsupdate.TransferFrom(ctx, d.Addr, key, "src.test", time.Second, 0)
	if err != nil || len(rrs) != 4 || rrs[0].Header().Rrtype != 6 {
		t.Fatalf("transfer: %v, %v", rrs, err)
	}
	if _, err := dnsupdate.TransferFrom(ctx, d.Addr, key, "src.test", time.Second, 4); err != nil {
		t.Fatalf("4 records with a bound of 4: %v", err)
	}
	if _, err := dnsupdate.TransferFrom(ctx, d.Addr, key, "src.test", time.Second, 3); !dnsupdate.TooLarge(err) {
		t.Fatalf("4 records with a bound of 3: %v, want TooLarge", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	var de *dnsupdate.DialError
	if _, err := dnsupdate.TransferFrom(ctx, closed, key, "src.test", time.Second, 0); !errors.As(err, &de) {
		t.Fatalf("closed port: %v, want a *DialError", err)
	}
	wrong := &dnsupdate.TSIGKey{Name: dnstest.TSIGKey, Algorithm: "hmac-sha256", Secret: "d3Jvbmd3cm9uZ3dyb25nd3Jvbmc="}
	if _, err := dnsupdate.TransferFrom(ctx, d.Addr, wrong, "src.test", time.Second, 0); err == nil {
		t.Fatal("a transfer signed with the wrong key succeeded")
	}
}
