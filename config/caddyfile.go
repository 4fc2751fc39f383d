package config

import (
	"strconv"
	"strings"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/logfilter"
)

// UnmarshalCaddyfile sets up the options from the zone_api directive's
// Caddyfile tokens. Syntax:
//
//	zone_api [<matcher>] {
//		zone_dir <path>
//		rndc {
//			server   <host:port>
//			key_file <path> [<key_name>]
//			key      <name> <algorithm> <secret>
//			timeout  <duration>
//		}
//		update_key_file <path> [<key_name>]
//		update_key      <name> [<algorithm> <secret>]
//		dns_server      <host:port>            # named's DNS port, default 127.0.0.1:53
//		serial_update_method increment|unixtime|date  # default increment
//		key_directory   <dir>                   # named's key-directory, if not zone_dir
//		statistics_channel <host:port|url>      # named's statistics-channels: ?all=true lists every zone
//		inventory_refresh  <duration>           # how often that list is read again, default 30s
//		zone_cache_max_age <duration>|0|off     # how old a zone GET's cached answer may be, default 1m
//		named_checkzone <path>|off              # the checker of imports (docs/import.md), default from PATH
//		disable_auth
//		auth <mode> [{ <mode options> }]       # basic (default), static, jwt, k8s_token_review
//		rate_limit <requests> [<interval>] [burst <n>]          # per identity
//		failed_auth_limit <requests> [<interval>] [burst <n>]   # per client IP
//		require_auth                            # refuse basic/disabled auth on non-loopback listeners
//		docs            public|auth|off         # default auth
//		powerdns                                # also serve the PowerDNS-compatible API
//		allowed_primaries <ip[/len]>...         # primaries the zones action alone may name
//		allowed_notify  <ip[/len]>...           # also-notify servers the zones action alone may name
//		log_filter      <RUST_LOG directives>   # default {env.RUST_LOG}
//		events {                                # the event stream and webhooks (docs/events.md)
//			heartbeat <duration>                # keep-alive of idle streams, default 15s
//			max_streams <n>                     # streams open at once, default 100
//			max_streams_per_identity <n>        # streams one identity holds open, default 10
//			webhook <url> {                     # one block per webhook
//				secret <whsec_…>                # required; use {env.X} or {file.path}
//				name <name>; types <type>...; zones <zone>...
//				timeout <d>; retry_min <d>; retry_max <d>; dead_after <d>
//			}
//		}
//		catalog <zone> {                        # RFC 9432 catalog of the API's zones
//			group          <name>
//			also_notify    <ip[:port]>...
//			allow_transfer <ip[/len]>...
//		}
//		view <name> {                           # a view of named, addressed with ?view=<name>
//			update_key_file <path> [<key_name>]  # the key its match-clients names
//			update_key      <name> [<algorithm> <secret>]
//			dns_server      <host:port>          # for a view matched by destination
//			default                              # requests without ?view= address it
//		history off | {                         # the change history, on by default
//			max_age       <duration>            # default 90d
//			max_size      <bytes>               # default 256MiB
//			sync_each                           # fsync each entry before answering
//			notify_listen <loopback ip:port>    # where named's also-notify sends NOTIFYs
//		}
//	}
//
// Secrets should be placeholders such as {env.RNDC_SECRET} or
// {file./run/secrets/rndc}; they are expanded when the handler first needs
// them, never while the Caddyfile is adapted.
//
// The parser is one flat switch with a case per subdirective (over 80
// lines), as Caddy's own directives are written: each case is short and
// independent, and splitting them apart would only scatter the syntax.
func (h *Options) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	d.Next() // consume directive name
	if d.NextArg() {
		return d.ArgErr()
	}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		switch d.Val() {
		case "zone_dir":
			if !d.AllArgs(&h.ZoneDir) {
				return d.ArgErr()
			}
		case "rndc":
			if d.NextArg() {
				return d.ArgErr()
			}
			if h.RNDC == nil {
				h.RNDC = new(RNDCConfig)
			}
			for n := d.Nesting(); d.NextBlock(n); {
				switch d.Val() {
				case "server":
					if !d.AllArgs(&h.RNDC.Server) {
						return d.ArgErr()
					}
				case "key_file":
					if err := parseKeyFile(d, &h.RNDC.Key); err != nil {
						return err
					}
				case "key":
					if !d.AllArgs(&h.RNDC.Key.Name, &h.RNDC.Key.Algorithm, &h.RNDC.Key.Secret) {
						return d.ArgErr()
					}
				case "timeout":
					if !d.NextArg() {
						return d.ArgErr()
					}
					dur, err := caddy.ParseDuration(d.Val())
					if err != nil {
						return d.Errf("bad timeout %q: %v", d.Val(), err)
					}
					if dur <= 0 {
						return d.Errf("timeout must be positive, got %q", d.Val())
					}
					h.RNDC.Timeout = caddy.Duration(dur)
					if d.NextArg() {
						return d.ArgErr()
					}
				default:
					return d.Errf("unrecognized rndc subdirective %q", d.Val())
				}
			}
		case "update_key_file", "update_key":
			if err := parseUpdateKey(d, &h.UpdateKey); err != nil {
				return err
			}
		case "key_directory":
			if !d.AllArgs(&h.KeyDirectory) {
				return d.ArgErr()
			}
		case "dns_server":
			if !d.AllArgs(&h.DNSServer) {
				return d.ArgErr()
			}
		case "statistics_channel":
			if !d.AllArgs(&h.StatisticsChannel) {
				return d.ArgErr()
			}
		case "inventory_refresh", "zone_cache_max_age":
			opt, v := d.Val(), ""
			if !d.AllArgs(&v) {
				return d.ArgErr()
			}
			dur, err := caddy.ParseDuration(v)
			switch cache := opt == "zone_cache_max_age"; {
			case cache && (v == "off" || err == nil && dur == 0):
				h.ZoneCacheMaxAge = -1 // no cache: every zone GET asks named
			case err != nil || dur <= 0:
				return d.Errf("%s: want a positive duration, got %q", opt, v)
			case cache:
				h.ZoneCacheMaxAge = caddy.Duration(dur)
			default:
				h.InventoryRefresh = caddy.Duration(dur)
			}
		case "allowed_primaries":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if _, err := auth.PrimariesPolicy.Parse(args); err != nil {
				return d.Err(err.Error())
			}
			h.AllowedPrimaries = append(h.AllowedPrimaries, args...)
		case "allowed_notify":
			args := d.RemainingArgs()
			if len(args) == 0 {
				return d.ArgErr()
			}
			if _, err := auth.NotifyPolicy.Parse(args); err != nil {
				return d.Err(err.Error())
			}
			h.AllowedNotify = append(h.AllowedNotify, args...)
		case "named_checkzone":
			if !d.AllArgs(&h.NamedCheckzone) {
				return d.ArgErr()
			}
		case "serial_update_method":
			if !d.AllArgs(&h.SerialUpdateMethod) {
				return d.ArgErr()
			}
			if _, err := dnsupdate.ParseSerialMethod(h.SerialUpdateMethod); err != nil {
				return d.Errf("serial_update_method: %v", err)
			}
		case "docs":
			if !d.AllArgs(&h.Docs) {
				return d.ArgErr()
			}
			if h.Docs != apispec.DocsPublic && h.Docs != apispec.DocsAuth && h.Docs != apispec.DocsOff {
				return d.Errf("docs: want public, auth or off, got %q", h.Docs)
			}
		case "powerdns":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.PowerDNS = true
		case "disable_auth":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.DisableAuth = true
		case "auth":
			if !d.NextArg() {
				return d.ArgErr()
			}
			mode := d.Val()
			if err := auth.CheckMode(mode); err != nil {
				return d.Err(err.Error())
			}
			unm, err := caddyfile.UnmarshalModule(d, auth.Namespace+"."+mode)
			if err != nil {
				return err
			}
			h.AuthRaw = caddyconfig.JSONModuleObject(unm, "mode", mode, nil)
		case "rate_limit":
			l, err := parseRateLimit(d)
			if err != nil {
				return err
			}
			h.RateLimit = l
		case "failed_auth_limit":
			l, err := parseRateLimit(d)
			if err != nil {
				return err
			}
			h.FailedAuthLimit = l
		case "require_auth":
			if d.NextArg() {
				return d.ArgErr()
			}
			h.RequireAuth = true
		case "log_filter":
			if !d.AllArgs(&h.LogFilter) {
				return d.ArgErr()
			}
			if !strings.Contains(h.LogFilter, "{") {
				if _, err := logfilter.Parse(h.LogFilter); err != nil {
					return d.Errf("%v", err)
				}
			}
		case "view":
			v, err := unmarshalViewCaddyfile(d)
			if err != nil {
				return err
			}
			h.Views = append(h.Views, v)
		case "history":
			h.History = new(HistoryConfig)
			if err := h.History.UnmarshalCaddyfile(d); err != nil {
				return err
			}
		case "events":
			if h.Events == nil {
				h.Events = new(EventsConfig)
			}
			if err := h.Events.UnmarshalCaddyfile(d); err != nil {
				return err
			}
		case "catalog":
			h.Catalog = new(CatalogConfig)
			if err := h.Catalog.UnmarshalCaddyfile(d); err != nil {
				return err
			}
		default:
			return d.Errf("unrecognized subdirective %q", d.Val())
		}
	}
	return nil
}

// parseRateLimit reads `<requests> [<interval>] [burst <n>]`.
func parseRateLimit(d *caddyfile.Dispenser) (*auth.RateLimit, error) {
	args := d.RemainingArgs()
	if len(args) == 0 {
		return nil, d.ArgErr()
	}
	l := new(auth.RateLimit)
	n, err := strconv.Atoi(args[0])
	if err != nil || n <= 0 {
		return nil, d.Errf("%s: requests must be a positive integer, got %q", d.Val(), args[0])
	}
	l.Requests = n
	args = args[1:]
	if len(args) > 0 && args[0] != "burst" {
		iv, err := caddy.ParseDuration(args[0])
		if err != nil || iv <= 0 {
			return nil, d.Errf("interval: want a positive duration such as 1s or 1m, got %q", args[0])
		}
		l.Interval = caddy.Duration(iv)
		args = args[1:]
	}
	if len(args) > 0 {
		if len(args) != 2 || args[0] != "burst" {
			return nil, d.ArgErr()
		}
		b, err := strconv.Atoi(args[1])
		if err != nil || b <= 0 {
			return nil, d.Errf("burst must be a positive integer, got %q", args[1])
		}
		l.Burst = b
	}
	return l, nil
}

// parseUpdateKey reads update_key_file's `<path> [<key_name>]` or
// update_key's `<name> [<algorithm> <secret>]` (the subdirective d is at)
// into *k, which it makes on first use.
func parseUpdateKey(d *caddyfile.Dispenser, k **KeyConfig) error {
	if *k == nil {
		*k = new(KeyConfig)
	}
	if d.Val() == "update_key_file" {
		return parseKeyFile(d, *k)
	}
	args := d.RemainingArgs()
	switch len(args) {
	case 1:
		(*k).Name = args[0]
	case 3:
		(*k).Name, (*k).Algorithm, (*k).Secret = args[0], args[1], args[2]
	default:
		return d.ArgErr()
	}
	return nil
}

// parseKeyFile reads `<path> [<key_name>]` into k.
func parseKeyFile(d *caddyfile.Dispenser, k *KeyConfig) error {
	args := d.RemainingArgs()
	switch len(args) {
	case 1:
		k.File = args[0]
	case 2:
		k.File, k.Name = args[0], args[1]
	default:
		return d.ArgErr()
	}
	return nil
}

// Interface guards
var _ caddyfile.Unmarshaler = (*Options)(nil)
