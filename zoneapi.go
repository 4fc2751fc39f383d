// Package zoneapi plugs the zone_api HTTP handler into a Caddy build.
//
// Building with `--with github.com/zoneapi/caddy-zoneapi` blank-imports the
// module package, which registers http.handlers.zone_api and its Caddyfile
// directive, and the DNS provider dns.providers.zone_api (package
// client/caddydns), so that `tls { dns zone_api … }` solves ACME DNS-01
// challenges through the API, and the external-dns webhook provider
// http.handlers.zone_api_external_dns (package externaldns), and the
// PowerDNS-compatible API that zone_api serves with its powerdns option
// (package powerdns, mounted through package frontend, the front ends'
// contract), the operator console http.handlers.zone_api_console (package
// console), and the `caddy zoneapi-adopt` command (package
// client/adoptcmd).
package zoneapi

import (
	_ "github.com/zoneapi/caddy-zoneapi/client/adoptcmd"
	_ "github.com/zoneapi/caddy-zoneapi/client/caddydns"
	_ "github.com/zoneapi/caddy-zoneapi/console"
	_ "github.com/zoneapi/caddy-zoneapi/externaldns"
	_ "github.com/zoneapi/caddy-zoneapi/module"
	_ "github.com/zoneapi/caddy-zoneapi/powerdns"
)
