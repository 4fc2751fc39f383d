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
//
// Both carry what an operator of a large catalog sets
// (PairSecondaryTuning, PairPrimaryTuning): BIND's defaults pace a
// secondary's first SOA query of each new member at 20 a second
// (serial-query-rate) and the primary's NOTIFYs at 20 a second
// (notify-rate; startup-notify-rate for a zone's first load, an
// addzone's included), so that a catalog of 10,000 new members took the
// secondary some 8 minutes to serve, whatever made the catalog.
type Pair struct {
	Primary, Secondary *Server
	// CatalogZone is the catalog zone the secondary consumes; the
	// primary does not have it until something creates it.
	CatalogZone string
}

// PairSecondaryTuning and PairPrimaryTuning are what a Pair's servers
// set in their options, against BIND's defaults: the secondary's
// serial-query-rate (20), transfers-in (10) and transfers-per-ns (2);
// the primary's notify-rate and startup-notify-rate (20 each) and
// transfers-out (10; at least the secondary's transfers-per-ns, or the
// primary turns away the transfers beyond it). docs/fleet.md gives them to
// operators.
const (
	PairSecondaryTuning = "serial-query-rate 1000; transfers-in 100; transfers-per-ns 100;"
	PairPrimaryTuning   = "notify-rate 1000; startup-notify-rate 1000; transfers-out 100;"
)

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
		ExtraOptions: fmt.Sprintf("also-notify { 127.0.0.1 port %d; }; %s", sDNS, PairPrimaryTuning),
	})
	secondary := Start(tb, &Options{
		DNSPort: sDNS, ControlPort: sCtl,
		ExtraOptions: fmt.Sprintf(`catalog-zones { zone %q default-primaries { 127.0.0.1 port %d; } in-memory no min-update-interval 1; }; %s`,
			catalogZone, pDNS, PairSecondaryTuning),
		ExtraConfig: fmt.Sprintf(`zone %q { type secondary; primaries { 127.0.0.1 port %d; }; file "catalog.db"; };`,
			catalogZone, pDNS),
	})
	return &Pair{Primary: primary, Secondary: secondary, CatalogZone: catalogZone}
}
