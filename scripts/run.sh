#!/usr/bin/env bash
# Runs the service locally: installs BIND 9 if missing, generates an rndc
# key and a TSIG update key into a state folder, starts named on loopback
# ports, builds Caddy with the module (per xcaddy.json) and serves the API
# on https://localhost:8443 with Caddy's local CA. Ctrl-C stops Caddy and
# named. It prints the URLs of the API and of the operator console
# (https://localhost:8443/console/).
#
# Environment: ZONEAPI_STATE (state folder, default ./state), DNS_PORT
# (default 5354), RNDC_PORT (default 9953), STATS_PORT (named's statistics
# channel, default 9980), NOTIFY_PORT (where the API hears named's NOTIFY
# of every change, for the change history; default 5399), RUST_LOG
# (default info). scripts/devconf.sh writes the configuration.
#
# ZONEAPI_FLEET=1 (or the option --fleet) also starts a secondary named
# (SEC_DNS_PORT, default 5355; SEC_RNDC_PORT, default 9954; state in
# <state>/secondary) that consumes the catalog zone the API keeps
# (ZONEAPI_CATALOG, default catalog.zoneapi.invalid): every zone created
# through the API is served by the secondary too, with no change to its
# configuration (examples/named.conf.primary and named.conf.secondary).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

fleet=${ZONEAPI_FLEET:-0}
for arg in "$@"; do
	case "$arg" in
	--fleet) fleet=1 ;;
	*) echo "usage: $0 [--fleet]" >&2; exit 2 ;;
	esac
done

bash scripts/setup.sh
caddy_bin=$(bash scripts/build.sh)

# The configuration (keys, named.conf, Caddy's environment): devconf.sh.
state=$(ZONEAPI_FLEET=$fleet bash scripts/devconf.sh)
dns_port=${DNS_PORT:-5354}
rndc_port=${RNDC_PORT:-9953}
sec_dns_port=${SEC_DNS_PORT:-5355}
sec_rndc_port=${SEC_RNDC_PORT:-9954}
sec="$state/secondary"
catalog=${ZONEAPI_CATALOG:-catalog.zoneapi.invalid}

pids=()
stop() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	echo "stopped Caddy and named" >&2
}
trap stop INT TERM EXIT

# start_named <conf> <log> <rndc port>: starts named and waits for rndc.
start_named() {
	/usr/sbin/named -g -c "$1" >"$2" 2>&1 &
	local pid=$!
	pids+=($pid)
	for _ in $(seq 1 100); do
		rndc -s 127.0.0.1 -p "$3" -k "$state/rndc.key" status >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || { tail -n 20 "$2" >&2; exit 1; }
		sleep 0.1
	done
}
start_named "$state/named.conf" "$state/named.log" "$rndc_port"
if [ "$fleet" = 1 ]; then
	start_named "$sec/named.conf" "$sec/named.log" "$sec_rndc_port"
fi

# The environment examples/Caddyfile.dev reads, as devconf.sh wrote it.
while IFS='=' read -r name value; do
	export "$name=$value"
done <"$state/caddy.env"
export XDG_DATA_HOME="$state/caddy" XDG_CONFIG_HOME="$state/caddy"
export RUST_LOG=${RUST_LOG:-info}

"$caddy_bin" run --config examples/Caddyfile.dev --adapter caddyfile &
caddy_pid=$!
pids+=($caddy_pid)
ca="$state/caddy/caddy/pki/authorities/local/root.crt"
for _ in $(seq 1 100); do
	curl -fsS --cacert "$ca" https://localhost:8443/api/v1/health >/dev/null 2>&1 && break
	kill -0 "$caddy_pid" 2>/dev/null || exit 1
	sleep 0.2
done

cat <<MSG

  zoneapi is running.
    Console:    https://localhost:8443/console/ (sign in with the token dev-token)
    API:        https://localhost:8443/api/v1   (CA: $ca)
    named DNS:  127.0.0.1:$dns_port             (dig @127.0.0.1 -p $dns_port example.test SOA)
    named rndc: 127.0.0.1:$rndc_port
    history:    named's NOTIFY of every change to $ZONEAPI_NOTIFY_LISTEN: changes made with
                nsupdate are recorded too (GET /api/v1/zones/<zone>/changes)
  Try:
    curl --cacert $ca -H 'Authorization: Bearer dev-token' https://localhost:8443/api/v1/zones
  PowerDNS API (for PowerDNS clients, docs/powerdns.md): base https://localhost:8443, key dev-token
    curl --cacert $ca -H 'X-API-Key: dev-token' https://localhost:8443/api/v1/servers/localhost/zones
  More in examples/walkthrough.md. Ctrl-C stops Caddy and named.

MSG
if [ "$fleet" = 1 ]; then
	cat <<MSG
  Fleet: a secondary named on 127.0.0.1:$sec_dns_port (rndc $sec_rndc_port) consumes the
  catalog zone $catalog. Zones created through the API answer there within seconds:
    dig @127.0.0.1 -p $sec_dns_port <zone> SOA
    curl --cacert $ca -H 'Authorization: Bearer dev-token' https://localhost:8443/api/v1/catalog

MSG
fi
wait "$caddy_pid"
