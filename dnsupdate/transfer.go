package dnsupdate

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Transfer reads the whole zone by AXFR over a new TCP connection, signed
// with the key when the client has one. The result starts with the SOA and
// does not repeat it at the end.
func (c *Client) Transfer(ctx context.Context, zone string) ([]dns.RR, error) {
	return c.transferUpTo(ctx, zone, 0)
}

// transferUpTo is Transfer, giving up with errTooLarge once more than max
// records came (0: no bound).
func (c *Client) transferUpTo(ctx context.Context, zone string, max int) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetAxfr(zonemodel.Origin(zone))
	out, err := c.transfer(ctx, zone, m, max)
	if err != nil {
		return nil, err
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("transfer of %s: named sent %d records", zone, len(out))
	}
	return out[:len(out)-1], nil
}

// transferDeadline is when a zone transfer begun now must be done: the
// client's transfer budget (transferTotal, else four timeouts) or ctx's
// deadline, whichever comes first.
func (c *Client) transferDeadline(ctx context.Context) time.Time {
	total := 4 * c.timeout
	if c.transferTotal > 0 {
		total = c.transferTotal
	}
	deadline := time.Now().Add(total)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	return deadline
}

// transfer sends the AXFR or IXFR query m over a new TCP connection and
// returns every record of the answer, as sent; errTooLarge once more than
// max records (the final SOA aside) came, when max is not 0.
func (c *Client) transfer(ctx context.Context, zone string, m *dns.Msg, max int) ([]dns.RR, error) {
	deadline := c.transferDeadline(ctx)
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	conn, err := c.dialer.DialContext(dctx, "tcp", c.server)
	if err != nil {
		return nil, &DialError{Server: c.server, Err: fmt.Errorf("transfer of %s: connecting to %s: %w", zone, c.server, err)}
	}
	stop := context.AfterFunc(dctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	_ = conn.SetDeadline(deadline)
	// Each message within the client's timeout (a server that stops
	// sending is found out in that time), the whole within the deadline.
	t := &dns.Transfer{Conn: &dns.Conn{Conn: conn}, ReadTimeout: min(c.timeout, time.Until(deadline))}
	if c.key != nil {
		t.TsigSecret = c.secrets
		m.SetTsig(c.keyName, c.alg, tsigFudge, time.Now().Unix())
	}
	env, err := t.In(m, c.server)
	if err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("transfer of %s: %w", zone, err)
	}
	var out []dns.RR
	var failed error
	size := 0 // wire bytes of the records, when c.transferMaxBytes bounds them
	for e := range env {
		if e.Error != nil {
			if failed == nil {
				failed = e.Error
			}
			continue
		}
		if errors.Is(failed, errTooLarge) {
			continue
		}
		out = append(out, e.RR...)
		if c.transferMaxBytes > 0 {
			for _, rr := range e.RR {
				size += dns.Len(rr)
			}
		}
		if (max > 0 && len(out) > max+1 || c.transferMaxBytes > 0 && size > c.transferMaxBytes) && failed == nil {
			failed = errTooLarge
			_ = conn.Close() // the loop drains what is left
		}
	}
	if errors.Is(failed, errTooLarge) {
		return nil, fmt.Errorf("transfer of %s: %w", zone, errTooLarge)
	}
	if failed != nil {
		if dctx.Err() != nil {
			return nil, fmt.Errorf("transfer of %s: %w", zone, dctx.Err())
		}
		if strings.Contains(failed.Error(), "bad xfr rcode") {
			var rc int
			if _, err := fmt.Sscanf(failed.Error()[strings.LastIndex(failed.Error(), ":")+1:], "%d", &rc); err == nil {
				return nil, &ServerError{Op: "transfer", Zone: zone, Rcode: rc}
			}
		}
		return nil, fmt.Errorf("transfer of %s: %w", zone, failed)
	}
	return out, nil
}

// MaxTransferTime bounds a transfer of TransferFrom.
const MaxTransferTime = 10 * time.Minute

// DialError is a transfer that could not connect to the server.
type DialError struct {
	// Server is the host:port that was dialled.
	Server string
	// Err is the cause.
	Err error
}

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// TransferFrom reads the zone by AXFR (RFC 5936) from the server at
// host:port, signed with key when it is not nil (RFC 8945: the answers
// must then be signed with it too), each message within timeout
// (DefaultTimeout when zero) and the whole transfer within
// MaxTransferTime or ctx.
// The result starts with the SOA and does not repeat it at the end. A
// server that cannot be reached is a *DialError; an error rcode is a
// *ServerError; a transfer that took too long wraps
// context.DeadlineExceeded.
//
// At most maxRecords records (0: no bound) and MaxTransferBytes of them
// are taken: a server that sends more is cut off, with an error for
// which TooLarge is true.
func TransferFrom(ctx context.Context, server string, key *TSIGKey, zone string, timeout time.Duration, maxRecords int) ([]dns.RR, error) {
	c, err := NewClient(server, key, timeout)
	if err != nil {
		return nil, err
	}
	c.transferTotal, c.transferMaxBytes = MaxTransferTime, MaxTransferBytes
	return c.transferUpTo(ctx, zone, maxRecords)
}

// MaxTransferBytes bounds the records of a transfer of TransferFrom, in
// wire bytes (uncompressed).
const MaxTransferBytes = 512 << 20

// TooLarge reports whether err is a transfer cut off for its size.
func TooLarge(err error) bool { return errors.Is(err, errTooLarge) }
