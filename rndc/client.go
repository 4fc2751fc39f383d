package rndc

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/zoneapi/caddy-zoneapi/internal/connpool"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DefaultTimeout bounds one command when Client.Timeout is zero.
const DefaultTimeout = 10 * time.Second

// DefaultPort is the control channel's default TCP port.
const DefaultPort = 953

// maxCommandLength bounds the command text sent to named.
const maxCommandLength = 64 << 10

// ErrAuth means named closed the connection without a valid reply, which is
// what it does when the key name, secret or algorithm is wrong, when this
// host is not allowed by the controls statement, or when the clocks differ
// too much; a reply whose signature does not verify is also reported as
// ErrAuth. It is distinct from a refused connection (named not running).
var ErrAuth = zonemodel.ErrControlAuth

// Client sends commands to named's control channel. It reuses up to
// MaxIdle idle connections (named answers further commands on a connection
// once it has issued its nonce). The zero value is not usable:
// set Addr and Key. A Client is safe for concurrent use; do not change its
// fields while commands are running.
type Client struct {
	// Addr is the control channel address, "host:port" (e.g.
	// "127.0.0.1:953").
	Addr string
	// Key signs requests and verifies replies.
	Key Key
	// Timeout bounds each command (dial, write and read); zero means
	// DefaultTimeout. A context deadline that comes sooner wins.
	Timeout time.Duration
	// Dialer, if set, is used to connect (e.g. to set a local address).
	Dialer *net.Dialer
	// Trace, if set, is called with each message sent ("send") and
	// received ("recv"): its _ctrl and _data tables as plain maps, binary
	// values as strings. It never receives the _auth signature or the
	// secret. It must not retain or modify the map.
	Trace func(direction string, msg map[string]any)
	// Observe, if set, is called after every command with what was asked
	// and how it went, for logs and metrics (see CommandEvent). It runs on
	// the caller's goroutine, with the command's context.
	Observe func(ctx context.Context, e CommandEvent)
	// MaxIdle is how many idle connections are kept for reuse: named
	// answers further commands on a connection once it has issued its
	// nonce, which saves the connect and the nonce round trip. Zero means
	// DefaultMaxIdle; a negative value turns reuse off.
	MaxIdle int

	// Expiry is how long after it was sent named may still execute a
	// command (the message's _exp): named refuses a message it reads
	// later, so a command that timed out cannot take effect after its
	// expiry. Zero means DefaultExpiry, BIND's own 60 s. named's clock must
	// agree with this host's within a small part of it.
	Expiry time.Duration

	idle connpool.Pool[*ctlConn]
}

// DefaultExpiry is how long named may execute a command after it was sent
// when Client.Expiry is zero: 60 s, as the rndc program sets.
const DefaultExpiry = 60 * time.Second

// expiry returns the expiry of commands, whole seconds, at least 1 s.
func (c *Client) expiry() time.Duration {
	e := c.Expiry
	if e <= 0 {
		return DefaultExpiry
	}
	return max(e.Round(time.Second), time.Second)
}

// DefaultMaxIdle is the number of idle connections a Client keeps when
// MaxIdle is zero.
const DefaultMaxIdle = 4

// idleTimeout is how long an idle connection is kept for reuse.
const idleTimeout = 30 * time.Second

// ctlConn is a control-channel connection and the nonce named issued on it.
type ctlConn struct {
	net.Conn
	nonce uint32
}

// Response is named's answer to one command.
type Response struct {
	// Result is the ISC result code (0 on success).
	Result int
	// Text is the command's output (the rndc program's stdout), or on
	// failure BIND's longer explanation.
	Text string
	// Err is BIND's short error text, e.g. "not found"; empty on success.
	Err string
	// Data holds every string entry of the reply's _data table.
	Data map[string]string
}

// Error is a command that named refused.
type Error struct {
	// Command is the command's verb only, e.g. "addzone".
	Command string
	// Result is the ISC result code.
	Result int
	// Err is BIND's short error text, e.g. "already exists".
	Err string
	// Text is BIND's longer text, e.g. "no matching zone 'x' in any view".
	Text string
}

// Error returns e.g. "rndc addzone: already exists (text)".
func (e *Error) Error() string {
	msg := e.Err
	if msg == "" {
		msg = "result " + strconv.Itoa(e.Result)
	}
	s := "rndc " + e.Command + ": " + msg
	if t := strings.TrimSpace(e.Text); t != "" {
		s += " (" + strings.ReplaceAll(t, "\n", "; ") + ")"
	}
	return s
}

// ISC result codes that named returns for common failures.
const (
	ResultSuccess  = 0
	ResultExists   = 18 // ISC_R_EXISTS
	ResultNotFound = 23 // ISC_R_NOTFOUND
)

// IsNotFound reports whether err is an *Error for a missing zone or other
// object (BIND's "not found"). A missing view (IsNoSuchView) is not a
// missing zone: named said nothing of the zone, so IsNotFound is false.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Err == "not found" || (e.Err == "" && e.Result == ResultNotFound)) && !IsNoSuchView(err)
}

// IsAlreadyExists reports whether err is an *Error for an object that
// already exists (BIND's "already exists", e.g. addzone of a known zone).
func IsAlreadyExists(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Err == "already exists" || (e.Err == "" && e.Result == ResultExists))
}

// serial numbers _ser across all clients of the process.
var serial atomic.Uint32

func init() {
	var b [4]byte
	_, _ = rand.Read(b[:])
	serial.Store(binary.BigEndian.Uint32(b[:]) >> 1)
}

func nextSerial() uint32 {
	for {
		if s := serial.Add(1); s != 0 {
			return s
		}
	}
}

// Command runs one command, e.g. "zonestatus example.com", and returns
// named's reply. A reply with a non-zero result or an err text is returned
// as an *Error together with the Response. The context and c.Timeout bound
// dialing, writing and reading. Every command, the typed helpers' included,
// passes here and is reported to c.Observe.
func (c *Client) Command(ctx context.Context, command string) (*Response, error) {
	if c.Observe == nil {
		return c.command(ctx, command)
	}
	start := time.Now()
	resp, err := c.command(ctx, command)
	c.Observe(ctx, newCommandEvent(command, resp, err, time.Since(start)))
	return resp, err
}

// command is Command without the Observe hook.
func (c *Client) command(ctx context.Context, command string) (*Response, error) {
	command = strings.TrimSpace(command)
	verb, _, _ := strings.Cut(command, " ")
	if command == "" {
		return nil, errors.New("rndc: empty command")
	}
	if len(command) > maxCommandLength {
		return nil, fmt.Errorf("rndc %s: command too long", verb)
	}
	if strings.ContainsAny(command, "\x00\r\n") {
		return nil, fmt.Errorf("rndc %s: command contains a control character", verb)
	}
	if err := c.Key.validate(); err != nil {
		return nil, fmt.Errorf("rndc %s: %w", verb, err)
	}
	if c.Addr == "" {
		return nil, fmt.Errorf("rndc %s: no server address", verb)
	}

	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	// An idle connection is checked before it is reused (conn), so one
	// that named closed meanwhile is replaced before anything is written
	// on it. A command is sent again on a new connection only when its
	// write on a reused connection failed: named cannot execute a message
	// it did not wholly receive. Once the command was written, a failure
	// without a reply is reported as ErrOutcomeUnknown and never sent
	// again: named may have executed it (addzone, delzone…), and a second
	// copy would run it twice. A new connection that named closes during
	// the handshake is tried once more, so that a named that is stopping
	// (which then refuses the next connection) is not reported as a
	// rejected key.
	sent, handshakeClosed := false, false
	for attempt := 0; ; attempt++ {
		conn, reused, err := c.conn(ctx, attempt > 0)
		if err != nil {
			err = withContext(ctx, fmt.Errorf("rndc %s: connecting to %s: %w", verb, c.Addr, err))
			if handshakeClosed {
				err = fmt.Errorf("rndc %s: named closed the control connection before the handshake, then: %w", verb, err)
			}
			return nil, unknownIf(sent, err)
		}
		resp, sentNow, err := c.run(ctx, conn, command, verb)
		written := sentNow && !errors.Is(err, errUnwritten)
		sent = sent || written
		switch {
		case err == nil || isCommandError(err):
			c.release(conn)
			return resp, err
		case reused && !written && errors.Is(err, errClosed):
			conn.Close()
			continue
		case !reused && !sentNow && !handshakeClosed && errors.Is(err, errClosed) && ctx.Err() == nil:
			conn.Close()
			handshakeClosed = true
			continue
		}
		conn.Close()
		if errors.Is(err, errClosed) && !sentNow {
			return nil, unknownIf(sent, ErrAuth)
		}
		if errors.Is(err, ErrAuth) && !sentNow {
			return resp, unknownIf(sent, err)
		}
		return resp, unknownIf(sent, withContext(ctx, err))
	}
}

// ErrOutcomeUnknown is wrapped by the error of a command that was sent to
// named but got no reply (a timeout, a lost connection, a reply that does
// not verify): named may or may not have executed it, now or later.
var ErrOutcomeUnknown = zonemodel.ErrControlUnanswered

// OutcomeUnknown reports whether err is a command that named may have
// executed without answering (see ErrOutcomeUnknown). An error of a command
// that was never sent (no connection, a failed handshake) or that named
// answered is not.
func OutcomeUnknown(err error) bool { return errors.Is(err, ErrOutcomeUnknown) }

// unknownIf wraps err with ErrOutcomeUnknown when the command was sent.
func unknownIf(sent bool, err error) error {
	if !sent || err == nil {
		return err
	}
	return fmt.Errorf("%w (%w)", err, ErrOutcomeUnknown)
}

// isCommandError reports whether err is named's answer to a command (the
// connection is still good).
func isCommandError(err error) bool {
	var e *Error
	return errors.As(err, &e)
}

// conn returns an idle connection (reused true) or, when there is none or
// fresh is set, a new one that has completed the nonce handshake.
func (c *Client) conn(ctx context.Context, fresh bool) (*ctlConn, bool, error) {
	for !fresh {
		cc, ok := c.idle.Get(idleTimeout)
		if !ok {
			break
		}
		if connpool.Alive(cc.Conn) { // the socket itself, which Alive can peek at
			return cc, true, nil
		}
		cc.Close() // closed by named while idle: nothing was sent on it
	}
	d := c.Dialer
	if d == nil {
		d = &net.Dialer{}
	}
	nc, err := d.DialContext(ctx, "tcp", c.Addr)
	if err != nil {
		return nil, false, err
	}
	return &ctlConn{Conn: nc}, false, nil
}

// release keeps conn for reuse, or closes it when the pool is full.
func (c *Client) release(conn *ctlConn) {
	max := c.MaxIdle
	if max == 0 {
		max = DefaultMaxIdle
	}
	_ = conn.SetDeadline(time.Time{})
	c.idle.Put(conn, max)
}

// CloseIdle closes the idle connections. The Client stays usable.
func (c *Client) CloseIdle() { c.idle.CloseIdle() }

// Close closes the idle connections and keeps none from now on: commands
// still running finish, then close their connections. The Client stays
// usable, with one connection per command from then on.
func (c *Client) Close() { c.idle.Close() }

// run sends one command on conn (first obtaining a nonce on a new
// connection), bounded by ctx.
// It reports whether the command itself was (at least partly) sent.
// When ctx ends before run stops watching it, even with named's answer
// read, it fails with ctx's error, so that the caller does not pool
// conn: the watch's deadline in the past lands on conn from a goroutine
// of its own, possibly once another command uses it.
func (c *Client) run(ctx context.Context, conn *ctlConn, command, verb string) (resp *Response, sent bool, err error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	// Unblock reads and writes as soon as ctx is done.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer func() {
		if !stop() && (err == nil || isCommandError(err)) {
			resp, err = nil, fmt.Errorf("rndc %s: %w", verb, ctx.Err())
		}
	}()
	if conn.nonce == 0 {
		nonce, err := c.handshake(conn, verb)
		if err != nil {
			return nil, false, err
		}
		conn.nonce = nonce
	}
	if ctx.Err() != nil {
		return nil, false, ctx.Err()
	}
	resp, err = c.exchange(conn, conn.nonce, command, verb)
	return resp, true, err
}

// withContext makes err also wrap ctx's error when ctx is done, or
// context.DeadlineExceeded when err is the connection deadline that was
// set from ctx (which can fire just before ctx itself reports it).
func withContext(ctx context.Context, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	ctxErr := ctx.Err()
	if ctxErr == nil && errors.Is(err, os.ErrDeadlineExceeded) {
		ctxErr = context.DeadlineExceeded
	}
	if ctxErr == nil || errors.Is(err, ctxErr) {
		return err
	}
	return fmt.Errorf("%w: %w", err, ctxErr)
}

// handshake sends a "null" request on a new connection and returns the
// nonce named issues in its reply.
func (c *Client) handshake(conn net.Conn, verb string) (uint32, error) {
	ser1 := nextSerial()
	if err := c.send(conn, ser1, 0, "null"); err != nil {
		return 0, fmt.Errorf("rndc %s: %w", verb, err)
	}
	reply, err := c.receive(conn)
	if err != nil {
		return 0, fmt.Errorf("rndc %s: %w", verb, err)
	}
	ctrl, _ := reply.sub("_ctrl")
	if err := checkSerial(ctrl, ser1); err != nil {
		return 0, fmt.Errorf("rndc %s: %w", verb, err)
	}
	s, ok := ctrl.str("_nonce")
	if !ok {
		return 0, fmt.Errorf("rndc %s: %w: reply has no nonce", verb, errMalformed)
	}
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("rndc %s: %w: invalid nonce", verb, errMalformed)
	}
	return uint32(n), nil
}

// exchange sends the command with the connection's nonce and reads the
// answer.
func (c *Client) exchange(conn net.Conn, nonce uint32, command, verb string) (*Response, error) {
	// The command itself, carrying the nonce.
	ser2 := nextSerial()
	if err := c.send(conn, ser2, nonce, command); err != nil {
		return nil, fmt.Errorf("rndc %s: %w (%w)", verb, err, errUnwritten)
	}
	reply, err := c.receive(conn)
	if err != nil {
		return nil, fmt.Errorf("rndc %s: %w", verb, err)
	}
	ctrl, _ := reply.sub("_ctrl")
	if err := checkSerial(ctrl, ser2); err != nil {
		return nil, fmt.Errorf("rndc %s: %w", verb, err)
	}
	if nonce != 0 {
		if s, ok := ctrl.str("_nonce"); ok && s != strconv.FormatUint(uint64(nonce), 10) {
			return nil, fmt.Errorf("rndc %s: %w: reply nonce does not match", verb, ErrAuth)
		}
	}
	data, ok := reply.sub("_data")
	if !ok {
		return nil, fmt.Errorf("rndc %s: %w: reply has no _data section", verb, errMalformed)
	}
	resp := &Response{Data: make(map[string]string, len(data))}
	for _, e := range data {
		if b, ok := e.val.([]byte); ok {
			resp.Data[e.key] = string(b)
		}
	}
	resp.Text = resp.Data["text"]
	resp.Err = resp.Data["err"]
	if r, ok := resp.Data["result"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil {
			return nil, fmt.Errorf("rndc %s: %w: invalid result %q", verb, errMalformed, r)
		}
		resp.Result = n
	}
	if resp.Result != 0 || resp.Err != "" {
		return resp, &Error{Command: verb, Result: resp.Result, Err: resp.Err, Text: resp.Text}
	}
	return resp, nil
}

// checkSerial checks that a reply echoes the request's _ser, as named does.
func checkSerial(ctrl table, want uint32) error {
	got, ok := ctrl.str("_ser")
	if !ok {
		return fmt.Errorf("%w: reply has no _ser", errMalformed)
	}
	if got != strconv.FormatUint(uint64(want), 10) {
		return fmt.Errorf("%w: reply serial %q does not match request serial %d", errMalformed, got, want)
	}
	return nil
}

func (c *Client) send(conn net.Conn, ser, nonce uint32, command string) error {
	now := time.Now().Unix()
	ctrl := table{
		{key: "_ser", val: strconv.FormatUint(uint64(ser), 10)},
		{key: "_tim", val: strconv.FormatInt(now, 10)},
		{key: "_exp", val: strconv.FormatInt(now+int64(c.expiry()/time.Second), 10)},
	}
	if nonce != 0 {
		ctrl = append(ctrl, entry{key: "_nonce", val: strconv.FormatUint(uint64(nonce), 10)})
	}
	body := table{
		{key: "_ctrl", val: ctrl},
		{key: "_data", val: table{{key: "type", val: command}}},
	}
	if c.Trace != nil {
		c.Trace("send", traceMap(body))
	}
	msg, err := encodeMessage(c.Key, body)
	if err != nil {
		return err
	}
	if _, err := conn.Write(msg); err != nil {
		if isClosed(err) {
			return fmt.Errorf("sending to %s: %w", c.Addr, errClosed)
		}
		return fmt.Errorf("sending to %s: %w", c.Addr, err)
	}
	return nil
}

// receive reads, decodes and verifies one message.
func (c *Client) receive(conn net.Conn) (table, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(conn, hdr[:]); err != nil {
		if isClosed(err) {
			return nil, errClosed
		}
		return nil, fmt.Errorf("reading from %s: %w", c.Addr, err)
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n > MaxMessageSize {
		return nil, fmt.Errorf("%w: reply of %d bytes exceeds the %d-byte limit", errMalformed, n, MaxMessageSize)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(conn, buf); err != nil {
		return nil, fmt.Errorf("reading from %s: %w", c.Addr, err)
	}
	m, err := decodeMessage(buf)
	if err != nil {
		return nil, err
	}
	if err := verify(c.Key, m); err != nil {
		return nil, fmt.Errorf("%w: reply %v", ErrAuth, err)
	}
	if c.Trace != nil {
		c.Trace("recv", traceMap(m.top))
	}
	return m.top, nil
}

// errUnwritten marks a failed write of the command itself: named did not
// receive the whole message, so it cannot have executed it.
var errUnwritten = errors.New("the command was not sent")

// errClosed means named closed the connection before answering: on a new
// connection, the sign of a rejected key (ErrAuth); on a reused one, of a
// connection named had already closed.
var errClosed = errors.New("named closed the connection without answering")

// isClosed reports whether err means the peer closed or reset the
// connection before sending anything.
func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}
