package dnsupdate

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// NotifyTimeout bounds the wait for one server's answer to a NOTIFY.
const NotifyTimeout = 2 * time.Second

// NotifyResult is one server's answer to a NOTIFY (the zone model's
// type, which front ends read).
type NotifyResult = zonemodel.NotifyResult

// SendNotify sends one NOTIFY for zone with soa in the answer section
// (RFC 1996 section 3.7) to addr ("ip:port") over UDP, retrying once
// after a timeout, and reports the answer. It is not signed: secondaries
// take a NOTIFY only as a hint to check the primary's SOA.
func SendNotify(ctx context.Context, zone string, soa *dns.SOA, addr string) NotifyResult {
	res := NotifyResult{Server: addr}
	m := new(dns.Msg)
	m.SetNotify(dns.Fqdn(zone))
	m.Answer = []dns.RR{soa}
	cl := &dns.Client{Net: "udp", Timeout: NotifyTimeout}
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
	res.Rcode = RcodeName(in.Rcode)
	res.Acknowledged = in.Rcode == dns.RcodeSuccess && in.Opcode == dns.OpcodeNotify
	return res
}

// RcodeName returns the mnemonic of a DNS response code (RFC 6895
// section 2.3), e.g. "REFUSED", or its number when it has none.
func RcodeName(rcode int) string { return zonemodel.RcodeName(rcode) }
