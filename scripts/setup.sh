#!/usr/bin/env bash
# Installs what the project needs on a Debian machine with Go: BIND 9 and
# its tools from Debian's packages, jq, Chromium (for the console's browser
# tests, integration/console), and xcaddy (the version pinned in
# xcaddy.json) through the Go module proxy; axe-core (the accessibility
# checker those tests inject) with npm into build/npm, outside the
# committed tree. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
for pair in named:bind9 rndc:bind9-utils named-checkzone:bind9-utils dig:bind9-dnsutils nsupdate:bind9-dnsutils jq:jq chromium:chromium npm:npm; do
	cmd=${pair%%:*} pkg=${pair#*:}
	command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
	mapfile -t need < <(printf '%s\n' "${need[@]}" | sort -u)
	echo "setup: installing ${need[*]}" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

gobin=$(go env GOPATH)/bin
xv=$(jq -r .xcaddy_version xcaddy.json)
if ! "$gobin/xcaddy" version 2>/dev/null | grep -q "^$xv "; then
	echo "setup: installing xcaddy $xv" >&2
	go install "github.com/caddyserver/xcaddy/cmd/xcaddy@$xv"
fi

# pebble, the ACME test server, for the end-to-end DNS-01 test
# (integration/acme_test.go): built from the module proxy, cached in GOBIN.
pebble_version=v2.10.1
if [ ! -x "$gobin/pebble" ] || [ "$(cat "$gobin/.pebble-version" 2>/dev/null)" != "$pebble_version" ]; then
	echo "setup: installing pebble $pebble_version" >&2
	go install "github.com/letsencrypt/pebble/v2/cmd/pebble@$pebble_version"
	echo "$pebble_version" >"$gobin/.pebble-version"
fi

# axe-core, pinned, for the console's accessibility test
# (integration/console): installed with npm into build/npm, which git
# ignores; the tests read build/npm/node_modules/axe-core/axe.min.js.
axe_version=4.10.3
if [ "$(jq -r .version build/npm/node_modules/axe-core/package.json 2>/dev/null)" != "$axe_version" ]; then
	echo "setup: installing axe-core $axe_version" >&2
	mkdir -p build/npm
	npm install --prefix build/npm --no-save --no-audit --no-fund --silent "axe-core@$axe_version" >&2
fi
