package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// retryable are the statuses sent again.
func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status == http.StatusBadGateway || status == http.StatusServiceUnavailable
}

// request is one API call.
type request struct {
	method string
	path   string // below APIPrefix, escaped
	query  url.Values
	body   any
	// raw, when set, is the body as it is sent, of media type rawType
	// (body is then nil).
	raw     []byte
	rawType string
	header  http.Header
	accept  int // extra success status accepted besides 2xx (304)
	noRetry bool
	// idempotent marks a write that is safe to send again after a
	// transport error or a 504 (it carries an Idempotency-Key).
	idempotent bool
}

// answer is a successful response, read whole.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends r, retrying as the package doc says, and returns a 2xx answer
// (or r.accept) or an error.
func (c *Client) do(ctx context.Context, r request) (*answer, error) {
	var body []byte
	if r.body != nil {
		b, err := json.Marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("encoding the %s %s body: %w", r.method, r.path, err)
		}
		body = b
	} else if r.raw != nil {
		body = r.raw
	}
	target := c.requestURL(r)
	for attempt := 0; ; attempt++ {
		req, err := c.newRequest(ctx, r, target, body)
		if err != nil {
			return nil, err
		}
		resp, err := c.hc.Do(req)
		if err != nil {
			// Only reads and keyed writes are sent again after a
			// transport error: another write may have been applied
			// before the connection broke.
			if ctx.Err() == nil && (r.method == http.MethodGet || r.idempotent) && attempt < c.retries {
				if werr := sleep(ctx, c.backoff(attempt)); werr == nil {
					continue
				}
			}
			return nil, fmt.Errorf("zone api: %s %s: %w", r.method, r.path, err)
		}
		raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("zone api: %s %s: reading the answer: %w", r.method, r.path, err)
		}
		if (resp.StatusCode >= 200 && resp.StatusCode < 300) || (r.accept != 0 && resp.StatusCode == r.accept) {
			return &answer{status: resp.StatusCode, header: resp.Header, body: raw}, nil
		}
		apiErr := newError(r, resp, raw)
		wait, hasWait := retryAfter(resp.Header.Get("Retry-After"), time.Now())
		apiErr.RetryAfter = wait
		// A keyed write is also sent again after a 504 (the outcome was
		// unknown: the key makes the retry answer it) and after the 409
		// of a key still being processed (an earlier attempt whose
		// connection broke is running), which has no sameConfig.
		again := retryable(resp.StatusCode) || r.idempotent &&
			(resp.StatusCode == http.StatusGatewayTimeout || resp.StatusCode == http.StatusConflict && apiErr.SameConfig == nil)
		if !again || r.noRetry || attempt >= c.retries {
			return nil, apiErr
		}
		if !hasWait {
			wait = c.backoff(attempt)
		} else if wait > c.maxWait {
			return nil, apiErr
		}
		if c.waitHook != nil {
			c.waitHook(wait)
		}
		if err := sleep(ctx, wait); err != nil {
			return nil, apiErr
		}
	}
}

// requestURL is the URL of r.
func (c *Client) requestURL(r request) string {
	u := *c.base
	u.Path += APIPrefix + r.path
	if unescaped, err := url.PathUnescape(u.Path); err == nil {
		u.RawPath = u.Path
		u.Path = unescaped
	}
	q := r.query
	if c.view != "" && (r.path == "/zones" || strings.HasPrefix(r.path, "/zones/")) {
		q = url.Values{}
		for k, v := range r.query {
			q[k] = v
		}
		q.Set("view", c.view)
	}
	if len(q) > 0 {
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// newRequest makes one try of r to target, with the JSON body (nil for
// none) and the client's and r's headers.
func (c *Client) newRequest(ctx context.Context, r request, target string, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, r.method, target, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("zone api: %s %s: %w", r.method, r.path, err)
	}
	if body == nil {
		req.Body, req.ContentLength = http.NoBody, 0
	} else if r.rawType != "" {
		req.Header.Set("Content-Type", r.rawType)
	} else {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	for k, vs := range r.header {
		req.Header[k] = vs
	}
	return req, nil
}

// newError is the *Error of an error answer to r: the API's {error,
// message} body, or else the body's text (cut at 512 bytes) as message.
func newError(r request, resp *http.Response, raw []byte) *Error {
	apiErr := &Error{Method: r.method, Path: APIPrefix + r.path, StatusCode: resp.StatusCode, ETag: resp.Header.Get("ETag")}
	if json.Unmarshal(raw, apiErr) != nil || apiErr.Message == "" {
		apiErr.Message = strings.TrimSpace(string(raw))
		if len(apiErr.Message) > 512 {
			apiErr.Message = apiErr.Message[:512] + "…"
		}
	}
	return apiErr
}

// backoff is the wait before try attempt+1: minBackoff doubled attempt
// times, at most maxBackoff, with up to 50% jitter.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.minBackoff
	for i := 0; i < attempt && d < c.maxBackoff; i++ {
		d *= 2
	}
	d = min(d, c.maxBackoff)
	if d <= 0 {
		return 0
	}
	return d/2 + rand.N(d/2+1)
}

// retryAfter parses a Retry-After header: delay-seconds or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseUint(v, 10, 31); err == nil {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), 0), true
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// decode decodes an answer's JSON body into v.
func decode(a *answer, method, path string, v any) error {
	if err := json.Unmarshal(a.body, v); err != nil {
		return fmt.Errorf("zone api: %s %s: decoding the answer: %w", method, APIPrefix+path, err)
	}
	return nil
}

// call sends r and decodes the answer into v.
func (c *Client) call(ctx context.Context, r request, v any) (*answer, error) {
	a, err := c.do(ctx, r)
	if err != nil {
		return nil, err
	}
	if v != nil && a.status != http.StatusNotModified && len(a.body) > 0 {
		if err := decode(a, r.method, r.path, v); err != nil {
			return nil, err
		}
	}
	return a, nil
}
