// Package webhook is the external-dns webhook's HTTP side: it speaks
// external-dns's webhook protocol (media type
// application/external.dns.webhook+json;version=1) over the provider of
// the front ends' contract (frontend.ExternalDNSProvider), as
// external-dns's own webhook server sits on its provider.Provider. The
// zone_api_external_dns handler (package externaldns) builds the provider
// and serves its requests through an API.
//
//   - GET / negotiates: the media type and the domain filter (the zones).
//   - GET /records lists the zones' records as endpoints.
//   - POST /records applies plan.Changes, one atomic UPDATE per zone: a
//     change made meanwhile by someone else fails the zone's update with
//     409 and nothing of it changes; success is 204.
//   - POST /adjustendpoints returns the endpoints with names lower-cased
//     and without trailing dots.
//   - GET /healthz answers 200, or 503 while Health fails.
package webhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// MediaType is the webhook protocol's media type and version.
const MediaType = "application/external.dns.webhook+json;version=1"

// maxBody bounds a request body (external-dns caps its own at 32 MiB).
const maxBody = 32 << 20

// readers bounds the zones read at once by one GET /records.
const readers = 8

// API serves the webhook's requests.
type API struct {
	// Zones are the zones the webhook may read and change (canonical:
	// lower case, no trailing dot), its domain filter.
	Zones []string
	// Provider returns the provider, set up on first use (an error is
	// answered 500 and tried again on the next request).
	Provider func() (frontend.ExternalDNSProvider, error)
	// Health, when set, is GET /healthz's check: its error is answered
	// 503 (the change history cannot be written: "history_writable").
	Health func() error
	// Logger logs the changes applied and the failures.
	Logger *zap.Logger
}

// ServeHTTP routes by the last path element, so the webhook may be
// mounted under any prefix (external-dns joins its paths onto the URL it
// is given).
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if msg := zonemodel.CheckRequestID(r.Header.Values("X-Request-Id")); msg != "" {
		writeError(w, http.StatusBadRequest, "%s", msg)
		return
	}
	last := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	switch {
	case last == "records" && r.Method == http.MethodGet:
		a.getRecords(w, r)
	case last == "records" && r.Method == http.MethodPost:
		a.applyChanges(w, r)
	case last == "adjustendpoints" && r.Method == http.MethodPost:
		a.adjustEndpoints(w, r)
	case last == "healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		a.healthz(w)
	case last == "records" || last == "adjustendpoints" || last == "healthz":
		writeError(w, http.StatusMethodNotAllowed, "method %s is not allowed on %s", r.Method, r.URL.Path)
	case r.Method == http.MethodGet:
		a.negotiate(w)
	default:
		writeError(w, http.StatusNotFound, "no such endpoint: %s %s", r.Method, r.URL.Path)
	}
}

// healthz answers GET /healthz: 200 "ok", or 503 while Health fails, with
// the check named as zone_api's /api/v1/ready names it
// (history_writable: <error>). The webhook still makes changes then, as
// every front end does (docs/history.md): the probe is what lets a
// deployment that wants no change unrecorded take the instance out of
// rotation.
func (a *API) healthz(w http.ResponseWriter) {
	if a.Health != nil {
		if err := a.Health(); err != nil {
			a.Logger.Warn("health check failed", zap.String("check", "history_writable"), zap.Error(err))
			writeError(w, http.StatusServiceUnavailable, "history_writable: %v", err)
			return
		}
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// domainFilter is external-dns's serialized DomainFilter.
type domainFilter struct {
	Include []string `json:"include,omitempty"`
}

func (a *API) negotiate(w http.ResponseWriter) {
	writeWebhook(w, http.StatusOK, domainFilter{Include: a.Zones})
}

func (a *API) adjustEndpoints(w http.ResponseWriter, r *http.Request) {
	var eps []*apitypes.ExternalDNSEndpoint
	if !decode(w, r, &eps) {
		return
	}
	for _, ep := range eps {
		if ep != nil {
			ep.DNSName = strings.TrimSuffix(strings.ToLower(ep.DNSName), ".")
		}
	}
	if eps == nil {
		eps = []*apitypes.ExternalDNSEndpoint{}
	}
	writeWebhook(w, http.StatusOK, eps)
}

func (a *API) getRecords(w http.ResponseWriter, r *http.Request) {
	pr, err := a.Provider()
	if err != nil {
		a.Logger.Error("external-dns records", zap.Error(err))
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	parts := make([][]byte, len(a.Zones))
	errs := make([]error, len(a.Zones))
	sem := make(chan struct{}, readers)
	var wg sync.WaitGroup
	for i, zone := range a.Zones {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			parts[i], errs[i] = pr.ZoneEndpoints(r.Context(), zone)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			a.Logger.Error("reading zone for external-dns", zap.String("zone", a.Zones[i]), zap.Error(err))
			writeError(w, http.StatusInternalServerError, "reading zone %s: %v", a.Zones[i], err)
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

// applyChanges applies plan.Changes: every endpoint is checked and turned
// into records first (400, nothing sent, on any problem), then each zone's
// changes go as one UPDATE.
func (a *API) applyChanges(w http.ResponseWriter, r *http.Request) {
	var ch apitypes.ExternalDNSChanges
	if !decode(w, r, &ch) {
		return
	}
	pr, err := a.Provider()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "%v", err)
		return
	}
	// Who asked, for the change history: external-dns sends no
	// credentials, so the identity is the webhook's.
	ctx := zonemodel.WithActor(r.Context(), zonemodel.Actor{Identity: "external-dns", Frontend: "externaldns", RequestID: frontend.RequestID(r)})
	var applied []string
	err = pr.ApplyChanges(ctx, &ch, func(zone string, changes int) {
		applied = append(applied, zone)
		a.Logger.Info("external-dns changes applied", zap.String("zone", zone), zap.Int("changes", changes))
	})
	if err != nil {
		a.fail(w, err, applied)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// fail answers ApplyChanges' error: 400 for the changes' (nothing sent),
// 409 for a zone changed meanwhile or a DNS rule, 500 for the rest,
// saying which zones were changed before.
func (a *API) fail(w http.ResponseWriter, err error, applied []string) {
	var ze *zonemodel.ZoneError
	if !errors.As(err, &ze) {
		writeError(w, http.StatusBadRequest, "%v; nothing was changed", err)
		return
	}
	done := "nothing was changed"
	if len(applied) > 0 {
		done = fmt.Sprintf("zone %s was not changed; zones %s were", ze.Zone, strings.Join(applied, ", "))
	}
	var pe *zonemodel.PrerequisiteError
	var ce *zonemodel.ConflictError
	switch {
	case errors.As(err, &pe):
		a.Logger.Warn("external-dns changes refused: a prerequisite failed", zap.String("zone", ze.Zone), zap.String("rcode", pe.Rcode))
		writeError(w, http.StatusConflict, "zone %s changed since external-dns read it (named answered %s to the update's prerequisites: an updateOld RRset is no longer as read, or a created RRset exists); %s",
			ze.Zone, pe.Rcode, done)
	case errors.As(err, &ce):
		writeError(w, http.StatusConflict, "zone %s: %v; %s", ze.Zone, ze.Err, done)
	default:
		a.Logger.Error("external-dns changes failed", zap.String("zone", ze.Zone), zap.Error(ze.Err))
		writeError(w, http.StatusInternalServerError, "zone %s: %v; %s", ze.Zone, ze.Err, done)
	}
}

// decode reads a JSON body into v (jsonbody.Stream), answering 400 or 413
// itself. Unknown fields are ignored, unlike the API's bodies: the body's
// shape is external-dns's, and a newer external-dns may add fields.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := jsonbody.Read(w, r, maxBody)
	if err == nil {
		err = jsonbody.Decode(b, v, jsonbody.Stream)
	}
	if err != nil {
		if jsonbody.TooLarge(err) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body over %d bytes", maxBody)
			return false
		}
		writeError(w, http.StatusBadRequest, "request body: %v", err)
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
	_ = json.NewEncoder(w).Encode(map[string]string{"error": apitypes.ReasonPhrase(status), "message": fmt.Sprintf(format, args...)})
}
