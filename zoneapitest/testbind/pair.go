package testbind

import (
	"fmt"
	"testing"
)

// Pair is a primary and a secondary named on different loopback ports.
// The primary sends NOTIFY for every zone to the secondary (also-notify
// in its options); the secondary consumes the catalog zone CatalogZone
// from the primary (catalog-zones, RFC 9432), so every member the
// primary's catalog lists becomes a secondary zone there, with its files
// in the secondary's ZoneDir. Nothing else is configured on the
// secondary: zones reach it only through the catalog.
type Pair struct {
	Primary, Secondary *Server
	// CatalogZone is the catalog zone the secondary consumes; the
	// primary does not have it until something creates it.
	CatalogZone string
}

// StartPair starts a Pair. Both servers stop when the test ends.
func StartPair(tb testing.TB, catalogZone string) *Pair {
	tb.Helper()
	var pDNS, pCtl, sDNS, sCtl int
	var err error
	if pDNS, pCtl, err = FreePorts(); err == nil {
		sDNS, sCtl, err = FreePorts()
	}
	if err != nil {
		tb.Fatalf("testbind: %v", err)
	}
	if sDNS == pDNS || sDNS == pCtl || sCtl == pDNS || sCtl == pCtl {
		if sDNS, sCtl, err = FreePorts(); err != nil {
			tb.Fatalf("testbind: %v", err)
		}
	}
	primary := Start(tb, &Options{
		DNSPort: pDNS, ControlPort: pCtl,
		ExtraOptions: fmt.Sprintf("also-notify { 127.0.0.1 port %d; };", sDNS),
	})
	secondary := Start(tb, &Options{
		DNSPort: sDNS, ControlPort: sCtl,
		ExtraOptions: fmt.Sprintf(`catalog-zones { zone %q default-primaries { 127.0.0.1 port %d; } in-memory no min-update-interval 1; };`,
			catalogZone, pDNS),
		ExtraConfig: fmt.Sprintf(`zone %q { type secondary; primaries { 127.0.0.1 port %d; }; file "catalog.db"; };`,
			catalogZone, pDNS),
	})
	return &Pair{Primary: primary, Secondary: secondary, CatalogZone: catalogZone}
}
