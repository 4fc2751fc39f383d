// Package config is zone_api's configuration (the Caddy module
// http.handlers.zone_api of package module): its options as Caddy JSON
// (Options) and as the Caddyfile's zone_api directive, apart from the
// module's lifecycle.
package config

import (
	"encoding/json"

	"github.com/caddyserver/caddy/v2"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/internal/keyconf"
)

// Options are the options of zone_api, as its Caddy JSON holds them
// (module.Handler embeds them, so they are the handler's own fields).
type Options struct {
	// ZoneDir is the directory where zone files are written. named must be
	// able to read it at the same path. Placeholders are expanded.
	ZoneDir string `json:"zone_dir,omitempty"`

	// RNDC configures the connection to named's control channel.
	RNDC *RNDCConfig `json:"rndc,omitempty"`

	// UpdateKey names the TSIG key that zones created through the API accept
	// dynamic updates from (`allow-update { key "<name>"; }`), unless a
	// create request names its own updateKeyName. Without it, zones are
	// created without allow-update.
	UpdateKey *KeyConfig `json:"update_key,omitempty"`

	// DNSServer is the host:port of named's DNS port, where the record
	// endpoints send RFC 2136 updates (signed with UpdateKey, which then
	// needs its secret) and read zones by AXFR. Default: 127.0.0.1:53.
	DNSServer string `json:"dns_server,omitempty"`

	// SerialUpdateMethod is how record changes set a zone's next serial:
	// increment (default), unixtime or date, as named's
	// serial-update-method. Each change sets the serial itself (so the
	// answer names it exactly), so set this to what named.conf says for
	// the zones managed here.
	SerialUpdateMethod string `json:"serial_update_method,omitempty"`

	// KeyDirectory is where named keeps the DNSSEC keys of zones whose
	// configuration names no key-directory (named's key-directory option,
	// else its working directory): deleting a zone removes its key files
	// there too. Zones signed through this API are created with
	// key-directory set to ZoneDir, so they need no setting.
	KeyDirectory string `json:"key_directory,omitempty"`

	// NamedCheckzone is the named-checkzone program that checks the
	// zones of an import as named would (see docs/import.md): a path, or
	// "off" to check them with the API's own rules only (named's own
	// refusal at addzone then undoes the import). Default: looked up in
	// PATH, then /usr/sbin, /usr/bin and /usr/local/sbin.
	NamedCheckzone string `json:"named_checkzone,omitempty"`

	// DisableAuth turns bearer authentication off. The environment variable
	// DISABLE_AUTH=true does the same. Use it only behind an authenticating
	// gateway or for local development.
	DisableAuth bool `json:"disable_auth,omitempty"`

	// AuthRaw is the authentication mode, a zone_api.auth module named by
	// its "mode" key: basic (the default: any well-formed bearer token,
	// full access), static, jwt, or k8s_token_review in builds that
	// include it. See the auth package.
	AuthRaw json.RawMessage `json:"auth,omitempty" caddy:"namespace=zone_api.auth inline_key=mode"`

	// RateLimit limits the requests of each authenticated identity; past
	// it requests get 429 with Retry-After. Health and ready are never
	// limited (a ready sent with a token is authenticated, so counted).
	// Default: no limit.
	RateLimit *auth.RateLimit `json:"rate_limit,omitempty"`

	// FailedAuthLimit limits failed authentications per client IP
	// address (brute force); past it that address gets 429 until its
	// bucket refills. Default: no limit.
	FailedAuthLimit *auth.RateLimit `json:"failed_auth_limit,omitempty"`

	// RequireAuth refuses to start when authentication is basic or
	// disabled and the server listens on an address other hosts can
	// reach (without it, that only logs a warning at every start).
	RequireAuth bool `json:"require_auth,omitempty"`

	// LogFilter sets the module's log levels in RUST_LOG syntax: a default
	// level (error, warn, info, debug, trace, off) and comma-separated
	// `<target>=<level>` directives, e.g. "info,zone_api::rndc=debug".
	// Targets: zone_api, zone_api::http, zone_api::auth, zone_api::rndc,
	// zone_api::dns (or their Caddy logger names,
	// http.handlers.zone_api.rndc and so on). Default: {env.RUST_LOG},
	// and info when that is empty. Caddy's own log level must admit the
	// levels asked for (set the log's level to DEBUG).
	LogFilter string `json:"log_filter,omitempty"`

	// Docs controls the API specification (/api/v1/openapi.json and
	// .yaml) and the interactive explorer (/api/v1/docs): "auth" (the
	// default) serves them to requests with a bearer token, like every
	// other endpoint; "public" serves them without one; "off" does not
	// serve them.
	Docs string `json:"docs,omitempty"`

	// PowerDNS serves the PowerDNS-compatible API (package powerdns) on
	// the same site: /api, /api/v1 and /api/v1/servers/localhost/…, for
	// PowerDNS's clients (lego, external-dns, octoDNS, DNSControl, …).
	// Their X-API-Key header is checked by the auth mode like a bearer
	// token. Default: off.
	PowerDNS bool `json:"powerdns,omitempty"`

	// StatisticsChannel is named's statistics channel (its
	// statistics-channels statement), "host:port" or an http:// URL,
	// from which `GET /api/v1/zones?all=true` lists every zone named
	// serves in every view (/json/v1/zones). Default: none, and that
	// list answers 503.
	StatisticsChannel string `json:"statistics_channel,omitempty"`

	// InventoryRefresh is how often the list of every zone named serves
	// is read again from the statistics channel while it is being used
	// (an answer is at most twice this old; the API's own creates,
	// deletes and adoptions show at once). Default: 30s.
	InventoryRefresh caddy.Duration `json:"inventory_refresh,omitempty"`
	// ZoneCacheMaxAge bounds the age of the zone cache's answers to zone
	// GETs (zoneservice.Service.ZoneCacheMaxAge). Default 1m; negative: off.
	ZoneCacheMaxAge caddy.Duration `json:"zone_cache_max_age,omitempty"`

	// Catalog, if set, keeps a catalog zone (RFC 9432) of the zones
	// created through the API, for secondaries that consume it. With
	// views, it lives in the default view and holds that view's zones.
	Catalog *CatalogConfig `json:"catalog,omitempty"`

	// Views are the views of named (split horizon) that requests
	// address with ?view=<name>; see ViewConfig. Without views, zones
	// are addressed without one, as on a server without views.
	Views []ViewConfig `json:"views,omitempty"`

	// History configures the change history (docs/history.md), which is
	// on by default.
	History *HistoryConfig `json:"history,omitempty"`

	// Events configures the change events: the event stream
	// (GET /api/v1/events) and the outbound webhooks (docs/events.md).
	Events *EventsConfig `json:"events,omitempty"`

	// AllowedPrimaries are networks (CIDR, or single addresses) inside
	// which an identity with the zones action but not the server action
	// may name a secondary zone's primaries (the create's
	// zoneConfig.primaries, PATCH's primaries, the PowerDNS API's
	// masters). Primaries make named transfer from the addresses named,
	// so naming any other address needs the server action, as an import
	// by AXFR does (docs/import.md). Default: none. Do not list named's
	// own addresses: a tenant could then copy zones of its other views.
	AllowedPrimaries []string `json:"allowed_primaries,omitempty"`

	// AllowedNotify are networks (CIDR, or single addresses) inside which
	// an identity with the zones action but not the server action may
	// name a zone's also-notify servers (the create's
	// zoneConfig.alsoNotify, PATCH's alsoNotify, the PowerDNS API's
	// ALSO-NOTIFY metadata). named sends NOTIFY messages to the addresses
	// named, so naming any other address needs the server action.
	// Default: none. It is apart from AllowedPrimaries: a tenant's
	// secondaries are not its primaries, and sending a NOTIFY is less
	// than transferring a zone from an address.
	AllowedNotify []string `json:"allowed_notify,omitempty"`
}

// RNDCConfig configures the rndc control channel.
type RNDCConfig struct {
	// Server is the host:port of named's control channel. Default: 127.0.0.1:953.
	Server string `json:"server,omitempty"`

	// Key is the rndc key: a key file (rndc.key or rndc.conf syntax) or an
	// inline name, algorithm and secret.
	Key KeyConfig `json:"key,omitempty"`

	// Timeout bounds each control command. Default: 10s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
}

// KeyConfig names an HMAC key, either in a BIND key file (rndc.key,
// rndc.conf, or tsig-keygen output) or inline; see keyconf.Config.
type KeyConfig = keyconf.Config
