#!/usr/bin/env bash
# Runs the service locally: installs BIND 9 if missing, generates an rndc
# key and a TSIG update key into a state folder, starts named on loopback
# ports, builds Caddy with the module (per xcaddy.json) and serves the API
# on https://localhost:8443 with Caddy's local CA. Ctrl-C stops Caddy and
# named.
#
# Environment: ZONEAPI_STATE (state folder, default ./state), DNS_PORT
# (default 5354), RNDC_PORT (default 9953), RUST_LOG (default info).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/setup.sh
caddy_bin=$(bash scripts/build.sh)

state=$(mkdir -p "${ZONEAPI_STATE:-state}" && cd "${ZONEAPI_STATE:-state}" && pwd)
dns_port=${DNS_PORT:-5354}
rndc_port=${RNDC_PORT:-9953}
mkdir -p "$state/zones" "$state/caddy"
chmod 700 "$state"

# Keys are generated once and kept, so zones created earlier stay updatable.
[ -s "$state/rndc.key" ] || { tsig-keygen -a hmac-sha256 rndc-key >"$state/rndc.key.tmp" && mv "$state/rndc.key.tmp" "$state/rndc.key"; }
[ -s "$state/update.key" ] || { tsig-keygen -a hmac-sha256 zoneapi-update >"$state/update.key.tmp" && mv "$state/update.key.tmp" "$state/update.key"; }
chmod 600 "$state/rndc.key" "$state/update.key"

sed -e "s|@STATE@|$state|g" -e "s|@DNS_PORT@|$dns_port|g" -e "s|@RNDC_PORT@|$rndc_port|g" \
	examples/named.conf.dev >"$state/named.conf"
named-checkconf "$state/named.conf"

pids=()
stop() {
	trap - INT TERM EXIT
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	echo "stopped Caddy and named" >&2
}
trap stop INT TERM EXIT

/usr/sbin/named -g -c "$state/named.conf" >"$state/named.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
	rndc -s 127.0.0.1 -p "$rndc_port" -k "$state/rndc.key" status >/dev/null 2>&1 && break
	kill -0 "${pids[0]}" 2>/dev/null || { tail -n 20 "$state/named.log" >&2; exit 1; }
	sleep 0.1
done

export ZONEAPI_ZONE_DIR="$state/zones"
export ZONEAPI_RNDC_SERVER="127.0.0.1:$rndc_port"
export ZONEAPI_RNDC_KEY_FILE="$state/rndc.key"
export ZONEAPI_UPDATE_KEY_FILE="$state/update.key"
export ZONEAPI_DNS_SERVER="127.0.0.1:$dns_port"
export XDG_DATA_HOME="$state/caddy" XDG_CONFIG_HOME="$state/caddy"
export RUST_LOG=${RUST_LOG:-info}

"$caddy_bin" run --config examples/Caddyfile.dev --adapter caddyfile &
pids+=($!)
ca="$state/caddy/caddy/pki/authorities/local/root.crt"
for _ in $(seq 1 100); do
	curl -fsS --cacert "$ca" https://localhost:8443/api/v1/health >/dev/null 2>&1 && break
	kill -0 "${pids[1]}" 2>/dev/null || exit 1
	sleep 0.2
done

cat <<MSG

  zoneapi is running.
    API:        https://localhost:8443/api/v1   (CA: $ca)
    named DNS:  127.0.0.1:$dns_port             (dig @127.0.0.1 -p $dns_port example.test SOA)
    named rndc: 127.0.0.1:$rndc_port
  Try:
    curl --cacert $ca -H 'Authorization: Bearer dev-token' https://localhost:8443/api/v1/zones
  More in examples/walkthrough.md. Ctrl-C stops Caddy and named.

MSG
wait "${pids[1]}"
