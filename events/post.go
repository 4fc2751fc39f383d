package events

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"hash"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/zoneapi/caddy-zoneapi/internal/version"
)

// poster sends a webhook's messages, one at a time (it is used by the
// webhook's deliverer alone): HTTP/1.1 on one kept-alive connection that
// it writes and reads in the calling goroutine. Go's HTTP client hands
// each request to a writer and a reader goroutine of the connection and
// back, which cost more CPU than the rest of a delivery (BenchmarkEvents'
// profiles: about 60 µs per event). Where a proxy is configured for the
// URL (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), messages go through Go's
// client instead.
type poster struct {
	u       *url.URL
	addr    string      // host:port to dial
	tls     *tls.Config // nil for http
	timeout time.Duration
	head    []byte // the request line and the headers common to every message

	conn  net.Conn
	br    *bufio.Reader
	buf   []byte
	mac   hash.Hash // the signer's, reused
	macOf *Signer

	// client, if set, sends every message (a proxy is configured).
	client *http.Client
}

// newPoster returns the poster of the checked webhook URL rawURL, each
// attempt bounded by timeout.
func newPoster(rawURL string, timeout time.Duration) (*poster, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	p := &poster{u: u, timeout: timeout}
	if proxy, err := http.ProxyFromEnvironment(&http.Request{URL: u}); err != nil || proxy != nil {
		p.client = &http.Client{
			Timeout: timeout,
			// A redirect is not an acknowledgement: the event was not
			// taken, and following it would send the signed body
			// elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		}
		return p, nil
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	p.addr = net.JoinHostPort(u.Hostname(), port)
	if u.Scheme == "https" {
		p.tls = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}
	}
	head := []byte("POST " + u.RequestURI() + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: zoneapi/" + version.Version + "\r\n")
	if u.User != nil {
		// As Go's client does with a URL's user information.
		pass, _ := u.User.Password()
		head = append(head, "Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pass))+"\r\n"...)
	}
	p.head = append(head, "Content-Type: application/json\r\n"...)
	return p, nil
}

// post makes one delivery attempt of a message signed by s: nil when
// the receiver answered 2xx.
func (p *poster) post(ctx context.Context, s *Signer, id string, payload []byte) error {
	now := time.Now()
	if p.client != nil {
		return p.postClient(ctx, s, id, now, payload)
	}
	p.buf = append(p.buf[:0], p.head...)
	p.buf = append(p.buf, "Content-Length: "...)
	p.buf = strconv.AppendInt(p.buf, int64(len(payload)), 10)
	p.buf = append(p.buf, "\r\nWebhook-Id: "...)
	p.buf = append(p.buf, id...)
	p.buf = append(p.buf, "\r\nWebhook-Timestamp: "...)
	p.buf = strconv.AppendInt(p.buf, now.Unix(), 10)
	p.buf = append(p.buf, "\r\nWebhook-Signature: "...)
	if p.macOf != s {
		p.mac, p.macOf = s.newMAC(), s
	}
	p.buf = s.appendSignature(p.buf, p.mac, id, now, payload)
	p.buf = append(p.buf, "\r\n\r\n"...)
	p.buf = append(p.buf, payload...)
	reused := p.conn != nil
	resp, sent, err := p.exchange(ctx, now)
	var ne net.Error
	if err != nil && reused && !sent && ctx.Err() == nil && !(errors.As(err, &ne) && ne.Timeout()) {
		// The receiver closed the kept-alive connection while it was
		// idle: the message is sent again on a new one (which may make
		// it arrive twice, as any retry may).
		resp, _, err = p.exchange(ctx, now)
	}
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return nil
}

// exchange writes p.buf on the connection (dialled if there is none) and
// reads the answer (its body read and closed); sent reports whether any
// of the answer was read. The connection is closed unless it can carry
// the next message. When ctx ends before exchange stops watching it,
// even with the answer read, it fails with ctx's error and closes the
// connection: the watch's deadline in the past lands on it from a
// goroutine of its own, possibly during the next message's exchange.
func (p *poster) exchange(ctx context.Context, start time.Time) (resp *http.Response, sent bool, err error) {
	deadline := start.Add(p.timeout)
	if p.conn == nil {
		if err := p.dial(ctx, deadline); err != nil {
			return nil, false, err
		}
	}
	conn := p.conn
	keep := false
	defer func() {
		if !keep {
			conn.Close()
			p.conn = nil
		}
	}()
	_ = conn.SetDeadline(deadline)
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer func() { // before the close above
		if !stop() && err == nil {
			keep = false
			resp, err = nil, ctx.Err()
		}
	}()
	if _, err := conn.Write(p.buf); err != nil {
		return nil, false, err
	}
	req := &http.Request{Method: http.MethodPost}
	for {
		if _, err := p.br.Peek(1); err != nil {
			return nil, false, err
		}
		resp, err := http.ReadResponse(p.br, req)
		if err != nil {
			return nil, true, err
		}
		// The receiver's body is read (up to 64 KiB) so that the
		// connection can carry the next message.
		n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10+1))
		resp.Body.Close()
		if resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != http.StatusSwitchingProtocols {
			continue // an informational answer: the final one follows
		}
		keep = err == nil && n <= 64<<10 && !resp.Close && ctx.Err() == nil
		return resp, true, nil
	}
}

// dial opens the connection to the receiver.
func (p *poster) dial(ctx context.Context, deadline time.Time) error {
	d := net.Dialer{Deadline: deadline}
	var conn net.Conn
	var err error
	if p.tls != nil {
		conn, err = (&tls.Dialer{NetDialer: &d, Config: p.tls}).DialContext(ctx, "tcp", p.addr)
	} else {
		conn, err = d.DialContext(ctx, "tcp", p.addr)
	}
	if err != nil {
		return err
	}
	p.conn = conn
	if p.br == nil {
		p.br = bufio.NewReaderSize(conn, 4<<10)
	} else {
		p.br.Reset(conn)
	}
	return nil
}

// postClient is post through Go's HTTP client.
func (p *poster) postClient(ctx context.Context, s *Signer, id string, now time.Time, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.u.String(), bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "zoneapi/"+version.Version)
	s.Sign(req.Header, id, now, payload)
	resp, err := p.client.Do(req)
	if err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("the receiver answered %s", resp.Status)
	}
	return nil
}

// close closes the kept-alive connection, if any.
func (p *poster) close() {
	if p.conn != nil {
		p.conn.Close()
		p.conn = nil
	}
}
