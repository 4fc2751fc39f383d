package dnsupdate

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// ixfrPooled is IXFR over one of the client's pooled connections, read in
// the calling goroutine. It is how the zone's writer reads back the diff
// of the write it just made (Updater.diff): a step of a few records,
// asked once per change, for which IXFR's own TCP connect and close (and
// the DNS library's reader goroutine) cost more than the transfer. named
// answers any number of queries and transfers on one connection (RFC
// 7766), so the connection goes back to the pool after a complete answer;
// after any failure it is closed, and the caller may ask again with IXFR
// (a read: safe to send twice).
//
// Every message of the answer is checked as the DNS library's transfers
// check them: each must be signed when the client has a key, its TSIG
// verified against the previous MAC (RFC 8945 section 5.3.1). The answer ends as RFC 1995 says: a single SOA
// (up to date), the third copy of the current SOA (incremental), or its
// second copy when the answer is the whole zone.
func (c *Client) ixfrPooled(ctx context.Context, zone string, from uint32) ([]Delta, []dns.RR, error) {
	m := new(dns.Msg)
	m.SetIxfr(zonemodel.Origin(zone), from, ".", ".")
	conn, _, err := c.get(ctx)
	if err != nil {
		return nil, nil, err
	}
	rrs, err := c.xfrOn(ctx, conn, zone, m, from)
	if err != nil {
		c.discard(conn)
		return nil, nil, fmt.Errorf("ixfr of %s: %w", zone, err)
	}
	c.put(conn)
	return parseIXFR(zone, rrs)
}

// axfrPooled is AXFR over one of the client's pooled connections, read in
// the calling goroutine, as ixfrPooled: for reads of many small zones
// one after the other (the PowerDNS search, Updater.Scan), where a TCP
// connect and close per zone, and the DNS library's 64 KiB buffer per
// message, cost more than the transfer. It returns the zone's records,
// SOA first, not repeated at the end (as transferUpTo).
func (c *Client) axfrPooled(ctx context.Context, zone string) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetAxfr(zonemodel.Origin(zone))
	conn, _, err := c.get(ctx)
	if err != nil {
		return nil, err
	}
	rrs, err := c.xfrOn(ctx, conn, zone, m, 0)
	if err != nil {
		c.discard(conn)
		return nil, fmt.Errorf("transfer of %s: %w", zone, err)
	}
	c.put(conn)
	return rrs[:len(rrs)-1], nil
}

// xfrOn sends the IXFR or AXFR query m on conn and returns every record
// of the answer. An AXFR answer ends with the second copy of its SOA.
// When ctx ends before the transfer stops watching it, even with the
// answer read whole, it fails with ctx's error, so that the caller does
// not pool conn: the watch's deadline in the past lands on conn from a
// goroutine of its own, possibly once another exchange uses it.
func (c *Client) xfrOn(ctx context.Context, conn net.Conn, zone string, m *dns.Msg, from uint32) (rrs []dns.RR, xerr error) {
	axfr := m.Question[0].Qtype == dns.TypeAXFR
	deadline := c.transferDeadline(ctx)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() && xerr == nil {
			rrs, xerr = nil, ctx.Err()
		}
	}()
	var (
		wire []byte
		mac  string
		err  error
	)
	if c.key != nil {
		m.SetTsig(c.keyName, c.alg, tsigFudge, time.Now().Unix())
		wire, mac, err = dns.TsigGenerate(m, c.key.Secret, "", false)
	} else {
		wire, err = m.Pack()
	}
	if err != nil {
		return nil, err
	}
	_ = conn.SetDeadline(earlier(deadline, time.Now().Add(c.timeout)))
	if _, err := (&net.Buffers{binary.BigEndian.AppendUint16(nil, uint16(len(wire))), wire}).WriteTo(conn); err != nil {
		return nil, err
	}
	var (
		out            []dns.RR
		serial         uint32
		soas, size     int
		whole          = true // until a second SOA of another serial shows an incremental answer
		first          = true
		timersOnly     = false
		lenBuf         [2]byte
		errUnsignedMsg = errors.New("named's answer is not signed")
	)
	for {
		// Each message within the client's timeout, the whole within
		// the deadline.
		_ = conn.SetReadDeadline(earlier(deadline, time.Now().Add(c.timeout)))
		if _, err := io.ReadFull(conn, lenBuf[:]); err != nil {
			return nil, err
		}
		p := make([]byte, binary.BigEndian.Uint16(lenBuf[:]))
		if _, err := io.ReadFull(conn, p); err != nil {
			return nil, err
		}
		r := new(dns.Msg)
		if err := r.Unpack(p); err != nil {
			return nil, err
		}
		if r.Id != m.Id {
			return nil, dns.ErrId
		}
		if c.key != nil {
			t := r.IsTsig()
			switch {
			case t != nil:
				if err := dns.TsigVerify(p, c.key.Secret, mac, timersOnly); err != nil {
					return nil, fmt.Errorf("answer's TSIG signature does not verify: %w", err)
				}
				mac = t.MAC
			default:
				// Every message signed, as the DNS library's
				// transfers want them and named signs them: an
				// unsigned one (RFC 8945 allows some between signed
				// ones, its content covered by the next MAC, which
				// is not checked so here) would let anyone on the
				// path append records to a transfer.
				return nil, errUnsignedMsg
			}
		}
		timersOnly = true
		if r.Rcode != dns.RcodeSuccess {
			return nil, &ServerError{Op: "transfer", Zone: zone, Rcode: r.Rcode}
		}
		if first {
			first = false
			soa, ok := firstSOA(r)
			if !ok {
				return nil, dns.ErrSoa
			}
			serial = soa.Serial
			if !axfr && (len(r.Answer) == 1 || !serialLess(from, serial)) {
				return r.Answer, nil // up to date
			}
		}
		for _, rr := range r.Answer {
			if soa, ok := rr.(*dns.SOA); ok {
				if soa.Serial == serial {
					soas++
				} else {
					whole = false
				}
			}
			if c.transferMaxBytes > 0 {
				size += dns.Len(rr)
			}
		}
		out = append(out, r.Answer...)
		if c.transferMaxBytes > 0 && size > c.transferMaxBytes {
			return nil, errTooLarge
		}
		if whole && soas == 2 || soas == 3 {
			return out, nil
		}
	}
}

// earlier returns the earlier of a and b.
func earlier(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// firstSOA returns the answer's first record when it is an SOA.
func firstSOA(r *dns.Msg) (*dns.SOA, bool) {
	if len(r.Answer) == 0 {
		return nil, false
	}
	soa, ok := r.Answer[0].(*dns.SOA)
	return soa, ok
}
