#!/usr/bin/env bash
# Benchmarks the PowerDNS-compatible API side by side with PowerDNS itself:
# installs Debian's pdns-server and pdns-backend-sqlite3 when missing (the
# tests never need them; the package's service is not started: the
# benchmark starts its own pdns_server on loopback ports and stops it by
# pid), builds Caddy, and runs BenchmarkPowerDNSVersusPowerDNS
# (integration/powerdns_bench_test.go), which prints the tables.
#
# Environment: ZONEAPI_PDNS_ZONES (zones for the list, default 10000),
# ZONEAPI_PDNS_ROUNDS (interleaved rounds, default 2), ZONEAPI_PDNS_DNSSEC=1
# (PowerDNS with gsqlite3-dnssec=yes, as Debian's example configuration).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ ! -x /usr/sbin/pdns_server ] || [ ! -f /usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql ] || ! command -v sqlite3 >/dev/null; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends pdns-server pdns-backend-sqlite3 sqlite3 >/dev/null
fi
ZONEAPI_CADDY=$(bash scripts/build.sh)
export ZONEAPI_CADDY
go test -run '^$' -bench '^BenchmarkPowerDNSVersusPowerDNS$' -benchtime 1x -timeout 60m ./integration
