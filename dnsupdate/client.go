package dnsupdate

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/internal/connpool"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Defaults of the DNS client.
const (
	// DefaultTimeout bounds one DNS exchange (update, query) when the
	// context has no earlier deadline.
	DefaultTimeout = 5 * time.Second
	// maxOpen is how many connections to one server may be open at once.
	maxOpen = 8
	// maxIdleAge is how long an idle connection is reused; named closes
	// idle TCP connections after tcp-idle-timeout (30 s by default).
	maxIdleAge = 10 * time.Second
	// tsigFudge is the TSIG time fudge in seconds.
	tsigFudge = 300
)

// TSIGKey is the key that signs updates and zone transfers
// (zonemodel.TSIGKey).
type TSIGKey = zonemodel.TSIGKey

// tsigAlgorithms maps BIND's algorithm names to the TSIG algorithm names.
var tsigAlgorithms = map[string]string{
	"hmac-md5":    dns.HmacMD5,
	"hmac-sha1":   dns.HmacSHA1,
	"hmac-sha224": dns.HmacSHA224,
	"hmac-sha256": dns.HmacSHA256,
	"hmac-sha384": dns.HmacSHA384,
	"hmac-sha512": dns.HmacSHA512,
}

// Client talks to one named over TCP: RFC 2136 updates signed with
// TSIG, plain queries and zone transfers. It keeps a small pool of TCP
// connections and is safe for concurrent use.
type Client struct {
	server  string
	key     *TSIGKey
	keyName string // canonical: lower-case FQDN
	alg     string // TSIG algorithm name
	secrets map[string]string
	// signer signs updates and checks their answers (tsigsigner.go).
	signer  *tsigSigner
	timeout time.Duration
	// transferTotal bounds a whole transfer (default 4 × timeout).
	transferTotal time.Duration
	// transferMaxBytes, if set, bounds the records of a transfer.
	transferMaxBytes int
	dialer           net.Dialer

	idle connpool.Pool[net.Conn] // Discard: discard (gives the token back)
	mu   sync.Mutex              // guards freed
	// open holds a token per open connection (maxOpen at most): named's
	// tcp-listen-queue is 10 by default, and a burst of connects it does
	// not accept in time loses SYNs, which the kernel sends again only
	// after a second. freed is closed (and replaced) when a connection
	// is returned, waking those waiting for one.
	open  chan struct{}
	freed chan struct{}

	hooks Hooks
	// readers are the buffers answers are read through (roundTrip).
	readers sync.Pool

	// signQueries signs queries with the key too (SetSignQueries).
	signQueries bool
}

// SetSignQueries makes the client sign its queries (the SOA reads of
// record changes) with its key, as it always signs updates and zone
// transfers. A view of named matched by a TSIG key (match-clients { key
// k; }) answers only messages signed with k, so a client of that view
// signs everything it sends. Call it before the client is used.
func (c *Client) SetSignQueries(on bool) { c.signQueries = on }

// Hooks observe a Client's exchanges, for logs and metrics.
type Hooks struct {
	// Message, if set, is called with every message sent ("send") and
	// received ("recv") on pooled connections. A message carries at most
	// a TSIG MAC, never the secret. ctx is the exchange's context, so a
	// caller can route the message to its own logger (a context value).
	Message func(ctx context.Context, direction string, m Message)
	// Update, if set, is called after every UPDATE with named's rcode
	// (-1 when no answer came; RcodeName names the others) and the
	// round-trip time.
	Update func(rcode int, d time.Duration)
}

// Message is a DNS message as a Hooks.Message sees it: described on
// demand, so that a hook that logs nothing costs nothing.
type Message struct{ m *dns.Msg }

// Opcode is the message's opcode mnemonic, e.g. "UPDATE".
func (m Message) Opcode() string { return dns.OpcodeToString[m.m.Opcode] }

// Rcode is the message's rcode mnemonic, e.g. "NOERROR".
func (m Message) Rcode() string { return RcodeName(m.m.Rcode) }

// String is the message in dig's presentation format.
func (m Message) String() string { return m.m.String() }

// SetHooks installs h. Call it before the client is used.
func (c *Client) SetHooks(h Hooks) { c.hooks = h }

// NewClient returns a client of the DNS server at server (host:port).
// key may be nil: the client can then query and transfer but not update.
// timeout bounds each exchange (DefaultTimeout when zero).
func NewClient(server string, key *TSIGKey, timeout time.Duration) (*Client, error) {
	if _, _, err := net.SplitHostPort(server); err != nil {
		return nil, fmt.Errorf("dns server %q: %v", server, err)
	}
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c := &Client{server: server, timeout: timeout, open: make(chan struct{}, maxOpen), freed: make(chan struct{})}
	c.idle.Discard = c.discard
	if key != nil {
		alg, ok := tsigAlgorithms[strings.TrimSuffix(strings.ToLower(key.Algorithm), ".")]
		if !ok {
			return nil, fmt.Errorf("tsig key %q: unsupported algorithm %q", key.Name, key.Algorithm)
		}
		if _, ok := dns.IsDomainName(key.Name); !ok || key.Name == "" {
			return nil, fmt.Errorf("tsig key %q: the name is not a domain name", key.Name)
		}
		raw, err := base64.StdEncoding.DecodeString(key.Secret)
		if err != nil || len(raw) == 0 {
			return nil, fmt.Errorf("tsig key %q: the secret is not base64 (standard alphabet, padded, as BIND writes it)", key.Name)
		}
		k := *key
		c.key = &k
		c.keyName = dns.CanonicalName(key.Name)
		c.alg = alg
		c.secrets = map[string]string{c.keyName: key.Secret}
		c.signer = newTSIGSigner(c.keyName, alg, raw)
	}
	return c, nil
}

// Server returns the host:port the client talks to.
func (c *Client) Server() string { return c.server }

// CanUpdate reports whether the client holds a key to sign updates with.
func (c *Client) CanUpdate() bool { return c.key != nil }

// KeyName returns the update key's name, or "".
func (c *Client) KeyName() string {
	if c.key == nil {
		return ""
	}
	return c.key.Name
}

// exchange sends m over a pooled TCP connection and reads the answer,
// signing m with the TSIG key when sign is true. A pooled connection is
// checked before it is used (get), so one that named closed while idle is
// replaced before anything is written on it; m is sent again on a new
// connection only when its write on a reused connection failed (named did
// not receive it whole, so it cannot have applied it). Once m was written,
// a failure without an answer is returned as it is (OutcomeUnknown): named
// may have applied the UPDATE and only its answer was lost, and a second
// copy would be applied again, or fail its prerequisites although the
// change was made.
func (c *Client) exchange(ctx context.Context, m *dns.Msg, sign bool) (*dns.Msg, error) {
	if sign && c.key == nil {
		return nil, errors.New("no TSIG key to sign the message with")
	}
	for attempt := 0; ; attempt++ {
		if sign {
			// Signed afresh for every attempt: the DNS library takes the
			// TSIG record off the message when it signs it, so a copy
			// sent again after a stale connection (named restarted)
			// would otherwise go unsigned and be refused.
			if m.IsTsig() != nil {
				m.Extra = m.Extra[:len(m.Extra)-1]
			}
			m.SetTsig(c.keyName, c.alg, tsigFudge, time.Now().Unix())
		}
		conn, reused, err := c.get(ctx)
		if err != nil {
			return nil, err
		}
		deadline := time.Now().Add(c.timeout)
		if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
			deadline = d
		}
		_ = conn.SetDeadline(deadline)
		var signer dns.TsigProvider
		if sign {
			signer = c.signer
		}
		if c.hooks.Message != nil {
			c.hooks.Message(ctx, "send", Message{m})
		}
		br := c.reader()
		r, written, rest, err := roundTrip(conn, br, signer, m)
		c.putReader(br)
		if r != nil && c.hooks.Message != nil {
			c.hooks.Message(ctx, "recv", Message{r})
		}
		if err == nil {
			if rest {
				// Bytes after the answer: not a connection to reuse.
				c.discard(conn)
			} else {
				c.put(conn)
			}
			return r, nil
		}
		c.discard(conn)
		if reused && !written && attempt == 0 && isStale(err) {
			continue
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("waiting for named at %s: %w", c.server, ctx.Err())
		}
		return nil, fmt.Errorf("exchanging with named at %s: %w", c.server, err)
	}
}

// roundTrip writes m on conn, signed by signer when it is not nil,
// and reads its answer; written reports whether m was wholly written, and
// rest whether bytes were read past the answer (named sent more than
// one message: the connection is not reused).
//
// A fresh dns.Conn per exchange: its TSIG request MAC must not carry
// over from the previous message on the connection. The answer is read
// through a buffer, so that its two-byte length and its body, which named
// sends together, take one read system call instead of one each.
func roundTrip(conn net.Conn, br *bufio.Reader, signer dns.TsigProvider, m *dns.Msg) (r *dns.Msg, written, rest bool, err error) {
	br.Reset(conn)
	defer br.Reset(nil)
	co := &dns.Conn{Conn: bufferedConn{Conn: conn, r: br}, TsigProvider: signer}
	if err := co.WriteMsg(m); err != nil {
		return nil, false, false, err
	}
	r, err = co.ReadMsg()
	if err != nil {
		if r != nil && errors.Is(err, dns.ErrSig) {
			return nil, true, false, fmt.Errorf("answer's TSIG signature does not verify: %w", err)
		}
		return nil, true, false, err
	}
	if r.Id != m.Id {
		return nil, true, false, dns.ErrId
	}
	return r, true, br.Buffered() > 0, nil
}

// answerBuffer is the size of the buffer an answer is read through: an
// UPDATE's or a SOA query's answer fits whole.
const answerBuffer = 1024

// reader returns a buffer to read an answer through; putReader gives it
// back.
func (c *Client) reader() *bufio.Reader {
	if br, ok := c.readers.Get().(*bufio.Reader); ok {
		return br
	}
	return bufio.NewReaderSize(nil, answerBuffer)
}

func (c *Client) putReader(br *bufio.Reader) { c.readers.Put(br) }

// bufferedConn is a connection whose reads go through r.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (b bufferedConn) Read(p []byte) (int, error) { return b.r.Read(p) }

// isStale reports whether err means the peer had closed the connection.
func isStale(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// Update sends an UPDATE message for zone, signed with the key, and
// returns nil when named answered NOERROR, else a *ServerError (or a
// transport error).
func (c *Client) Update(ctx context.Context, zone string, m *dns.Msg) error {
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
func (c *Client) Query(ctx context.Context, zone, name string, qtype uint16) ([]dns.RR, error) {
	m := new(dns.Msg)
	m.SetQuestion(name, qtype)
	m.RecursionDesired = false
	r, err := c.exchange(ctx, m, c.signQueries && c.key != nil)
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
		if rr.Header().Rrtype == dns.TypeSOA && strings.EqualFold(rr.Header().Name, zonemodel.Origin(zone)) {
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
func (c *Client) SOA(ctx context.Context, zone string) (*dns.SOA, error) {
	rrs, err := c.Query(ctx, zone, zonemodel.Origin(zone), dns.TypeSOA)
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
