package zonestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/miekg/dns"
)

// Defaults of the DNS client.
const (
	// DefaultDNSTimeout bounds one DNS exchange (update, query) when the
	// context has no earlier deadline.
	DefaultDNSTimeout = 5 * time.Second
	// maxOpen is how many connections to one server may be open at once.
	maxOpen = 8
	// maxIdleAge is how long an idle connection is reused; named closes
	// idle TCP connections after tcp-idle-timeout (30 s by default).
	maxIdleAge = 10 * time.Second
	// tsigFudge is the TSIG time fudge in seconds.
	tsigFudge = 300
)

// TSIGKey is the key that signs updates and zone transfers.
type TSIGKey struct {
	// Name is the key's name as named knows it, e.g. "zoneapi-update".
	Name string
	// Algorithm is the HMAC algorithm in BIND's spelling, e.g.
	// "hmac-sha256".
	Algorithm string
	// Secret is the base64 secret.
	Secret string
}

// tsigAlgorithms maps BIND's algorithm names to the TSIG algorithm names.
var tsigAlgorithms = map[string]string{
	"hmac-md5":    dns.HmacMD5,
	"hmac-sha1":   dns.HmacSHA1,
	"hmac-sha224": dns.HmacSHA224,
	"hmac-sha256": dns.HmacSHA256,
	"hmac-sha384": dns.HmacSHA384,
	"hmac-sha512": dns.HmacSHA512,
}

// ServerError is a DNS answer with an error rcode from named.
type ServerError struct {
	// Op is what was asked: "update", "query", "transfer".
	Op string
	// Zone is the zone the message was about.
	Zone string
	// Rcode is the response code, e.g. dns.RcodeRefused.
	Rcode int
	// TSIGError is the error field of the response's TSIG record (BADSIG,
	// BADKEY, BADTIME), or 0.
	TSIGError uint16
}

// Error describes the answer, e.g. "update of example.com: REFUSED".
func (e *ServerError) Error() string {
	s := fmt.Sprintf("%s of %s: named answered %s", e.Op, e.Zone, dns.RcodeToString[e.Rcode])
	if e.TSIGError != 0 {
		s += " (TSIG " + dns.RcodeToString[int(e.TSIGError)] + ")"
	}
	return s
}

// IsRcode reports whether err is a *ServerError with the given rcode.
func IsRcode(err error, rcode int) bool {
	var se *ServerError
	return errors.As(err, &se) && se.Rcode == rcode
}

// DNSClient talks to one named over TCP: RFC 2136 updates signed with
// TSIG, plain queries and zone transfers. It keeps a small pool of TCP
// connections and is safe for concurrent use.
type DNSClient struct {
	server  string
	key     *TSIGKey
	keyName string // canonical: lower-case FQDN
	alg     string // TSIG algorithm name
	secrets map[string]string
	timeout time.Duration
	dialer  net.Dialer

	mu   sync.Mutex
	idle []idleConn
	// open holds a token per open connection (maxOpen at most): named's
	// tcp-listen-queue is 10 by default, and a burst of connects it does
	// not accept in time loses SYNs, which the kernel sends again only
	// after a second. freed is closed (and replaced) when a connection
	// is returned, waking those waiting for one.
	open  chan struct{}
	freed chan struct{}

	hooks Hooks
}

// Hooks observe a DNSClient's exchanges, for logs and metrics.
type Hooks struct {
	// Message, if set, is called with every message sent ("send") and
	// received ("recv") on pooled connections. A message carries at most
	// a TSIG MAC, never the secret.
	Message func(direction string, m *dns.Msg)
	// Update, if set, is called after every UPDATE with named's rcode
	// (-1 when no answer came) and the round-trip time.
	Update func(rcode int, d time.Duration)
}

// SetHooks installs h. Call it before the client is used.
func (c *DNSClient) SetHooks(h Hooks) { c.hooks = h }

type idleConn struct {
	c     net.Conn
	since time.Time
}

// NewDNSClient returns a client of the DNS server at server (host:port).
// key may be nil: the client can then query and transfer but not update.
// timeout bounds each exchange (DefaultDNSTimeout when zero).
func NewDNSClient(server string, key *TSIGKey, timeout time.Duration) (*DNSClient, error) {
	if _, _, err := net.SplitHostPort(server); err != nil {
		return nil, fmt.Errorf("dns server %q: %v", server, err)
	}
	if timeout <= 0 {
		timeout = DefaultDNSTimeout
	}
	c := &DNSClient{server: server, timeout: timeout, open: make(chan struct{}, maxOpen), freed: make(chan struct{})}
	if key != nil {
		alg, ok := tsigAlgorithms[strings.TrimSuffix(strings.ToLower(key.Algorithm), ".")]
		if !ok {
			return nil, fmt.Errorf("tsig key %q: unsupported algorithm %q", key.Name, key.Algorithm)
		}
		k := *key
		c.key = &k
		c.keyName = dns.CanonicalName(key.Name)
		c.alg = alg
		c.secrets = map[string]string{c.keyName: key.Secret}
	}
	return c, nil
}

// Server returns the host:port the client talks to.
func (c *DNSClient) Server() string { return c.server }

// CanUpdate reports whether the client holds a key to sign updates with.
func (c *DNSClient) CanUpdate() bool { return c.key != nil }

// KeyName returns the update key's name, or "".
func (c *DNSClient) KeyName() string {
	if c.key == nil {
		return ""
	}
	return c.key.Name
}

// get returns a pooled connection (reused true) or a new one. At most
// maxOpen connections are open; beyond that, get waits for one to be
// returned.
func (c *DNSClient) get(ctx context.Context) (net.Conn, bool, error) {
	var dctx context.Context
	for {
		now := time.Now()
		c.mu.Lock()
		for len(c.idle) > 0 {
			ic := c.idle[len(c.idle)-1]
			c.idle = c.idle[:len(c.idle)-1]
			if now.Sub(ic.since) < maxIdleAge {
				c.mu.Unlock()
				return ic.c, true, nil
			}
			_ = ic.c.Close()
			<-c.open
		}
		freed := c.freed
		c.mu.Unlock()
		if dctx == nil {
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(ctx, c.timeout)
			defer cancel()
		}
		select {
		case c.open <- struct{}{}:
			conn, err := c.dialer.DialContext(dctx, "tcp", c.server)
			if err != nil {
				<-c.open
				return nil, false, fmt.Errorf("connecting to named at %s: %w", c.server, err)
			}
			return conn, false, nil
		case <-freed: // a connection came back: take it
		case <-dctx.Done():
			return nil, false, fmt.Errorf("waiting for a connection to named at %s: %w", c.server, dctx.Err())
		}
	}
}

// put returns a healthy connection to the pool and wakes the waiters.
// Every open connection holds a token of c.open, so the idle list never
// exceeds maxOpen.
func (c *DNSClient) put(conn net.Conn) {
	c.mu.Lock()
	c.idle = append(c.idle, idleConn{conn, time.Now()})
	close(c.freed)
	c.freed = make(chan struct{})
	c.mu.Unlock()
}

// discard closes a connection that failed.
func (c *DNSClient) discard(conn net.Conn) {
	_ = conn.Close()
	<-c.open
}

// Close closes the idle connections.
func (c *DNSClient) Close() {
	c.mu.Lock()
	idle := c.idle
	c.idle = nil
	c.mu.Unlock()
	for _, ic := range idle {
		c.discard(ic.c)
	}
}

// exchange sends m over a pooled TCP connection and reads the answer,
// signing m with the TSIG key when sign is true. A reused connection that
// named closed while idle is replaced once: named never read the message
// from it, so sending it again is safe.
func (c *DNSClient) exchange(ctx context.Context, m *dns.Msg, sign bool) (*dns.Msg, error) {
	if sign {
		if c.key == nil {
			return nil, errors.New("no TSIG key to sign the message with")
		}
		m.SetTsig(c.keyName, c.alg, tsigFudge, time.Now().Unix())
	}
	for attempt := 0; ; attempt++ {
		conn, reused, err := c.get(ctx)
		if err != nil {
			return nil, err
		}
		deadline := time.Now().Add(c.timeout)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		_ = conn.SetDeadline(deadline)
		// A fresh dns.Conn per exchange: its TSIG request MAC must not
		// carry over from the previous message on the connection.
		co := &dns.Conn{Conn: conn}
		if sign {
			co.TsigSecret = c.secrets
		}
		if c.hooks.Message != nil {
			c.hooks.Message("send", m)
		}
		r, err := roundTrip(co, m)
		if r != nil && c.hooks.Message != nil {
			c.hooks.Message("recv", r)
		}
		if err == nil {
			c.put(conn)
			return r, nil
		}
		c.discard(conn)
		if reused && attempt == 0 && isStale(err) {
			continue
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("waiting for named at %s: %w", c.server, ctx.Err())
		}
		return nil, fmt.Errorf("exchanging with named at %s: %w", c.server, err)
	}
}

// roundTrip writes m and reads its answer.
func roundTrip(co *dns.Conn, m *dns.Msg) (*dns.Msg, error) {
	if err := co.WriteMsg(m); err != nil {
		return nil, err
	}
	r, err := co.ReadMsg()
	if err != nil {
		if r != nil && errors.Is(err, dns.ErrSig) {
			return nil, fmt.Errorf("answer's TSIG signature does not verify: %w", err)
		}
		return nil, err
	}
	if r.Id != m.Id {
		return nil, dns.ErrId
	}
	return r, nil
}

// isStale reports whether err means the peer had closed the connection.
func isStale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Update sends an UPDATE message for zone, signed with the key, and
// returns nil when named answered NOERROR, else a *ServerError (or a
// transport error).
func (c *DNSClient) Update(ctx context.Context, zone string, m *dns.Msg) error {
	start := time.Now()
	r, err := c.exchange(ctx, m, true)
	if c.hooks.Update != nil {
		rcode := -1
		if r != nil {
			rcode = r.Rcode
		}
		c.hooks.Update(rcode, time.Since(start))
	}
	if err != nil {
		return fmt.Errorf("update of %s: %w", zone, err)
	}
	se := &ServerError{Op: "update", Zone: zone, Rcode: r.Rcode}
	if t := r.IsTsig(); t != nil {
		se.TSIGError = t.Error
	} else if r.Rcode == dns.RcodeSuccess {
		return fmt.Errorf("update of %s: named's answer is not signed", zone)
	}
	if r.Rcode != dns.RcodeSuccess || se.TSIGError != 0 {
		return se
	}
	return nil
}

// Query asks named for name/qtype and returns the answer and authority
// records owned by name with that type (any type for ANY), or a
// *ServerError for a REFUSED, NOTAUTH or SERVFAIL answer.
func (c *DNSClient) Query(ctx context.Context, zone, name string, qtype uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.RecursionDesired = false
	r, err := c.exchange(ctx, m, false)
	if err != nil {
		return nil, fmt.Errorf("query %s %s: %w", name, dns.TypeToString[qtype], err)
	}
	switch r.Rcode {
	case dns.RcodeSuccess, dns.RcodeNameError:
	default:
		return nil, &ServerError{Op: "query", Zone: zone, Rcode: r.Rcode}
	}
	if !r.Authoritative && len(r.Answer) == 0 && !hasSOA(r.Ns, zone) && !hasNS(r.Ns) {
		// named does not serve the zone (it answered without authority).
		return nil, &ServerError{Op: "query", Zone: zone, Rcode: dns.RcodeNotAuth}
	}
	var out []dns.RR
	for _, rr := range append(r.Answer, r.Ns...) {
		h := rr.Header()
		if strings.EqualFold(h.Name, name) && (qtype == dns.TypeANY || h.Rrtype == qtype) {
			out = append(out, rr)
		}
	}
	return out, nil
}

func hasSOA(rrs []dns.RR, zone string) bool {
	for _, rr := range rrs {
		if rr.Header().Rrtype == dns.TypeSOA && strings.EqualFold(rr.Header().Name, zone+".") {
			return true
		}
	}
	return false
}

func hasNS(rrs []dns.RR) bool {
	for _, rr := range rrs {
		if rr.Header().Rrtype == dns.TypeNS {
			return true
		}
	}
	return false
}

// SOA returns the zone's SOA record as named serves it. A zone named does
// not serve gives a *ServerError with rcode NOTAUTH (or REFUSED).
func (c *DNSClient) SOA(ctx context.Context, zone string) (*dns.SOA, error) {
	rrs, err := c.Query(ctx, zone, zone+".", dns.TypeSOA)
	if err != nil {
		return nil, err
	}
	for _, rr := range rrs {
		if soa, ok := rr.(*dns.SOA); ok {
			return soa, nil
		}
	}
	return nil, &ServerError{Op: "query", Zone: zone, Rcode: dns.RcodeNotAuth}
}

// Transfer reads the whole zone by AXFR over a new TCP connection, signed
// with the key when the client has one. The result starts with the SOA and
// does not repeat it at the end.
func (c *DNSClient) Transfer(ctx context.Context, zone string) ([]dns.RR, error) {
	deadline := time.Now().Add(4 * c.timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	dctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	conn, err := c.dialer.DialContext(dctx, "tcp", c.server)
	if err != nil {
		return nil, fmt.Errorf("transfer of %s: connecting to named at %s: %w", zone, c.server, err)
	}
	stop := context.AfterFunc(dctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	_ = conn.SetDeadline(deadline)
	t := &dns.Transfer{Conn: &dns.Conn{Conn: conn}, ReadTimeout: time.Until(deadline)}
	m := new(dns.Msg)
	m.SetAxfr(zone + ".")
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
	for e := range env {
		if e.Error != nil {
			if failed == nil {
				failed = e.Error
			}
			continue
		}
		out = append(out, e.RR...)
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
	if len(out) < 2 {
		return nil, fmt.Errorf("transfer of %s: named sent %d records", zone, len(out))
	}
	return out[:len(out)-1], nil
}
