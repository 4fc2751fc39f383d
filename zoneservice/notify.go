package zoneservice

import (
	"context"
	"net"
	"net/netip"
	"sync"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Notified is what Notify did (zonemodel.Notified).
type Notified = zonemodel.Notified

// Notify runs `rndc notify` (named notifies whatever its configuration
// says: NS targets under notify yes, also-notify, the options'
// also-notify) and then sends a NOTIFY itself (RFC 1996), carrying the
// SOA named serves, to every server it can name: the zone's also-notify
// servers and the catalog's (CatalogNotify), and reports each one's
// answer. Errors: those of the commands (showzone, notify), and ErrControl
// without a command when the SOA cannot be read.
func (s *Service) Notify(ctx context.Context, name string) (*Notified, error) {
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	if err != nil {
		return nil, s.commandErr(name, "showzone", err)
	}
	text, err := s.Control.Notify(ctx, name)
	s.statusChanged(name, false)
	if err != nil {
		return nil, s.commandErr(name, "notify", err)
	}
	if s.Updater == nil {
		return nil, newErr(ErrControl, name, "", "reading the SOA of "+name+" from named", dnsupdate.ErrNoUpdateKey)
	}
	soa, err := s.Updater.Client().SOA(ctx, name)
	if err != nil {
		return nil, newErr(ErrControl, name, "", "reading the SOA of "+name+" from named", err)
	}

	type target struct{ addr, source string }
	var targets []target
	seen := map[string]bool{}
	addTarget := func(elem, source string) {
		addr, ok := serverAddr(elem)
		if !ok || seen[addr] {
			return
		}
		seen[addr] = true
		targets = append(targets, target{addr, source})
	}
	if v, ok := zc.Get("also-notify"); ok {
		if elems, ok := v.Elems(); ok {
			for _, e := range elems {
				addTarget(viewServer(e), "also-notify")
			}
		}
	}
	for _, t := range s.CatalogNotify {
		addTarget(t, "catalog")
	}

	servers := make([]dnsupdate.NotifyResult, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i] = dnsupdate.SendNotify(ctx, name, soa, t.addr)
			servers[i].Source = t.source
		}()
	}
	wg.Wait()
	s.log().Info("zone notified", zap.String("zone", name), zap.Uint32("serial", soa.Serial), zap.Int("servers", len(servers)))
	return &Notified{Details: text, Serial: soa.Serial, Servers: servers}, nil
}

// serverAddr turns a server element of the API's notation ("ip",
// "ip:port", "[v6]:port", optionally with " key NAME") into "ip:port",
// port 53 by default.
func serverAddr(s string) (string, bool) {
	conf, err := ServerElement(s)
	if err != nil {
		return "", false
	}
	w := conf.Strings()
	if len(w) == 0 {
		return "", false
	}
	port := "53"
	if len(w) >= 3 && w[1] == "port" {
		port = w[2]
	}
	a, err := netip.ParseAddr(w[0])
	if err != nil {
		return "", false
	}
	return net.JoinHostPort(a.String(), port), true
}
