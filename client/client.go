// Package client is a Go client of the zone_api REST API (/api/v1): zones,
// their records and the server's health.
//
// Requests and answers are typed; an error answer is an *Error carrying the
// HTTP status and the API's {error, message} body. Record reads and changes
// carry the zone's serial as ETag, and writes can be made conditional on it
// (IfMatch). Requests answered 429, 502 or 503 are sent again with
// exponential backoff, waiting what Retry-After says when the server says
// it; a zone create, which carries an Idempotency-Key, is also sent again
// after a transport error or a 504. A Client is safe for concurrent use.
package client

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// APIPrefix is the path under which the API lives.
const APIPrefix = "/api/v1"

// Client talks to one zone_api endpoint. Its fields are set by New and its
// options and never change afterwards, so one Client may serve many
// goroutines.
type Client struct {
	base       *url.URL // scheme://host[/prefix], without APIPrefix
	token      string
	hc         *http.Client
	retries    int
	minBackoff time.Duration
	maxBackoff time.Duration
	maxWait    time.Duration
	userAgent  string
	view       string // InView: the view every zone request names

	waitHook func(time.Duration) // tests: called before each backoff wait
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of a client of its own.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithRetries sets how many times a request answered 429, 502 or 503 is
// sent again (default 4), and the backoff between tries: min doubled each
// time, at most max, with jitter (defaults 100ms and 5s).
func WithRetries(n int, min, max time.Duration) Option {
	return func(c *Client) { c.retries, c.minBackoff, c.maxBackoff = n, min, max }
}

// WithMaxRetryAfter caps how long the client waits for a Retry-After
// (default 30s); a server asking for longer gets its error returned.
func WithMaxRetryAfter(d time.Duration) Option { return func(c *Client) { c.maxWait = d } }

// WithUserAgent sets the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client of the API at endpoint, the URL under which
// /api/v1 is served (e.g. "https://dns.example.com:8443"; a trailing
// "/api/v1" is accepted too), sending token as bearer token ("" sends no
// Authorization header).
func New(endpoint, token string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimSpace(endpoint))
	if err != nil {
		return nil, fmt.Errorf("endpoint %q: %w", endpoint, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q: want an http or https URL with a host", endpoint)
	}
	u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), APIPrefix)
	u.RawPath, u.RawQuery, u.Fragment = "", "", ""
	c := &Client{
		base: u, token: token, hc: &http.Client{Timeout: 60 * time.Second},
		retries: 4, minBackoff: 100 * time.Millisecond, maxBackoff: 5 * time.Second,
		maxWait: 30 * time.Second, userAgent: "zoneapi-go-client",
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// InView returns a client whose zone and record requests (every path
// under /zones) address the zones of a view of named (split horizon):
// they carry ?view=<view>, so a create puts the zone in that view and
// every other operation acts on that view's zone of the name. InView("")
// addresses zones without a view (the default view, on a server with
// one). The two clients share their connections. See docs/views.md.
func (c *Client) InView(view string) *Client {
	v := *c
	v.view = view
	return &v
}

// Error is an error answer of the API.
type Error struct {
	// Method and Path are the request's.
	Method, Path string
	// StatusCode is the HTTP status.
	StatusCode int
	// Reason is the body's "error": the HTTP reason phrase ("Bad Gateway"
	// for a failed control command, which is a 500).
	Reason string `json:"error"`
	// Message is the body's "message": what went wrong and why.
	Message string `json:"message"`
	// ETag is the answer's ETag; on 412 the zone's current serial.
	ETag string `json:"-"`
	// RetryAfter is the answer's Retry-After, if any.
	RetryAfter time.Duration `json:"-"`
	// SameConfig, on the 409 of a create for a zone that exists, tells
	// whether the existing zone was made by a request with the same body.
	SameConfig *bool `json:"sameConfig,omitempty"`
}

func (e *Error) Error() string {
	reason := e.Reason
	if reason == "" {
		reason = apitypes.ReasonPhrase(e.StatusCode)
	}
	return fmt.Sprintf("zone api: %s %s: %d %s: %s", e.Method, e.Path, e.StatusCode, reason, e.Message)
}

// StatusCode returns the HTTP status of an *Error in err's chain, or 0.
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// IsNotFound reports whether err is a 404 answer.
func IsNotFound(err error) bool { return StatusCode(err) == http.StatusNotFound }

// IsConflict reports whether err is a 409 answer.
func IsConflict(err error) bool { return StatusCode(err) == http.StatusConflict }

// IsPreconditionFailed reports whether err is a 412 answer: the zone
// changed since the If-Match serial.
func IsPreconditionFailed(err error) bool {
	return StatusCode(err) == http.StatusPreconditionFailed
}

// zonePath is the escaped path of a zone (a trailing dot is dropped);
// the root zone "." is %2E, since a path segment "." is removed by URL
// resolution (RFC 3986 §5.2.4).
func zonePath(zone string) string {
	if zone == "." {
		return "/zones/%2E"
	}
	return "/zones/" + url.PathEscape(strings.TrimSuffix(zone, "."))
}

// WriteOption makes a record change conditional.
type WriteOption func(http.Header)

// IfMatch applies the change only if the zone's SOA serial is still
// serial; otherwise the API answers 412 (IsPreconditionFailed) and
// nothing changes.
func IfMatch(serial uint32) WriteOption {
	return IfMatchETag(`"` + strconv.FormatUint(uint64(serial), 10) + `"`)
}

// IfMatchETag is IfMatch with an ETag of an earlier answer.
func IfMatchETag(etag string) WriteOption {
	return func(h http.Header) { h.Set("If-Match", etag) }
}

func writeHeader(opts []WriteOption) http.Header {
	if len(opts) == 0 {
		return nil
	}
	h := http.Header{}
	for _, o := range opts {
		o(h)
	}
	return h
}

// Health answers GET /health (no token needed).
func (c *Client) Health(ctx context.Context) (*Health, error) {
	var v Health
	_, err := c.call(ctx, request{method: http.MethodGet, path: "/health"}, &v)
	return &v, err
}

// Ready answers GET /ready. A server that is not ready answers 503, which
// is returned as the Readiness with Ready false, not as an error.
func (c *Client) Ready(ctx context.Context) (*Readiness, error) {
	var v Readiness
	a, err := c.call(ctx, request{method: http.MethodGet, path: "/ready", accept: http.StatusServiceUnavailable, noRetry: true}, &v)
	if err != nil {
		return nil, err
	}
	if a.status == http.StatusServiceUnavailable {
		if err := decode(a, http.MethodGet, "/ready", &v); err != nil {
			return nil, err
		}
	}
	return &v, nil
}

// ServerStatus answers GET /server/status: the raw rndc status text
// ("status") and its parsed fields.
func (c *Client) ServerStatus(ctx context.Context) (*ServerStatus, error) {
	var v ServerStatus
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/server/status"}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// CreateZone creates a zone: POST /zones.
//
// It sends a new random Idempotency-Key, so that it can send the create
// again after a network error or a 504 (named did not answer): the API
// answers a retry with the same key with the original outcome, 201 with
// the zone when the first attempt made it. A zone that exists is a 409
// *Error whose SameConfig says whether it has the configuration asked for.
func (c *Client) CreateZone(ctx context.Context, z CreateZone) (*ZoneResponse, error) {
	return c.CreateZoneWithKey(ctx, z, NewIdempotencyKey())
}

// CreateZoneWithKey is CreateZone with the caller's Idempotency-Key, for a
// caller that keeps the key across its own restarts (a key is remembered
// by the API for 24 hours).
func (c *Client) CreateZoneWithKey(ctx context.Context, z CreateZone, key string) (*ZoneResponse, error) {
	var v ZoneResponse
	hdr := http.Header{"Idempotency-Key": []string{`"` + key + `"`}}
	a, err := c.call(ctx, request{method: http.MethodPost, path: "/zones", body: z, header: hdr, idempotent: true}, &v)
	if err != nil {
		return nil, err
	}
	v.Location = a.header.Get("Location")
	return &v, nil
}

// NewIdempotencyKey returns a new random Idempotency-Key (128 bits, hex).
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = crand.Read(b)
	return hex.EncodeToString(b)
}

// GetZone answers GET /zones/{name}.
func (c *Client) GetZone(ctx context.Context, zone string) (*ZoneInfo, error) {
	var v ZoneInfo
	if _, err := c.call(ctx, request{method: http.MethodGet, path: zonePath(zone)}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// DeleteZone deletes a zone and its files: DELETE /zones/{name}.
func (c *Client) DeleteZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodDelete, zonePath(zone))
}

// DeleteUnmanagedZone deletes a zone the API does not manage (added with
// rndc addzone outside it): DELETE /zones/{name}?confirm=unmanaged.
func (c *Client) DeleteUnmanagedZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	var v ZoneResponse
	q := url.Values{"confirm": {"unmanaged"}}
	if _, err := c.call(ctx, request{method: http.MethodDelete, path: zonePath(zone), query: q}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// AdoptZone brings a zone named serves under management: POST
// /zones/{name}/adopt, with grantUpdateKey=true when grant is set. A zone
// of named.conf gives an *Error with status 409 whose message names the
// clause to add there.
func (c *Client) AdoptZone(ctx context.Context, zone string, grant bool) (*AdoptResponse, error) {
	var v AdoptResponse
	q := url.Values{}
	if grant {
		q.Set("grantUpdateKey", "true")
	}
	if _, err := c.call(ctx, request{method: http.MethodPost, path: zonePath(zone) + "/adopt", query: q}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ZoneStatus answers GET /zones/{name}/status.
func (c *Client) ZoneStatus(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodGet, zonePath(zone)+"/status")
}

// ReloadZone runs rndc reload on the zone.
func (c *Client) ReloadZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodPost, zonePath(zone)+"/reload")
}

// FreezeZone runs rndc freeze on the zone.
func (c *Client) FreezeZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodPost, zonePath(zone)+"/freeze")
}

// ThawZone runs rndc thaw on the zone.
func (c *Client) ThawZone(ctx context.Context, zone string) (*ZoneResponse, error) {
	return c.zoneCommand(ctx, http.MethodPost, zonePath(zone)+"/thaw")
}

// NotifyZone runs rndc notify on the zone and answers the serial
// announced and the servers the API notified itself.
func (c *Client) NotifyZone(ctx context.Context, zone string) (*NotifyResponse, error) {
	var v NotifyResponse
	if _, err := c.call(ctx, request{method: http.MethodPost, path: zonePath(zone) + "/notify"}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

func (c *Client) zoneCommand(ctx context.Context, method, path string) (*ZoneResponse, error) {
	var v ZoneResponse
	if _, err := c.call(ctx, request{method: method, path: path}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// ListZones answers one page of GET /zones.
func (c *Client) ListZones(ctx context.Context, opt ListZonesOptions) (*ZonePage, error) {
	q := url.Values{}
	if opt.Limit > 0 {
		q.Set("limit", strconv.Itoa(opt.Limit))
	}
	if opt.Cursor != "" {
		q.Set("cursor", opt.Cursor)
	}
	if opt.Type != "" {
		q.Set("type", opt.Type)
	}
	if opt.All {
		q.Set("all", "true")
		if opt.Managed != nil {
			q.Set("managed", strconv.FormatBool(*opt.Managed))
		}
		if opt.Source != "" {
			q.Set("source", opt.Source)
		}
		if opt.View != "" {
			q.Set("view", opt.View)
		}
	}
	var v ZonePage
	if _, err := c.call(ctx, request{method: http.MethodGet, path: "/zones", query: q}, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// AllZones iterates over every managed zone (with opt.All, every zone
// named serves), reading pages of opt.Limit
// as it goes (opt.Cursor is where it starts). It stops at the first error,
// which it yields.
func (c *Client) AllZones(ctx context.Context, opt ListZonesOptions) iter.Seq2[ZoneEntry, error] {
	return func(yield func(ZoneEntry, error) bool) {
		for {
			p, err := c.ListZones(ctx, opt)
			if err != nil {
				yield(ZoneEntry{}, err)
				return
			}
			for _, z := range p.Items {
				if !yield(z, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			opt.Cursor = p.NextCursor
		}
	}
}

// AddRecord adds one record: POST /zones/{name}/records. Adding a record
// that exists succeeds and changes nothing.
func (c *Client) AddRecord(ctx context.Context, zone string, r Record, opts ...WriteOption) (*RecordChange, error) {
	return c.recordChange(ctx, http.MethodPost, zone, r, opts)
}

// RemoveRecord removes one record, or the whole RRset when r.Value is nil:
// DELETE /zones/{name}/records. Removing what does not exist succeeds.
func (c *Client) RemoveRecord(ctx context.Context, zone string, r RemoveRecord, opts ...WriteOption) (*RecordChange, error) {
	return c.recordChange(ctx, http.MethodDelete, zone, r, opts)
}

// UpdateRecord replaces one record's data: PUT /zones/{name}/records. A
// CurrentValue that does not exist is a 404.
func (c *Client) UpdateRecord(ctx context.Context, zone string, r UpdateRecord, opts ...WriteOption) (*RecordChange, error) {
	return c.recordChange(ctx, http.MethodPut, zone, r, opts)
}

func (c *Client) recordChange(ctx context.Context, method, zone string, body any, opts []WriteOption) (*RecordChange, error) {
	var v RecordChange
	a, err := c.call(ctx, request{method: method, path: zonePath(zone) + "/records", body: body, header: writeHeader(opts)}, &v)
	if err != nil {
		return nil, err
	}
	v.ETag = a.header.Get("ETag")
	return &v, nil
}

// Batch applies changes in order as one atomic UPDATE (all or nothing,
// one serial bump): PATCH /zones/{name}/records.
func (c *Client) Batch(ctx context.Context, zone string, changes []Change, opts ...WriteOption) (*BatchResult, error) {
	var v BatchResult
	a, err := c.call(ctx, request{method: http.MethodPatch, path: zonePath(zone) + "/records", body: apitypes.BatchRequest{Changes: changes}, header: writeHeader(opts)}, &v)
	if err != nil {
		return nil, err
	}
	v.ETag = a.header.Get("ETag")
	return &v, nil
}

// ListRecords answers one page of GET /zones/{name}/records.
func (c *Client) ListRecords(ctx context.Context, zone string, opt ListRecordsOptions) (*RecordPage, error) {
	q := url.Values{}
	if opt.Name != "" {
		q.Set("name", opt.Name)
	}
	if opt.Type != "" {
		q.Set("type", opt.Type)
	}
	if opt.Limit > 0 {
		q.Set("limit", strconv.Itoa(opt.Limit))
	}
	if opt.Cursor != "" {
		q.Set("cursor", opt.Cursor)
	}
	var h http.Header
	if opt.IfNoneMatch != "" {
		h = http.Header{"If-None-Match": {opt.IfNoneMatch}}
	}
	var v RecordPage
	a, err := c.call(ctx, request{method: http.MethodGet, path: zonePath(zone) + "/records", query: q, header: h, accept: http.StatusNotModified}, &v)
	if err != nil {
		return nil, err
	}
	v.ETag = a.header.Get("ETag")
	v.NotModified = a.status == http.StatusNotModified
	return &v, nil
}

// AllRecords iterates over the zone's RRsets (those opt selects), reading
// pages as it goes. Each page is read from the zone as it is then, so a
// zone changed between pages may show parts of both versions; compare the
// Serial of ListRecords pages where that matters. It stops at the first
// error, which it yields.
func (c *Client) AllRecords(ctx context.Context, zone string, opt ListRecordsOptions) iter.Seq2[RRset, error] {
	opt.IfNoneMatch = ""
	return func(yield func(RRset, error) bool) {
		for {
			p, err := c.ListRecords(ctx, zone, opt)
			if err != nil {
				yield(RRset{}, err)
				return
			}
			for _, s := range p.RRsets {
				if !yield(s, nil) {
					return
				}
			}
			if p.NextCursor == "" {
				return
			}
			opt.Cursor = p.NextCursor
		}
	}
}

// RRsets reads every RRset of the zone (all pages) and the serial of the
// first page.
func (c *Client) RRsets(ctx context.Context, zone string) ([]RRset, uint32, error) {
	opt := ListRecordsOptions{Limit: 1000}
	var out []RRset
	var serial uint32
	for first := true; ; first = false {
		p, err := c.ListRecords(ctx, zone, opt)
		if err != nil {
			return nil, 0, err
		}
		if first {
			serial = p.Serial
		}
		out = append(out, p.RRsets...)
		if p.NextCursor == "" {
			return out, serial, nil
		}
		opt.Cursor = p.NextCursor
	}
}

// Export answers GET /zones/{name}/export: the zone in master-file form,
// and its ETag.
func (c *Client) Export(ctx context.Context, zone string) ([]byte, string, error) {
	a, err := c.do(ctx, request{method: http.MethodGet, path: zonePath(zone) + "/export"})
	if err != nil {
		return nil, "", err
	}
	return a.body, a.header.Get("ETag"), nil
}
