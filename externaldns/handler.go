// Package externaldns is a webhook provider for Kubernetes external-dns,
// served by Caddy: the HTTP handler http.handlers.zone_api_external_dns
// (Caddyfile directive zone_api_external_dns) speaks external-dns's webhook
// protocol (media type application/external.dns.webhook+json;version=1)
// over the zones its configuration names, on BIND through RFC 2136 and AXFR
// (package dnsupdate).
//
//   - GET / negotiates: the media type and the domain filter (the zones).
//   - GET /records lists the zones' records as endpoints, read from the
//     serial-keyed AXFR cache (an unchanged zone costs one SOA query).
//   - POST /records applies plan.Changes as one atomic UPDATE per zone
//     whose prerequisites are the updateOld RRsets exactly as external-dns
//     read them (and, for creates, that the RRset does not exist), so a
//     change made meanwhile by someone else fails the whole zone's update
//     with 409 and nothing changes; success is 204.
//   - POST /adjustendpoints returns the endpoints with names lower-cased
//     and without trailing dots.
//   - GET /healthz answers 200.
//
// A name goes to the configured zone with the longest matching suffix;
// names outside them are refused (400) before anything is sent.
// external-dns sends no credentials: bind the site to loopback (a sidecar)
// or put authentication in front.
package externaldns

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/modules/caddyhttp"
	"github.com/miekg/dns"
	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/sharedupdater"
	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// MediaType is the webhook protocol's media type and version.
const MediaType = "application/external.dns.webhook+json;version=1"

// DefaultDNSServer is named's DNS address when dns_server is not set.
const DefaultDNSServer = "127.0.0.1:53"

// maxBody bounds a request body (external-dns caps its own at 32 MiB).
const maxBody = 32 << 20

func init() {
	caddy.RegisterModule(Handler{})
}

// Handler is the external-dns webhook provider.
type Handler struct {
	// Zones are the zones the webhook may read and change, e.g.
	// ["example.com", "k8s.example.org"]. Required. An item may be a
	// placeholder ({env.*}, {file.*}) holding several zones separated by
	// commas or spaces.
	Zones []string `json:"zones,omitempty"`

	// DNSServer is named's DNS port (host:port) for updates and AXFR.
	// Default: 127.0.0.1:53.
	DNSServer string `json:"dns_server,omitempty"`

	// UpdateKey is the TSIG key updates and transfers are signed with: a
	// key file in BIND syntax (file, and name to pick one of several), or
	// name, algorithm and secret. Placeholders ({env.*}, {file.*}) are
	// expanded on first use.
	UpdateKey *KeyConfig `json:"update_key,omitempty"`

	// Timeout bounds each DNS exchange. Default: 10s.
	Timeout caddy.Duration `json:"timeout,omitempty"`

	// SerialUpdateMethod is how changes set a zone's next serial:
	// increment (default), unixtime or date, as named's
	// serial-update-method.
	SerialUpdateMethod string `json:"serial_update_method,omitempty"`

	zones   []string // canonical: lower case, no trailing dot
	server  string
	timeout time.Duration
	method  dnsupdate.SerialMethod
	logger  *zap.Logger

	st *state

	// shared is this handler's reference to the DNS updater shared
	// across config generations, and sharedKey its pool key.
	shared    *sharedupdater.Updater
	sharedKey string
}

// state is what a handler learns on its first requests.
type state struct {
	mu      sync.Mutex
	updater *dnsupdate.Updater
}

// KeyConfig is a TSIG key.
type KeyConfig struct {
	// File is the path of a key file in BIND syntax.
	File string `json:"file,omitempty"`
	// Name is the key's name; with File, it picks one key of several.
	Name string `json:"name,omitempty"`
	// Algorithm is the HMAC algorithm, e.g. hmac-sha256.
	Algorithm string `json:"algorithm,omitempty"`
	// Secret is the base64 secret.
	Secret string `json:"secret,omitempty"`
}

// CaddyModule returns the Caddy module information.
func (Handler) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "http.handlers.zone_api_external_dns",
		New: func() caddy.Module { return new(Handler) },
	}
}

// Provision checks and canonicalizes the configuration; it touches
// neither BIND nor the disk.
func (h *Handler) Provision(ctx caddy.Context) error {
	h.logger = ctx.Logger()
	h.st = new(state)
	h.zones = h.zones[:0]
	repl := caddy.NewReplacer()
	for _, item := range h.Zones {
		// A placeholder may stand for several zones, separated by commas
		// or spaces: zones {env.EXTERNAL_DNS_ZONES}.
		for _, z := range strings.FieldsFunc(repl.ReplaceKnown(item, ""), func(r rune) bool { return r == ',' || r == ' ' }) {
			c := strings.TrimSuffix(strings.ToLower(z), ".")
			if _, ok := dns.IsDomainName(c); !ok || c == "" {
				return fmt.Errorf("zones: %q is not a domain name", z)
			}
			if !slices.Contains(h.zones, c) {
				h.zones = append(h.zones, c)
			}
		}
	}
	h.server = DefaultDNSServer
	if h.DNSServer != "" {
		h.server = caddy.NewReplacer().ReplaceKnown(h.DNSServer, "")
	}
	h.timeout = time.Duration(h.Timeout)
	if h.timeout <= 0 {
		h.timeout = dnsupdate.DefaultTimeout
	}
	m, err := dnsupdate.ParseSerialMethod(h.SerialUpdateMethod)
	if err != nil {
		return fmt.Errorf("serial_update_method: %v", err)
	}
	h.method = m
	// The updater is shared across config generations: a reference now
	// (nothing is opened), released in Cleanup.
	h.sharedKey = sharedupdater.Key("zone_api_external_dns", h.server, h.UpdateKey, h.timeout)
	h.shared = sharedupdater.Acquire(h.sharedKey, dnsupdate.Hooks{})
	return nil
}

// Cleanup releases the handler's reference to the shared DNS updater,
// whose connections close when no config generation uses it any more.
func (h *Handler) Cleanup() error {
	if h.sharedKey != "" {
		sharedupdater.Release(h.sharedKey)
		h.sharedKey, h.shared = "", nil
	}
	return nil
}

// Validate checks that zones and a key are configured.
func (h *Handler) Validate() error {
	if len(h.zones) == 0 {
		return errors.New("zones: name at least one zone the webhook may change")
	}
	if h.UpdateKey == nil || (h.UpdateKey.File == "" && h.UpdateKey.Secret == "") {
		return errors.New("update_key: a TSIG key with its secret is needed to sign updates (update_key_file <path> or update_key <name> <algorithm> <secret>)")
	}
	return nil
}

// records returns the updater, loading the key on first use (a failure is
// retried on the next request). The updater is shared with every config
// generation that has the same settings and released in Cleanup
// (internal/sharedupdater).
func (h *Handler) records() (*dnsupdate.Updater, error) {
	h.st.mu.Lock()
	defer h.st.mu.Unlock()
	if h.st.updater != nil {
		return h.st.updater, nil
	}
	key, err := loadKey(*h.UpdateKey)
	if err != nil {
		return nil, fmt.Errorf("loading update key: %w", err)
	}
	shared := h.shared
	if shared == nil { // a handler built without Provision (tests)
		shared = new(sharedupdater.Updater)
	}
	u, err := shared.Get(h.server, &key, h.timeout)
	if err != nil {
		return nil, err
	}
	h.st.updater = u
	return u, nil
}

func loadKey(k KeyConfig) (rndc.Key, error) {
	repl := caddy.NewReplacer()
	name := repl.ReplaceKnown(k.Name, "")
	if k.File != "" {
		cfg, err := rndc.LoadConfig(repl.ReplaceKnown(k.File, ""))
		if err != nil {
			return rndc.Key{}, err
		}
		return cfg.Key(name)
	}
	secret, err := repl.ReplaceOrErr(k.Secret, true, true)
	if err != nil {
		return rndc.Key{}, fmt.Errorf("key %q secret: %v", name, err)
	}
	return rndc.NewKey(name, repl.ReplaceKnown(k.Algorithm, ""), secret)
}

// ServeHTTP routes by the last path element, so the webhook may be
// mounted under any prefix (external-dns joins its paths onto the URL it
// is given).
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request, _ caddyhttp.Handler) error {
	last := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	switch {
	case last == "records" && r.Method == http.MethodGet:
		h.getRecords(w, r)
	case last == "records" && r.Method == http.MethodPost:
		h.applyChanges(w, r)
	case last == "adjustendpoints" && r.Method == http.MethodPost:
		h.adjustEndpoints(w, r)
	case last == "healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	case last == "records" || last == "adjustendpoints" || last == "healthz":
		writeError(w, http.StatusMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path)
	case r.Method == http.MethodGet:
		h.negotiate(w)
	default:
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
	return nil
}

// domainFilter is external-dns's serialized DomainFilter.
type domainFilter struct {
	Include []string `json:"include,omitempty"`
}

func (h *Handler) negotiate(w http.ResponseWriter) {
	writeWebhook(w, http.StatusOK, domainFilter{Include: h.zones})
}

// Endpoint is external-dns's endpoint.Endpoint, as the webhook protocol
// carries it.
type Endpoint struct {
	DNSName          string             `json:"dnsName,omitempty"`
	Targets          []string           `json:"targets,omitempty"`
	RecordType       string             `json:"recordType,omitempty"`
	SetIdentifier    string             `json:"setIdentifier,omitempty"`
	RecordTTL        int64              `json:"recordTTL,omitempty"`
	Labels           map[string]string  `json:"labels,omitempty"`
	ProviderSpecific []ProviderProperty `json:"providerSpecific,omitempty"`
}

// ProviderProperty is a provider-specific property of an endpoint.
type ProviderProperty struct {
	Name  string `json:"name,omitempty"`
	Value string `json:"value,omitempty"`
}

// Changes is external-dns's plan.Changes.
type Changes struct {
	Create    []*Endpoint `json:"create,omitempty"`
	UpdateOld []*Endpoint `json:"updateOld,omitempty"`
	UpdateNew []*Endpoint `json:"updateNew,omitempty"`
	Delete    []*Endpoint `json:"delete,omitempty"`
}

// supported are the types the webhook lists and changes (those
// external-dns manages). SOA and the apex NS are never listed.
var supported = map[uint16]bool{
	dns.TypeA: true, dns.TypeAAAA: true, dns.TypeCNAME: true, dns.TypeTXT: true, dns.TypeSRV: true,
	dns.TypeNS: true, dns.TypePTR: true, dns.TypeMX: true, dns.TypeNAPTR: true, dns.TypeCAA: true,
}

// listing caches each zone's endpoints, encoded, by serial, on top of the
// AXFR snapshot cache: an unchanged zone costs one SOA query and no work.
type listing struct {
	serial uint32
	json   []byte // the endpoints as JSON array elements, comma-separated
}

var (
	listingsMu sync.Mutex
	listings   = map[string]listing{} // server \x00 zone -> endpoints
)

// readers bounds the zones read at once by one GET /records.
const readers = 8

func (h *Handler) getRecords(w http.ResponseWriter, r *http.Request) {
	u, err := h.records()
	if err != nil {
		h.logger.Error("external-dns records", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	parts := make([][]byte, len(h.zones))
	errs := make([]error, len(h.zones))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, zone := range h.zones {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			parts[i], errs[i] = h.zoneListing(r.Context(), u, zone)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			h.logger.Error("reading zone for external-dns", zap.String("zone", h.zones[i]), zap.Error(err))
			writeError(w, http.StatusInternalServerError, "reading zone %s: %v", h.zones[i], err)
			return
		}
	}
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte{'['})
	first := true
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if !first {
			_, _ = w.Write([]byte{','})
		}
		first = false
		_, _ = w.Write(p)
	}
	_, _ = w.Write([]byte("]\n"))
}

// zoneListing returns the zone's endpoints as JSON array elements, from
// the cache while the zone's serial is unchanged.
func (h *Handler) zoneListing(ctx context.Context, u *dnsupdate.Updater, zone string) ([]byte, error) {
	snap, err := u.Snapshot(ctx, zone)
	if err != nil {
		return nil, err
	}
	key := h.server + "\x00" + zone
	listingsMu.Lock()
	l, ok := listings[key]
	listingsMu.Unlock()
	if ok && l.serial == snap.Serial() {
		return l.json, nil
	}
	var b []byte
	if eps := endpoints(snap, zone); len(eps) > 0 {
		if b, err = json.Marshal(eps); err != nil {
			return nil, err
		}
		b = bytes.TrimSuffix(bytes.TrimPrefix(b, []byte{'['}), []byte{']'})
	}
	listingsMu.Lock()
	listings[key] = listing{serial: snap.Serial(), json: b}
	listingsMu.Unlock()
	return b, nil
}

// endpoints turns a zone snapshot into endpoints, one per RRset of a
// supported type, in the snapshot's order.
func endpoints(snap *dnsupdate.Snapshot, zone string) []*Endpoint {
	type key struct {
		name string
		typ  uint16
	}
	idx := map[key]*Endpoint{}
	var out []*Endpoint
	apex := zone + "."
	for _, rr := range snap.RRs {
		hd := rr.Header()
		if !supported[hd.Rrtype] || (hd.Rrtype == dns.TypeNS && hd.Name == apex) {
			continue
		}
		k := key{hd.Name, hd.Rrtype}
		ep, ok := idx[k]
		if !ok {
			ep = &Endpoint{DNSName: strings.TrimSuffix(hd.Name, "."), RecordType: dns.TypeToString[hd.Rrtype], RecordTTL: int64(hd.Ttl)}
			idx[k] = ep
			out = append(out, ep)
		}
		ep.Targets = append(ep.Targets, target(rr))
	}
	for _, ep := range out {
		sort.Strings(ep.Targets)
	}
	return out
}

// target is a record's data as external-dns writes it: host names without
// the trailing dot, TXT as its text.
func target(rr dns.RR) string {
	switch v := rr.(type) {
	case *dns.A:
		return v.A.String()
	case *dns.AAAA:
		return v.AAAA.String()
	case *dns.CNAME:
		return strings.TrimSuffix(v.Target, ".")
	case *dns.NS:
		return strings.TrimSuffix(v.Ns, ".")
	case *dns.PTR:
		return strings.TrimSuffix(v.Ptr, ".")
	case *dns.MX:
		return strconv.Itoa(int(v.Preference)) + " " + strings.TrimSuffix(v.Mx, ".")
	case *dns.SRV:
		return fmt.Sprintf("%d %d %d %s", v.Priority, v.Weight, v.Port, strings.TrimSuffix(v.Target, "."))
	case *dns.TXT:
		var b strings.Builder
		for _, s := range v.Txt {
			b.WriteString(unescapeTXT(s))
		}
		return b.String()
	}
	return strings.TrimSpace(strings.TrimPrefix(rr.String(), rr.Header().String()))
}

func (h *Handler) adjustEndpoints(w http.ResponseWriter, r *http.Request) {
	var eps []*Endpoint
	if !decode(w, r, &eps) {
		return
	}
	for _, ep := range eps {
		if ep != nil {
			ep.DNSName = strings.TrimSuffix(strings.ToLower(ep.DNSName), ".")
		}
	}
	if eps == nil {
		eps = []*Endpoint{}
	}
	writeWebhook(w, http.StatusOK, eps)
}

// zoneUpdate is the UPDATE of one zone.
type zoneUpdate struct {
	zone           string
	prereq, update []dns.RR
}

// applyChanges applies plan.Changes: every endpoint is checked and turned
// into records first (400, nothing sent, on any problem), then each zone's
// changes go as one UPDATE.
func (h *Handler) applyChanges(w http.ResponseWriter, r *http.Request) {
	var ch Changes
	if !decode(w, r, &ch) {
		return
	}
	u, err := h.records()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	plan, err := h.plan(r.Context(), u, &ch)
	if err != nil {
		writeError(w, http.StatusBadRequest, "%v; nothing was changed", err)
		return
	}
	var applied []string
	for _, zu := range plan {
		_, err := u.Apply(r.Context(), zu.zone, zu.prereq, zu.update, dnsupdate.WriteOptions{SerialMethod: h.method})
		if err == nil {
			applied = append(applied, zu.zone)
			h.logger.Info("external-dns changes applied", zap.String("zone", zu.zone), zap.Int("changes", len(zu.update)))
			continue
		}
		done := "nothing was changed"
		if len(applied) > 0 {
			done = fmt.Sprintf("zone %s was not changed; zones %s were", zu.zone, strings.Join(applied, ", "))
		}
		var se *dnsupdate.ServerError
		if errors.As(err, &se) {
			switch se.Rcode {
			case dns.RcodeNXRrset, dns.RcodeYXRrset, dns.RcodeNameError, dns.RcodeYXDomain:
				h.logger.Warn("external-dns changes refused: a prerequisite failed", zap.String("zone", zu.zone), zap.String("rcode", dns.RcodeToString[se.Rcode]))
				writeError(w, http.StatusConflict, "zone %s changed since external-dns read it (named answered %s to the update's prerequisites: an updateOld RRset is no longer as read, or a created RRset exists); %s",
					zu.zone, dns.RcodeToString[se.Rcode], done)
				return
			}
		}
		var ce *dnsupdate.ConflictError
		if errors.As(err, &ce) {
			writeError(w, http.StatusConflict, "zone %s: %v; %s", zu.zone, err, done)
			return
		}
		h.logger.Error("external-dns changes failed", zap.String("zone", zu.zone), zap.Error(err))
		writeError(w, http.StatusInternalServerError, "zone %s: %v; %s", zu.zone, err, done)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// plan turns changes into one UPDATE per zone, in the order of the
// configured zones.
func (h *Handler) plan(ctx context.Context, u *dnsupdate.Updater, ch *Changes) ([]*zoneUpdate, error) {
	byZone := map[string]*zoneUpdate{}
	at := func(ep *Endpoint, field string, i int) (*zoneUpdate, []dns.RR, error) {
		if ep == nil {
			return nil, nil, fmt.Errorf("%s[%d]: null endpoint", field, i)
		}
		zone, err := h.zoneOf(ep.DNSName)
		if err != nil {
			return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
		}
		if ep.SetIdentifier != "" {
			return nil, nil, fmt.Errorf("%s[%d]: setIdentifier %q: BIND has no routing policies, so endpoints with a set identifier are not supported", field, i, ep.SetIdentifier)
		}
		zu := byZone[zone]
		if zu == nil {
			zu = &zoneUpdate{zone: zone}
			byZone[zone] = zu
		}
		ttl := uint32(0)
		if ep.RecordTTL > 0 {
			ttl = uint32(min(ep.RecordTTL, 1<<31-1))
		} else if field != "updateOld" && field != "delete" {
			snap, err := u.Snapshot(ctx, zone)
			if err != nil {
				return nil, nil, fmt.Errorf("reading zone %s: %v", zone, err)
			}
			ttl = snap.SOA.Hdr.Ttl
		}
		rrs, err := toRRs(ep, ttl)
		if err != nil {
			return nil, nil, fmt.Errorf("%s[%d]: %v", field, i, err)
		}
		return zu, rrs, nil
	}
	if len(ch.UpdateOld) != len(ch.UpdateNew) {
		return nil, fmt.Errorf("updateOld has %d endpoints and updateNew %d: they must pair up", len(ch.UpdateOld), len(ch.UpdateNew))
	}
	for i, ep := range ch.UpdateOld {
		zu, rrs, err := at(ep, "updateOld", i)
		if err != nil {
			return nil, err
		}
		// The RRset must still be exactly as external-dns read it: RFC
		// 2136 "RRset exists (value dependent)".
		for _, rr := range rrs {
			rr.Header().Ttl = 0
			zu.prereq = append(zu.prereq, rr)
		}
		// ...then it is replaced.
		del := &dns.ANY{Hdr: dns.RR_Header{Name: rrs[0].Header().Name, Rrtype: rrs[0].Header().Rrtype, Class: dns.ClassANY}}
		zu.update = append(zu.update, del)
		nz, nrrs, err := at(ch.UpdateNew[i], "updateNew", i)
		if err != nil {
			return nil, err
		}
		if nz != zu || !strings.EqualFold(nrrs[0].Header().Name, rrs[0].Header().Name) || nrrs[0].Header().Rrtype != rrs[0].Header().Rrtype {
			return nil, fmt.Errorf("updateNew[%d] (%s %s) is not the RRset of updateOld[%d] (%s %s)", i, ch.UpdateNew[i].DNSName, ch.UpdateNew[i].RecordType, i, ep.DNSName, ep.RecordType)
		}
		zu.update = append(zu.update, nrrs...)
	}
	for i, ep := range ch.Create {
		zu, rrs, err := at(ep, "create", i)
		if err != nil {
			return nil, err
		}
		// A created RRset must not exist yet: RFC 2136 "RRset does not
		// exist", so a record made meanwhile by someone else is not
		// merged into.
		h0 := rrs[0].Header()
		zu.prereq = append(zu.prereq, &dns.ANY{Hdr: dns.RR_Header{Name: h0.Name, Rrtype: h0.Rrtype, Class: dns.ClassNONE}})
		zu.update = append(zu.update, rrs...)
	}
	for i, ep := range ch.Delete {
		zu, rrs, err := at(ep, "delete", i)
		if err != nil {
			return nil, err
		}
		// Only the records external-dns owns go: each by its value.
		for _, rr := range rrs {
			rr.Header().Class, rr.Header().Ttl = dns.ClassNONE, 0
			zu.update = append(zu.update, rr)
		}
	}
	var out []*zoneUpdate
	for _, z := range h.zones {
		if zu := byZone[z]; zu != nil && len(zu.update) > 0 {
			out = append(out, zu)
		}
	}
	return out, nil
}

// zoneOf returns the configured zone with the longest suffix matching
// name (on a label boundary).
func (h *Handler) zoneOf(name string) (string, error) {
	n := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(name)), ".")
	if _, ok := dns.IsDomainName(n); !ok || n == "" {
		return "", fmt.Errorf("dnsName %q is not a domain name", name)
	}
	best := ""
	for _, z := range h.zones {
		if (n == z || strings.HasSuffix(n, "."+z)) && len(z) > len(best) {
			best = z
		}
	}
	if best == "" {
		return "", fmt.Errorf("dnsName %q is in none of the zones this webhook manages (%s)", name, strings.Join(h.zones, ", "))
	}
	return best, nil
}

// toRRs turns an endpoint into records, as external-dns's RFC 2136
// provider does: each target in master-file form after "<name> <ttl> IN
// <type>", host names taken as absolute; a TXT target not starting with a
// double quote is one literal string.
func toRRs(ep *Endpoint, ttl uint32) ([]dns.RR, error) {
	t, ok := dns.StringToType[strings.ToUpper(ep.RecordType)]
	if !ok || !supported[t] {
		return nil, fmt.Errorf("recordType %q is not supported (A, AAAA, CNAME, TXT, SRV, NS, PTR, MX, NAPTR, CAA)", ep.RecordType)
	}
	if len(ep.Targets) == 0 {
		return nil, fmt.Errorf("%s %s: no targets", ep.DNSName, ep.RecordType)
	}
	name := dns.Fqdn(strings.ToLower(strings.TrimSpace(ep.DNSName)))
	var out []dns.RR
	for _, v := range ep.Targets {
		if t == dns.TypeTXT && !strings.HasPrefix(v, `"`) {
			v = quoteTXT(v)
		}
		if strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("%s %s: target %q is not one record's data", ep.DNSName, ep.RecordType, v)
		}
		zp := dns.NewZoneParser(strings.NewReader(fmt.Sprintf("%s %d IN %s %s\n", name, ttl, dns.TypeToString[t], v)), ".", "")
		zp.SetIncludeAllowed(false)
		rr, ok := zp.Next()
		if !ok || zp.Err() != nil {
			return nil, fmt.Errorf("%s %s: target %q: %v", ep.DNSName, ep.RecordType, v, zp.Err())
		}
		if _, more := zp.Next(); more {
			return nil, fmt.Errorf("%s %s: target %q is more than one record", ep.DNSName, ep.RecordType, v)
		}
		out = append(out, rr)
	}
	return out, nil
}

// quoteTXT is s as one or more quoted TXT strings (at most 255 bytes
// each), escaping quotes, backslashes and non-printable bytes.
func quoteTXT(s string) string {
	var b strings.Builder
	for len(s) > 0 || b.Len() == 0 {
		n := min(len(s), 255)
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		for i := 0; i < n; i++ {
			switch c := s[i]; {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < ' ' || c > '~':
				fmt.Fprintf(&b, "\\%03d", c)
			default:
				b.WriteByte(c)
			}
		}
		b.WriteByte('"')
		s = s[n:]
	}
	return b.String()
}

// unescapeTXT turns a miekg/dns TXT string (\X and \DDD escapes) into its
// bytes.
func unescapeTXT(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		if i+3 < len(s) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			b.WriteByte((s[i+1]-'0')*100 + (s[i+2]-'0')*10 + (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i+1])
		i++
	}
	return b.String()
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decode reads a JSON body into v, answering 400 or 413 itself. Unknown
// fields are ignored, unlike the API's bodies: the body's shape is
// external-dns's, and a newer external-dns may add fields.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxBody))
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body over %d bytes", maxBody)
			return false
		}
		writeError(w, http.StatusBadRequest, "request body: %v", err)
		return false
	}
	if dec.More() {
		writeError(w, http.StatusBadRequest, "request body: more than one JSON value")
		return false
	}
	return true
}

func writeWebhook(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", MediaType)
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers the project's {error, message} body.
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": http.StatusText(status), "message": fmt.Sprintf(format, args...)})
}

// Interface guards
var (
	_ caddy.Provisioner           = (*Handler)(nil)
	_ caddy.Validator             = (*Handler)(nil)
	_ caddy.CleanerUpper          = (*Handler)(nil)
	_ caddyhttp.MiddlewareHandler = (*Handler)(nil)
)
