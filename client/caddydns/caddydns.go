// Package caddydns registers the Caddy DNS provider module
// dns.providers.zone_api, so that any Caddy built with this module solves
// ACME DNS-01 challenges through the zone_api REST API:
//
//	tls {
//		dns zone_api https://dns.example.com:8443 {env.ZONEAPI_TOKEN}
//	}
//
// It wraps the libdns provider of package libdnsprovider. The endpoint and
// token may be {env.*} or {file.*} placeholders; they are expanded on the
// first challenge, not at provisioning, and the token is never logged.
//
// Without an endpoint (`dns zone_api` alone) the provider is local: it
// serves the records through the zone_api handler of the same Caddy, in
// process (internal/localcall, where the handler registers itself), with
// no HTTP hop and no token, so the API's own certificate can come from the
// BIND it manages.
package caddydns

import (
	"errors"
	"net/http"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/libdns/libdns"

	"github.com/zoneapi/caddy-zoneapi/client"
	"github.com/zoneapi/caddy-zoneapi/client/libdnsprovider"
	"github.com/zoneapi/caddy-zoneapi/internal/localcall"
)

// localEndpoint is the base URL of in-process requests; it reaches no
// network (localcall.Transport serves it).
const localEndpoint = "http://zone-api.local"

func init() {
	caddy.RegisterModule(Provider{})
}

// Provider is the dns.providers.zone_api module: a libdns provider that
// changes records through the zone_api REST API.
type Provider struct {
	*libdnsprovider.Provider
}

// CaddyModule returns the Caddy module information.
func (Provider) CaddyModule() caddy.ModuleInfo {
	return caddy.ModuleInfo{
		ID:  "dns.providers.zone_api",
		New: func() caddy.Module { return &Provider{new(libdnsprovider.Provider)} },
	}
}

// Provision sets up placeholder expansion of the endpoint and token, or
// the local form when no endpoint is given; it reads nothing and contacts
// nobody.
func (p *Provider) Provision(caddy.Context) error {
	if p.Provider == nil {
		p.Provider = new(libdnsprovider.Provider)
	}
	if p.Endpoint == "" && p.Token != "" {
		return errors.New("dns zone_api: a token without an endpoint; give the endpoint, or neither for the local form")
	}
	if p.Endpoint == "" && p.Client == nil {
		c, err := client.New(localEndpoint, "", client.WithHTTPClient(&http.Client{Transport: localcall.Transport()}),
			client.WithUserAgent("zoneapi-libdns-local"))
		if err != nil {
			return err
		}
		p.Client = c
		return nil
	}
	repl := caddy.NewReplacer()
	p.Expand = func(s string) string { return repl.ReplaceKnown(s, "") }
	return nil
}

// UnmarshalCaddyfile sets up the provider from Caddyfile tokens:
//
//	zone_api [<endpoint> [<token>]] {
//		endpoint <url>
//		token    <token>
//	}
//
// With neither, the provider is local (see the package doc).
func (p *Provider) UnmarshalCaddyfile(d *caddyfile.Dispenser) error {
	if p.Provider == nil {
		p.Provider = new(libdnsprovider.Provider)
	}
	d.Next() // the provider's name
	if d.NextArg() {
		p.Endpoint = d.Val()
	}
	if d.NextArg() {
		p.Token = d.Val()
	}
	if d.NextArg() {
		return d.ArgErr()
	}
	for d.NextBlock(0) {
		switch d.Val() {
		case "endpoint":
			if !d.NextArg() {
				return d.ArgErr()
			}
			p.Endpoint = d.Val()
		case "token":
			if !d.NextArg() {
				return d.ArgErr()
			}
			p.Token = d.Val()
		default:
			return d.Errf("unrecognized subdirective %q", d.Val())
		}
		if d.NextArg() {
			return d.ArgErr()
		}
	}
	return nil
}

// Interface guards
var (
	_ caddy.Provisioner     = (*Provider)(nil)
	_ caddyfile.Unmarshaler = (*Provider)(nil)
	_ libdns.RecordAppender = (*Provider)(nil)
	_ libdns.RecordDeleter  = (*Provider)(nil)
	_ libdns.RecordGetter   = (*Provider)(nil)
	_ libdns.RecordSetter   = (*Provider)(nil)
	_ libdns.ZoneLister     = (*Provider)(nil)
)
