#!/usr/bin/env bash
# Writes the configuration scripts/run.sh runs with into its state folder,
# and nothing else (it starts nothing): an rndc key and a TSIG update key
# (generated once and kept, so zones created earlier stay updatable),
# named.conf from examples/named.conf.dev (examples/named.conf.primary
# and the secondary's named.conf with ZONEAPI_FLEET=1), each checked with
# named-checkconf, and caddy.env: the environment examples/Caddyfile.dev
# reads, one NAME=value a line. run.sh runs it before starting named and
# Caddy; integration/devsetup_test.go runs it to test that same set-up.
#
# Environment: as run.sh's (ZONEAPI_STATE, DNS_PORT, RNDC_PORT,
# STATS_PORT, NOTIFY_PORT, ZONEAPI_FLEET, SEC_DNS_PORT, SEC_RNDC_PORT,
# ZONEAPI_CATALOG).
# It prints the state folder's absolute path.
set -euo pipefail
cd "$(dirname "$0")/.."

fleet=${ZONEAPI_FLEET:-0}
state=$(mkdir -p "${ZONEAPI_STATE:-state}" && cd "${ZONEAPI_STATE:-state}" && pwd)
dns_port=${DNS_PORT:-5354}
rndc_port=${RNDC_PORT:-9953}
stats_port=${STATS_PORT:-9980}
notify_port=${NOTIFY_PORT:-5399}
mkdir -p "$state/zones" "$state/caddy"
chmod 700 "$state"

# Keys are generated once and kept, so zones created earlier stay updatable.
[ -s "$state/rndc.key" ] || { tsig-keygen -a hmac-sha256 rndc-key >"$state/rndc.key.tmp" && mv "$state/rndc.key.tmp" "$state/rndc.key"; }
[ -s "$state/update.key" ] || { tsig-keygen -a hmac-sha256 zoneapi-update >"$state/update.key.tmp" && mv "$state/update.key.tmp" "$state/update.key"; }
chmod 600 "$state/rndc.key" "$state/update.key"

sec_dns_port=${SEC_DNS_PORT:-5355}
sec_rndc_port=${SEC_RNDC_PORT:-9954}
catalog=${ZONEAPI_CATALOG:-catalog.zoneapi.invalid}
primary_conf=examples/named.conf.dev
[ "$fleet" = 1 ] && primary_conf=examples/named.conf.primary
sed -e "s|@STATE@|$state|g" -e "s|@DNS_PORT@|$dns_port|g" -e "s|@RNDC_PORT@|$rndc_port|g" \
	-e "s|@STATS_PORT@|$stats_port|g" -e "s|@NOTIFY_PORT@|$notify_port|g" -e "s|@SEC_DNS_PORT@|$sec_dns_port|g" \
	"$primary_conf" >"$state/named.conf"
named-checkconf "$state/named.conf"
if [ "$fleet" = 1 ]; then
	sec="$state/secondary"
	mkdir -p "$sec/zones"
	cp "$state/rndc.key" "$sec/rndc.key"
	sed -e "s|@STATE@|$sec|g" -e "s|@DNS_PORT@|$sec_dns_port|g" -e "s|@RNDC_PORT@|$sec_rndc_port|g" \
		-e "s|@PRIMARY@|127.0.0.1 port $dns_port|g" -e "s|@CATALOG@|$catalog|g" \
		examples/named.conf.secondary >"$sec/named.conf"
	named-checkconf "$sec/named.conf"
else
	catalog=""
fi

# What examples/Caddyfile.dev reads ({env.…}); an empty ZONEAPI_CATALOG
# means no catalog.
cat >"$state/caddy.env" <<ENV
ZONEAPI_ZONE_DIR=$state/zones
ZONEAPI_RNDC_SERVER=127.0.0.1:$rndc_port
ZONEAPI_RNDC_KEY_FILE=$state/rndc.key
ZONEAPI_UPDATE_KEY_FILE=$state/update.key
ZONEAPI_DNS_SERVER=127.0.0.1:$dns_port
ZONEAPI_STATS=127.0.0.1:$stats_port
ZONEAPI_NOTIFY_LISTEN=127.0.0.1:$notify_port
ZONEAPI_CATALOG=$catalog
ENV
echo "$state"
