package module

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/internal/logsafe"
	"github.com/zoneapi/caddy-zoneapi/rest"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
	"github.com/zoneapi/caddy-zoneapi/zoneservice"
)

// The PowerDNS-compatible API (package powerdns) is mounted by this
// handler when its configuration says `powerdns`: its routes (/api,
// /api/v1, /api/v1/servers/localhost/…) join the handler's route table,
// so they share its configuration of BIND, its authentication (X-API-Key
// is checked by the auth mode as a bearer token is, with the same
// scopes), its rate limits, audit lines and metrics. The package only
// translates; pdnsService below hands each call to the same code the
// zone API's handlers call.

// pdnsVersion is the version GET /api/v1/servers/localhost reports:
// PowerDNS clients parse it (octoDNS, the Terraform provider), so it
// starts like PowerDNS's.
const pdnsVersion = "4.9.0-zoneapi-" + Version

// pdnsMountName is the frontend mount name of the PowerDNS API (package
// powerdns registers it).
const pdnsMountName = "powerdns"

// provisionPowerDNS finds the PowerDNS API's mount when the
// configuration enables it.
func (h *Handler) provisionPowerDNS() error {
	h.pdnsMount = nil
	if !h.PowerDNS {
		return nil
	}
	if h.pdnsMount = frontend.Lookup(pdnsMountName); h.pdnsMount == nil {
		return fmt.Errorf("powerdns: this build lacks the PowerDNS API (package github.com/zoneapi/caddy-zoneapi/powerdns)")
	}
	return nil
}

// pdnsRoutes are the PowerDNS API's routes, when enabled.
func (h *Handler) pdnsRoutes() []route {
	if h.pdnsMount == nil {
		return nil
	}
	var out []route
	for _, pr := range h.pdnsMount.Routes(frontend.Options{Service: pdnsService{h}, Version: pdnsVersion, Denied: h.pdnsDenied, Allow: h.allow,
		AllowRecords: func(w http.ResponseWriter, r *http.Request, zone string, c []auth.RecordChange) bool {
			return h.allowRecords(w, r, zone, c)
		},
		AllowPrimaries: auth.PrimariesPolicy.Checker(h.primaryNets, viewOf, h.forbid), AllowNotify: auth.NotifyPolicy.Checker(h.notifyNets, viewOf, h.forbid)}) {
		pr := pr
		out = append(out, route{method: pr.Method, template: pr.Template, op: pr.Op, pdns: true, zoneName: h.pdnsMount.ZoneName,
			action: pr.Action, handle: func(w http.ResponseWriter, r *http.Request, p params) { pr.Handle(w, r, p.name) }})
	}
	return out
}

// pdnsDenied logs and counts a 403 the PowerDNS API decided (a record
// outside the identity's scope), as forbid does.
func (h *Handler) pdnsDenied(r *http.Request, err error) {
	st := authOf(r)
	id := "anonymous"
	if st.id != nil {
		id = st.id.ID
	}
	h.authLog.Warn("request outside the identity's scope", zap.String("principal", logsafe.Text(id)), zap.String("method", r.Method),
		zap.String("uri", r.RequestURI), zap.String("reason", logReason(err)))
	metrics.authFailures.WithLabelValues("forbidden").Inc()
}

// isPDNS reports whether the request is one for the PowerDNS API.
func (h *Handler) isPDNS(r *http.Request) bool {
	return h.pdnsMount != nil && h.pdnsMount.Owns(r.URL.Path)
}

// apiKeyAsBearer makes a PowerDNS request's X-API-Key header the bearer
// token the auth mode checks (an Authorization header, when also sent,
// wins).
func apiKeyAsBearer(r *http.Request) *http.Request {
	key := r.Header.Get("X-API-Key")
	if key == "" || r.Header.Get("Authorization") != "" {
		return r
	}
	r2 := r.Clone(r.Context())
	r2.Header.Set("Authorization", "Bearer "+key)
	return r2
}

// pdnsErrorWriter rewrites the zone API's error bodies ({error, message})
// written for a PowerDNS request (401, 403, 404, 405, 429, 5xx) into
// PowerDNS's ({"error": message}). Bodies the powerdns package wrote
// already have that shape and pass unchanged.
type pdnsErrorWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (p *pdnsErrorWriter) WriteHeader(code int) {
	if p.status == 0 {
		p.status = code
	}
	if code < 400 {
		p.ResponseWriter.WriteHeader(code)
	}
}

func (p *pdnsErrorWriter) Write(b []byte) (int, error) {
	if p.status == 0 {
		p.status = http.StatusOK
	}
	if p.status < 400 {
		return p.ResponseWriter.Write(b)
	}
	return p.buf.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (p *pdnsErrorWriter) Unwrap() http.ResponseWriter { return p.ResponseWriter }

// finish writes a buffered error body, rewritten when it is the zone
// API's shape.
func (p *pdnsErrorWriter) finish() {
	if p.status < 400 {
		return
	}
	body := p.buf.Bytes()
	var eb errorBody
	if json.Unmarshal(body, &eb) == nil && eb.Message != "" {
		if eb.Message == msgMissingHeader {
			eb.Message = "Missing X-API-Key header (or Authorization: Bearer <token>)"
		}
		body, _ = json.Marshal(map[string]string{"error": eb.Message})
		body = append(body, '\n')
	}
	p.ResponseWriter.Header().Del("Content-Length")
	p.ResponseWriter.WriteHeader(p.status)
	_, _ = p.ResponseWriter.Write(body)
}

// pdnsService is the zone service as the PowerDNS front end sees it:
// each method calls what the zone API's handler for the same operation
// calls.
type pdnsService struct{ h *Handler }

// pdnsOpError carries the operation an error came from, so that Status
// maps it with the zone API's mapping for that operation.
type pdnsOpError struct {
	kind    string // "record", "life", "import", "service", "local"
	op      string // record op
	zone    string
	err     error
	backend *backend
}

func (e *pdnsOpError) Error() string { return e.err.Error() }
func (e *pdnsOpError) Unwrap() error { return e.err }

func (s pdnsService) backend() (*backend, error) {
	b, err := s.h.getBackend()
	if err != nil {
		return nil, &pdnsOpError{kind: "local", err: err}
	}
	b.server.Start(context.Background(), "")
	return b, nil
}

func (s pdnsService) ListZones(ctx context.Context) ([]frontend.ZoneInfo, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	entries, _, _, err := b.svc.ListZones("", "", 0)
	if err != nil {
		return nil, &pdnsOpError{kind: "local", err: err}
	}
	// The serials named last reported (the statistics channel, when
	// configured): a PowerDNS zone list carries each zone's.
	serials := b.svc.Serials(ctx)
	out := make([]frontend.ZoneInfo, len(entries))
	for i, e := range entries {
		out[i] = frontend.ZoneInfo{Name: e.Name, Type: e.Type, Created: e.Created, Catalog: catalogOf(b)}
		out[i].Serial, out[i].HasSerial = serials[e.Name]
	}
	return out, nil
}

func (s pdnsService) Zone(ctx context.Context, zone string) (*frontend.ZoneInfo, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	z := &frontend.ZoneInfo{Name: zone, Type: zonemodel.TypePrimary}
	zs, err := b.svc.Zone(ctx, zone)
	switch {
	case err != nil:
		return nil, &pdnsOpError{kind: "service", zone: zone, err: err}
	case zs.Status != nil:
		// A zone named knows but has not loaded (a secondary before
		// its first transfer) has no serial yet.
		st := zs.Status
		z.Type, z.Serial, z.HasSerial, z.Signed = st.Type, st.Serial, st.HasSerial, st.Secure
	}
	if zs.Managed {
		z.Created, z.Catalog = zs.Entry.Created, catalogOf(b)
	}
	if cfg := s.h.rest.settingsFor(ctx, b, zone); cfg != nil {
		z.Type = cfg.Type
		z.Primaries, z.AlsoNotify, z.AllowTransfer, z.DNSSECPolicy = cfg.Primaries, cfg.AlsoNotify, cfg.AllowTransfer, cfg.DNSSECPolicy
	}
	if z.Type == "secondary" || z.Type == "slave" {
		z.Type = zonemodel.TypeSecondary
	} else {
		z.Type = zonemodel.TypePrimary
	}
	return z, nil
}

func (s pdnsService) Records(ctx context.Context, zone string) (uint32, []dnsupdate.RRset, error) {
	b, err := s.backend()
	if err != nil {
		return 0, nil, err
	}
	snap, err := b.svc.Snapshot(ctx, zone)
	if err != nil {
		return 0, nil, &pdnsOpError{kind: "record", op: "read", zone: zone, err: err, backend: b}
	}
	return snap.Serial(), snap.RRsets(), nil
}

func (s pdnsService) Apply(ctx context.Context, zone string, changes []dnsupdate.Change) (uint32, uint32, error) {
	b, err := s.backend()
	if err != nil {
		return 0, 0, err
	}
	res, err := b.svc.ApplyChanges(ctx, zone, changes, nil)
	if err != nil {
		return 0, 0, &pdnsOpError{kind: "record", op: "batch", zone: zone, err: err, backend: b}
	}
	return res.OldSerial, res.Serial, nil
}

func (s pdnsService) Create(ctx context.Context, req *zonemodel.CreateZoneRequest) error {
	zone, err := req.Normalize(time.Now())
	if err != nil {
		return &pdnsOpError{kind: "invalid", err: err}
	}
	b, err := s.backend()
	if err != nil {
		return err
	}
	res, err := b.svc.Create(ctx, zone, "")
	if err != nil {
		return &pdnsOpError{kind: "life", zone: zone.Name, err: err}
	}
	_ = res
	return nil
}

func (s pdnsService) Import(ctx context.Context, zone string, file []byte) error {
	release, err := s.h.rest.imports.Enter(zoneservice.ActorOf(ctx).Identity)
	if err != nil {
		return &pdnsOpError{kind: "import", zone: zone, err: err}
	}
	defer release()
	b, err := s.backend()
	if err != nil {
		return err
	}
	if _, err := b.svc.Import(ctx, zone, &zoneservice.ImportSource{File: file}, ""); err != nil {
		return &pdnsOpError{kind: "import", zone: zone, err: err}
	}
	return nil
}

func (s pdnsService) Delete(ctx context.Context, zone string) error {
	b, err := s.backend()
	if err != nil {
		return err
	}
	// PowerDNS's clients cannot confirm the delete of a zone the API does
	// not manage: such a delete is refused (409).
	if _, err := b.svc.Delete(ctx, zone, zoneservice.DeleteOptions{}); err != nil {
		return &pdnsOpError{kind: "life", zone: zone, err: err}
	}
	return nil
}

func (s pdnsService) Modify(ctx context.Context, zone string, c frontend.ZoneChange) error {
	b, err := s.backend()
	if err != nil {
		return err
	}
	if c.AllowTransfer != nil && b.updateKey != "" {
		// The API reads zones by AXFR signed with its key: a list set
		// through ALLOW-AXFR-FROM keeps admitting it.
		grant := "key " + b.updateKey
		if !slices.Contains(*c.AllowTransfer, grant) {
			v := append(slices.Clone(*c.AllowTransfer), grant)
			c.AllowTransfer = &v
		}
	}
	req := zoneservice.SettingsChange{AlsoNotify: c.AlsoNotify, AllowTransfer: c.AllowTransfer, Primaries: c.Primaries, DNSSECPolicy: c.DNSSECPolicy}
	if _, err := b.svc.Modify(ctx, zone, &req); err != nil {
		return &pdnsOpError{kind: "service", zone: zone, err: err}
	}
	return nil
}

func (s pdnsService) Notify(ctx context.Context, zone string) error {
	b, err := s.backend()
	if err != nil {
		return err
	}
	if _, err := b.svc.Notify(ctx, zone); err != nil {
		return &pdnsOpError{kind: "service", zone: zone, err: err}
	}
	return nil
}

func (s pdnsService) Retransfer(ctx context.Context, zone string) error {
	b, err := s.backend()
	if err != nil {
		return err
	}
	if _, err := b.svc.Retransfer(ctx, zone); err != nil {
		return &pdnsOpError{kind: "service", zone: zone, err: err}
	}
	return nil
}

func (s pdnsService) Keys(ctx context.Context, zone string) ([]frontend.Key, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	keys, err := b.svc.Keys(ctx, zone)
	if err != nil {
		return nil, &pdnsOpError{kind: "record", op: "read", zone: zone, err: err, backend: b}
	}
	return keys, nil
}

func (s pdnsService) Statistics(ctx context.Context) ([][2]string, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	st, err := b.svc.ServerStatus(ctx)
	if err != nil {
		return nil, &pdnsOpError{kind: "service", err: err}
	}
	keys := make([]string, 0, len(st.Fields))
	for k := range st.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][2]string
	for _, k := range keys {
		out = append(out, [2]string{strings.ReplaceAll(k, " ", "-"), st.Fields[k]})
	}
	return out, nil
}

// catalogOf is the catalog zone the backend's zones join ("" none).
func catalogOf(b *backend) string {
	if b.svc.Catalog == nil {
		return ""
	}
	return b.svc.Catalog.Zone
}

// SideFiles is the default view's zone directory, where the PowerDNS API
// keeps each zone's side file.
func (s pdnsService) SideFiles() (frontend.SideFiles, error) {
	b, err := s.backend()
	if err != nil {
		return nil, err
	}
	return b.store, nil
}

// Status maps an error with the zone API's mapping for its operation
// (errors.go): the status and message the zone API would answer.
func (s pdnsService) Status(err error) frontend.Failure {
	var (
		oe *pdnsOpError
		f  failure
	)
	switch {
	case !errors.As(err, &oe):
		f = fail(http.StatusInternalServerError, "%v", err)
	case oe.kind == "record":
		f = recordFailure(oe.backend, oe.zone, oe.op, oe.err)
		s.h.rest.logFailure(f)
	case oe.kind == "life":
		f = lifecycleFailure(oe.zone, oe.err)
	case oe.kind == "import":
		f = rest.ImportFailure(oe.zone, oe.err)
	case oe.kind == "invalid":
		f = fail(http.StatusBadRequest, "%v", oe.err)
	case oe.kind == "service":
		f = serviceFailure(oe.zone, oe.err)
	default:
		f = fail(http.StatusInternalServerError, "%v", err)
	}
	out := frontend.Failure{Status: f.Status, Message: f.Message, RetryAfter: f.RetryAfter}
	if oe != nil {
		out.Zone = oe.zone
	}
	return out
}

// Interface guard
var _ frontend.Service = pdnsService{}
