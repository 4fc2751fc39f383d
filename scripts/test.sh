#!/usr/bin/env bash
# Runs every check and test of the project; CI runs exactly this
# (.ci/run). Installs what is missing first (scripts/setup.sh).
#
#   gofmt and go vet; the Caddy build per xcaddy.json and its module list,
#   and the build with the optional k8s_token_review auth mode and its list;
#   unit, adapt-fixture and integration tests with the race detector
#   (integration tests start real named and caddy processes on loopback);
#   short fuzzing runs of every fuzz target.
#
# FUZZTIME (default 20000x: executions, not seconds) sets the length of each
# fuzzing run; 0 skips them. A count rather than a duration: with a short
# duration, go test -fuzz sometimes fails with "context deadline exceeded"
# while stopping its workers, which would make CI flaky.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== gofmt, go vet" >&2
unformatted=$(gofmt -l $(find . -name '*.go' -not -path './build/*' -not -path './state/*'))
if [ -n "$unformatted" ]; then
	echo "gofmt would change: $unformatted" >&2
	exit 1
fi
go vet ./...
# The peer suites are Go modules of their own (integration/*/go.mod), so
# that the peers' dependencies stay out of the main module's graph. They
# replace the main module with this tree, so a requirement added to the
# main go.mod reaches them: -mod=mod lets go add it to their go.mod and
# go.sum in this checkout (run `go mod tidy -e` in them to keep it).
#
# integration/externaldns alone is built with Go 1.27: external-dns v0.23.0
# requires it. peer_go sets GOTOOLCHAIN for that module only, so the go
# command fetches go1.27.3 through the module proxy (once, into the module
# cache) and runs with it there; everything else stays on the machine's Go.
peer_modules=$(find integration -mindepth 2 -name go.mod -exec dirname {} \; | sort)
peer_go() {
	local m=$1
	shift
	if [ "$m" = integration/externaldns ]; then
		(cd "$m" && GOTOOLCHAIN=go1.27.3 go "$@")
	else
		(cd "$m" && go "$@")
	fi
}
for m in $peer_modules; do
	peer_go "$m" vet -mod=mod ./...
done

echo "== caddy build" >&2
ZONEAPI_CADDY=$(bash scripts/build.sh)
export ZONEAPI_CADDY
# Captured first: grep -q exits at the first match, and under pipefail the
# writer's SIGPIPE would fail the check once the list is long.
modules=$("$ZONEAPI_CADDY" list-modules)
grep -qx 'http.handlers.zone_api' <<<"$modules" || {
	echo "the built caddy does not list http.handlers.zone_api" >&2
	exit 1
}
if grep -qx 'zone_api.auth.k8s_token_review' <<<"$modules"; then
	echo "the default caddy build lists zone_api.auth.k8s_token_review; only ZONEAPI_K8S_TOKEN_REVIEW=1 builds may" >&2
	exit 1
fi
# The build with the optional k8s_token_review auth mode (its own binary;
# most of it comes from the Go build cache the default build filled).
ZONEAPI_CADDY_K8S=$(ZONEAPI_K8S_TOKEN_REVIEW=1 bash scripts/build.sh)
export ZONEAPI_CADDY_K8S
modules=$("$ZONEAPI_CADDY_K8S" list-modules)
grep -qx 'zone_api.auth.k8s_token_review' <<<"$modules" || {
	echo "the ZONEAPI_K8S_TOKEN_REVIEW=1 build does not list zone_api.auth.k8s_token_review" >&2
	exit 1
}

echo "== go test -race" >&2
# -timeout: go test's default of 10 minutes per package is a hang guard
# the integration package outgrew on a loaded machine (it panicked at
# 10m0s while TestCatalogCrash and TestFleet were running normally, on a
# 2-core VM shared with other runs); 25 minutes still ends a real hang
# before CI's 30.
go test -race -count=1 -timeout 25m ./...
for m in $peer_modules; do
	# integration/externaldns tests code that runs in the caddy process,
	# not in the test binary, and builds external-dns's large graph: a
	# race build of it would add minutes and check nothing of ours.
	race=-race
	[ "$m" = integration/externaldns ] && race=
	echo "== go test $race ($m)" >&2
	peer_go "$m" test -mod=mod $race -count=1 ./...
done

fuzztime=${FUZZTIME:-20000x}
if [ "$fuzztime" != "0" ]; then
	echo "== fuzzing ($fuzztime per target)" >&2
	# Every package of the main module with a fuzz target in its tests,
	# found rather than listed, so that a new one is not missed.
	go list -f '{{.ImportPath}} {{.Dir}}' ./... | while read -r pkg dir; do
		grep -qs '^func Fuzz' "$dir"/*_test.go || continue
		for target in $(go test -list '^Fuzz' "$pkg" </dev/null | grep '^Fuzz' || true); do
			go test -run '^$' -fuzz "^$target\$" -fuzztime "$fuzztime" "$pkg" </dev/null
		done
	done
fi
