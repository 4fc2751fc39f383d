// Package zoneapi plugs the zone_api HTTP handler into a Caddy build.
//
// Building with `--with github.com/zoneapi/caddy-zoneapi` blank-imports the
// module package, which registers http.handlers.zone_api and its Caddyfile
// directive.
package zoneapi

import (
	_ "github.com/zoneapi/caddy-zoneapi/module"
)
