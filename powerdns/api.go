package powerdns

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
)

// ServerID is the only server id: every PowerDNS client uses localhost.
const ServerID = "localhost"

// Prefix is the path of the server's resources.
const Prefix = "/api/v1/servers/" + ServerID

// MaxBody bounds a request body (a PATCH of thousands of RRsets fits).
const MaxBody = 8 << 20

// API serves the PowerDNS API over a Service.
type API struct {
	// Service is the zone service.
	Service Service
	// ServerStatistics, when set, reads named's statistics channel's
	// /json/v1/server, whose counters GET /statistics gives under
	// PowerDNS's names.
	ServerStatistics func(ctx context.Context) ([]byte, error)
	// Logger, when set, is the DNS log: failed record operations are
	// logged there.
	Logger *zap.Logger
	// Version is the version string of GET /servers/localhost: PowerDNS
	// clients parse it (octoDNS, Terraform), so it looks like PowerDNS's
	// with the zone API's version after it.
	Version string
	// Denied, when set, is told of every request refused 403 by a
	// record-level scope check made here (for the auth log and metric).
	Denied func(r *http.Request, err error)
	// Allow, when set, checks an action on a zone named in the body
	// (creation), answering 403 itself; without it the identity's grant
	// is checked here.
	Allow func(w http.ResponseWriter, r *http.Request, action auth.Action, zone string) bool
	// AllowRecords, when set, checks that the identity may change the
	// zone's records that changes name (the records action on the zone
	// and each RRset's name and type), answering 403 itself; without it
	// the identity's grant is asked the same question here
	// (auth.Grant.CheckRecordChanges). Every route that changes records
	// asks it: PATCH, and PUT with rrsets, whose route needs zones.
	AllowRecords func(w http.ResponseWriter, r *http.Request, zone string, changes []auth.RecordChange) bool
	// AllowPrimaries, when set, checks that the identity may name a
	// Slave zone's masters (they make named transfer from the addresses
	// given), answering 403 itself; without it only an identity that may
	// act on the whole server may name them.
	AllowPrimaries func(w http.ResponseWriter, r *http.Request, primaries []string) bool
	// AllowNotify, when set, checks that the identity may name a zone's
	// also-notify servers (the ALSO-NOTIFY metadata: named sends NOTIFY
	// messages to the addresses given), answering 403 itself; without it
	// only an identity that may act on the whole server may name them.
	AllowNotify func(w http.ResponseWriter, r *http.Request, servers []string) bool

	sideKeys sideKeyCache // see sidepatch.go
}

// Routes lists the endpoints.
func (a *API) Routes() []Route {
	z := Prefix + "/zones/{name}"
	return withCORS([]Route{
		{Method: http.MethodGet, Template: "/api", Handle: a.apiVersions},
		{Method: http.MethodGet, Template: "/api/v1", Handle: a.apiIndex},
		{Method: http.MethodGet, Template: "/api/v1/servers", Handle: a.servers},
		{Method: http.MethodGet, Template: Prefix, Handle: a.server},
		{Method: http.MethodGet, Template: Prefix + "/statistics", Action: auth.ActionServer, Handle: a.statistics},
		{Method: http.MethodGet, Template: Prefix + "/config", Action: auth.ActionServer, Handle: a.config},
		{Method: http.MethodGet, Template: Prefix + "/search-data", Action: auth.ActionRead, Handle: a.searchData},
		{Method: http.MethodGet, Template: Prefix + "/autoprimaries", Action: auth.ActionServer, Handle: a.listAutoprimaries},
		{Method: http.MethodPost, Template: Prefix + "/autoprimaries", Action: auth.ActionServer, Handle: a.createAutoprimary},
		{Method: http.MethodDelete, Template: Prefix + "/autoprimaries/{ip}/{nameserver}", Action: auth.ActionServer, Handle: a.deleteAutoprimary},
		{Method: http.MethodGet, Template: Prefix + "/zones", Action: auth.ActionRead, Handle: a.listZones},
		{Method: http.MethodPost, Template: Prefix + "/zones", Action: auth.ActionZones, Op: "create", Handle: a.createZone},
		{Method: http.MethodGet, Template: z, Action: auth.ActionRead, Handle: a.getZone},
		{Method: http.MethodPatch, Template: z, Action: auth.ActionRecords, Op: "record_batch", Handle: a.patchZone},
		{Method: http.MethodPut, Template: z, Action: auth.ActionZones, Op: "modify", Handle: a.putZone},
		{Method: http.MethodDelete, Template: z, Action: auth.ActionZones, Op: "delete", Handle: a.deleteZone},
		{Method: http.MethodPut, Template: z + "/notify", Action: auth.ActionRecords, Op: "notify", Handle: a.notify},
		{Method: http.MethodPut, Template: z + "/axfr-retrieve", Action: auth.ActionZones, Op: "retransfer", Handle: a.axfrRetrieve},
		{Method: http.MethodGet, Template: z + "/export", Action: auth.ActionRead, Handle: a.export},
		{Method: http.MethodPut, Template: z + "/rectify", Action: auth.ActionRecords, Handle: a.rectify},
		{Method: http.MethodGet, Template: z + "/metadata", Action: auth.ActionRead, Handle: a.listMetadata},
		{Method: http.MethodPost, Template: z + "/metadata", Action: auth.ActionZones, Op: "modify", Handle: a.postMetadata},
		{Method: http.MethodGet, Template: z + "/metadata/{kind}", Action: auth.ActionRead, Handle: a.getMetadata},
		{Method: http.MethodPut, Template: z + "/metadata/{kind}", Action: auth.ActionZones, Op: "modify", Handle: a.putMetadata},
		{Method: http.MethodDelete, Template: z + "/metadata/{kind}", Action: auth.ActionZones, Op: "modify", Handle: a.deleteMetadata},
		{Method: http.MethodGet, Template: z + "/cryptokeys", Action: auth.ActionRead, Handle: a.listCryptokeys},
		{Method: http.MethodGet, Template: z + "/cryptokeys/{id}", Action: auth.ActionRead, Handle: a.getCryptokey},
		{Method: http.MethodPost, Template: z + "/cryptokeys", Action: auth.ActionZones, Op: "modify", Handle: a.createCryptokey},
		{Method: http.MethodPut, Template: z + "/cryptokeys/{id}", Action: auth.ActionZones, Handle: a.refuse("BIND's dnssec-policy activates and retires keys itself")},
		{Method: http.MethodDelete, Template: z + "/cryptokeys/{id}", Action: auth.ActionZones, Handle: a.refuse("BIND's dnssec-policy activates and retires keys itself")},
	})
}

// IsPath reports whether a request path belongs to this API: /api,
// /api/v1 and everything under /api/v1/servers.
func IsPath(p string) bool {
	p = strings.TrimSuffix(p, "/")
	return p == "/api" || p == "/api/v1" || p == "/api/v1/servers" || strings.HasPrefix(p, "/api/v1/servers/")
}

// WriteError answers PowerDNS's error body, {"error": "…"}.
func WriteError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, ErrorBody{Error: fmt.Sprintf(format, args...)})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// decode reads a JSON body into v (jsonbody.Lenient). Unknown fields are
// ignored, as PowerDNS does; a body that is not JSON is 400, too large 413.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	b, err := jsonbody.Read(w, r, MaxBody)
	if err != nil {
		if jsonbody.TooLarge(err) {
			WriteError(w, http.StatusRequestEntityTooLarge, "request body over %d bytes", MaxBody)
			return false
		}
		WriteError(w, http.StatusBadRequest, "reading the request body: %v", err)
		return false
	}
	if err := jsonbody.Decode(b, v, jsonbody.Lenient); err != nil {
		// Well-formed JSON whose values have the wrong types is invalid
		// input (422), as PowerDNS answers a field of the wrong type.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if key := te.Field[strings.LastIndex(te.Field, ".")+1:]; key == "ttl" && strings.HasPrefix(te.Value, "number") {
				// PowerDNS's words for a TTL below 0 or above 2^32-1.
				WriteError(w, http.StatusUnprocessableEntity, "Key '%s' is not a positive Integer", key)
				return false
			}
			WriteError(w, http.StatusUnprocessableEntity, "Key '%s' is not of the expected type (%s): %v", te.Field, te.Type, err)
			return false
		}
		WriteError(w, http.StatusBadRequest, "Unable to parse JSON: %v", err)
		return false
	}
	return true
}

// identity is the request's authenticated identity, or nil (auth
// disabled or in-process).
func identity(r *http.Request) *auth.Identity { return auth.FromContext(r.Context()) }

// forbid answers 403 for a scope refusal made here.
func (a *API) forbid(w http.ResponseWriter, r *http.Request, err error) {
	if a.Denied != nil {
		a.Denied(r, err)
	}
	WriteError(w, http.StatusForbidden, "%s", err.Error())
}

// refuse answers 422 for an endpoint with no BIND meaning.
func (a *API) refuse(why string) func(http.ResponseWriter, *http.Request, string) {
	return func(w http.ResponseWriter, r *http.Request, _ string) {
		WriteError(w, http.StatusUnprocessableEntity, "%s %s is not supported: %s", r.Method, r.URL.Path, why)
	}
}

func (a *API) apiVersions(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, []APIVersion{{URL: "/api/v1", Version: 1}})
}

func (a *API) apiIndex(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, map[string]string{"server_url": "/api/v1/servers{/server}", "api_features": ""})
}

func (a *API) serverObject() Server {
	return Server{Type: "Server", ID: ServerID, DaemonType: "authoritative", Version: a.Version,
		URL: Prefix, ConfigURL: Prefix + "/config{/config_setting}", ZonesURL: Prefix + "/zones{/zone}"}
}

func (a *API) servers(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, []Server{a.serverObject()})
}

func (a *API) server(w http.ResponseWriter, _ *http.Request, _ string) {
	writeJSON(w, http.StatusOK, a.serverObject())
}

// statistics answers GET /statistics (?statistic= keeps one): named's
// own figures under their names, PowerDNS's uptime (seconds since
// named's boot-time), which clients and PowerDNS's tests ask for, and
// PowerDNS's counters that named's statistics channel keeps too
// (counterStatistics).
func (a *API) statistics(w http.ResponseWriter, r *http.Request, _ string) {
	stats, err := a.Service.Statistics(r.Context())
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	stats = withUptime(stats, time.Now())
	want := r.URL.Query().Get("statistic")
	out := []any{}
	for _, kv := range stats {
		if want == "" || kv[0] == want {
			out = append(out, StatisticItem{Name: kv[0], Type: "StatisticItem", Value: kv[1]})
		}
	}
	for _, it := range counterStatistics(r.Context(), a.ServerStatistics) {
		if want == "" || statisticName(it) == want {
			out = append(out, it)
		}
	}
	if want != "" && len(out) == 0 {
		WriteError(w, http.StatusUnprocessableEntity, "Unknown statistic name")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// withUptime adds PowerDNS's uptime statistic, the seconds since named's
// boot-time, when named reports a boot time.
func withUptime(stats [][2]string, now time.Time) [][2]string {
	for _, kv := range stats {
		if kv[0] != "boot-time" {
			continue
		}
		if boot, err := time.Parse(time.RFC1123, kv[1]); err == nil {
			up := max(int64(now.Sub(boot)/time.Second), 0)
			return append([][2]string{{"uptime", strconv.FormatInt(up, 10)}}, stats...)
		}
	}
	return stats
}

// config answers GET /config: the settings of PowerDNS's configuration
// that describe this server, as ConfigSetting items. The rest of
// PowerDNS's configuration has no counterpart here: BIND's is named.conf.
func (a *API) config(w http.ResponseWriter, _ *http.Request, _ string) {
	settings := [][2]string{
		{"api", "yes"},
		{"daemon", "yes"},
		{"primary", "yes"},
		{"server-id", ServerID},
		{"version-string", a.Version},
	}
	out := make([]StatisticItem, len(settings))
	for i, kv := range settings {
		out[i] = StatisticItem{Name: kv[0], Type: "ConfigSetting", Value: kv[1]}
	}
	writeJSON(w, http.StatusOK, out)
}
