#!/usr/bin/env bash
# Takes a headless-Chromium screenshot of the API explorer (/api/v1/docs)
# served by a real Caddy build, to check by eye that it lists the zone
# operations. No BIND is needed: the explorer and the specification come
# from the binary. Needs Debian's chromium (apt-get install -y chromium).
#
#   bash integration/screenshot.sh [out.png]     (default build/explorer.png)
#
# Uses $ZONEAPI_CADDY, else builds with scripts/build.sh. Loopback only;
# stops what it starts, by pid.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-build/explorer.png}")
caddy_bin=${ZONEAPI_CADDY:-$(bash scripts/build.sh)}
browser=$(command -v chromium || command -v chromium-browser) || { echo "chromium not found: apt-get install -y chromium" >&2; exit 1; }

tmp=$(mktemp -d)
caddy_pid=
cleanup() {
	[ -n "$caddy_pid" ] && kill "$caddy_pid" 2>/dev/null && wait "$caddy_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
admin=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
mkdir -p "$tmp/zones"
cat > "$tmp/Caddyfile" <<CF
{
	admin 127.0.0.1:$admin
	auto_https off
	persist_config off
}
http://127.0.0.1:$port {
	bind 127.0.0.1
	zone_api {
		zone_dir $tmp/zones
		rndc {
			key rndc-key hmac-sha256 c2NyZWVuc2hvdC1vbmx5LW5vdC1hLXJlYWwta2V5
		}
		docs public
	}
}
CF
HOME=$tmp XDG_DATA_HOME=$tmp XDG_CONFIG_HOME=$tmp "$caddy_bin" run --config "$tmp/Caddyfile" --adapter caddyfile >"$tmp/caddy.log" 2>&1 &
caddy_pid=$!
for _ in $(seq 50); do
	curl -fsS "http://127.0.0.1:$port/api/v1/health" >/dev/null 2>&1 && break
	sleep 0.2
done
curl -fsS "http://127.0.0.1:$port/api/v1/docs" >/dev/null || { cat "$tmp/caddy.log" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
"$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
	--disable-background-networking --disable-component-update --disable-sync \
	--user-data-dir="$tmp/chrome" --hide-scrollbars --window-size=1280,2400 \
	--virtual-time-budget=10000 --screenshot="$out" \
	"http://127.0.0.1:$port/api/v1/docs" 2>"$tmp/chrome.log" || { cat "$tmp/chrome.log" >&2; exit 1; }
echo "$out"
