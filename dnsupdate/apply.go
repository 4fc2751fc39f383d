package dnsupdate

import (
	"context"

	"github.com/miekg/dns"
)

// Apply sends one UPDATE message to the zone with the caller's own
// prerequisite and update sections (RFC 2136 sections 2.4 and 2.5), through
// the zone's writer: pinned to the SOA last seen and setting the next
// serial, like every other write. It is for callers that state their own
// conditions, such as the external-dns webhook (the RRsets it last read
// must still be there). The message is all or nothing: when a prerequisite
// fails, named answers NXRRSET, YXRRSET, NXDOMAIN or YXDOMAIN, returned as
// a *ServerError (IsRcode), and nothing changed. The caller checks the
// records' content; Apply adds no rule of its own.
func (u *Updater) Apply(ctx context.Context, zone string, prereq, update []dns.RR, opt WriteOptions) (*ChangeResult, error) {
	s, err := u.commit(ctx, zone, &write{prereq: prereq, update: update, ifSerial: opt.IfSerial, method: opt.SerialMethod, applied: opt.Applied, hold: opt.Hold})
	if err != nil {
		return nil, err
	}
	return s.into(&ChangeResult{Zone: zone, Changes: len(update)}), nil
}
