package module

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// notifyTimeout bounds the wait for one server's answer to a NOTIFY.
const notifyTimeout = 2 * time.Second

// handleNotify runs `rndc notify` (named notifies whatever its
// configuration says: NS targets under notify yes, also-notify, the
// options' also-notify) and then sends a NOTIFY itself, carrying the SOA
// named serves, to every server it can name: the zone's also-notify
// servers and, when a catalog is configured, the catalog's also_notify
// servers. The answer lists each with its acknowledgement, and the serial.
func (h *Handler) handleNotify(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := h.zoneTarget(w, p)
	if !ok {
		return
	}
	ctx := r.Context()
	zc, ok := h.showZone(ctx, w, b, name)
	if !ok {
		return
	}
	text, err := b.rndc.Notify(ctx, name)
	if err != nil {
		h.commandFailed(w, "notify", name, err)
		return
	}
	soa, err := b.records.Client().SOA(ctx, name)
	if err != nil {
		writeBadGateway(w, "reading the SOA of %s from named: %v", name, err)
		return
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
		if elems, err := rndc.ParseList(v); err == nil {
			for _, e := range elems {
				addTarget(viewServer(e), "also-notify")
			}
		}
	}
	for _, t := range h.catalogNotify {
		addTarget(t.api, "catalog")
	}

	servers := make([]notifiedServer, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			servers[i] = sendNotify(ctx, name, soa, t.addr)
			servers[i].Source = t.source
		}()
	}
	wg.Wait()
	h.logger.Info("zone notified", zap.String("zone", name), zap.Uint32("serial", soa.Serial), zap.Int("servers", len(servers)))
	writeJSON(w, http.StatusOK, notifyResponse{
		Success: true, Message: "Notify sent for zone " + name, Details: text, Serial: soa.Serial, Servers: servers,
	})
}

// serverAddr turns an API server element ("ip", "ip:port", "[v6]:port",
// optionally with " key NAME") into "ip:port", port 53 by default.
func serverAddr(s string) (string, bool) {
	conf, err := confServer(s)
	if err != nil {
		return "", false
	}
	w, err := rndc.Words(conf)
	if err != nil || len(w) == 0 {
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

// sendNotify sends one NOTIFY for zone with soa in the answer section
// (RFC 1996 section 3.7) over UDP and reports the answer.
func sendNotify(ctx context.Context, zone string, soa *dns.SOA, addr string) notifiedServer {
	res := notifiedServer{Server: addr}
	m := new(dns.Msg)
	m.SetNotify(dns.Fqdn(zone))
	m.Answer = []dns.RR{soa}
	cl := &dns.Client{Net: "udp", Timeout: notifyTimeout}
	var in *dns.Msg
	var err error
	for attempt := 0; attempt < 2; attempt++ { // UDP: one retry
		in, _, err = cl.ExchangeContext(ctx, m, addr)
		var ne net.Error
		if err == nil || !(errors.As(err, &ne) && ne.Timeout()) {
			break
		}
	}
	if err != nil {
		res.Error = err.Error()
		return res
	}
	res.Rcode = dns.RcodeToString[in.Rcode]
	if res.Rcode == "" {
		res.Rcode = strconv.Itoa(in.Rcode)
	}
	res.Acknowledged = in.Rcode == dns.RcodeSuccess && in.Opcode == dns.OpcodeNotify
	return res
}
