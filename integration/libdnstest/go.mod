module github.com/zoneapi/caddy-zoneapi/integration/libdnstest

go 1.26.0

require (
	github.com/libdns/libdns v1.2.0-alpha.1
	github.com/miekg/dns v1.1.73
	github.com/zoneapi/caddy-zoneapi v0.0.0
)

require (
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
)

replace github.com/zoneapi/caddy-zoneapi => ../..
