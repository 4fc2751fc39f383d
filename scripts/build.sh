#!/usr/bin/env bash
# Builds Caddy with this module as xcaddy.json describes: one `xcaddy build`
# with the pinned Caddy version, the plugins and the replacements. The
# binary is rebuilt only when a file of the module (Go sources, files they
# embed such as the resource definitions, go.mod, go.sum, xcaddy.json) is
# newer than it; tests, docs and run state do not count. Prints the
# binary's path.
#
# Optional plugins (xcaddy.json's optional_plugins) are added when their
# environment variable is 1, into their own binary: with
# ZONEAPI_K8S_TOKEN_REVIEW=1 the build has the k8s_token_review auth mode
# and is written to build/caddy-k8s.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
out=$(jq -r '.output // "build/caddy"' xcaddy.json)
optional=()
while IFS=$'\t' read -r env mod output; do
	if [ "${!env:-}" = 1 ]; then
		optional+=(--with "$mod")
		# xcaddy skips `go get` for a package under an unversioned
		# replacement only, so the replacements go in unversioned too.
		while IFS=$'\t' read -r old new; do
			optional+=(--replace "$old=$(cd "$new" && pwd)")
		done < <(jq -r '.replacements[] | [.old, .new] | @tsv' xcaddy.json)
		out=$output
	fi
done < <(jq -r '(.optional_plugins // {}) | to_entries[] | [.value.env, .value.module_path, .value.output] | @tsv' xcaddy.json)

if [ -x "$out" ] && [ -z "$(find . \( -path ./build -o -path ./state -o -path ./.git -o -path ./integration -o -path ./examples -o -name testdata \) -prune -o -type f ! -name '*_test.go' ! -name '*.md' -newer "$out" -print -quit)" ]; then
	echo "$root/$out"
	exit 0
fi

args=(build "$(jq -r .caddy_version xcaddy.json)" --output "$root/$out")
while IFS=$'\t' read -r mod ver; do
	# A version-specific spec (M@v0.0.0=./dir) keeps `go get` away from the
	# module proxy, which refuses unpublished paths.
	repl=$(jq -r --arg m "$mod" '.replacements[] | select(.old == $m) | .new' xcaddy.json)
	if [ -n "$repl" ]; then
		args+=(--with "$mod@${ver:-v0.0.0}=$(cd "$repl" && pwd)")
	else
		args+=(--with "$mod${ver:+@$ver}")
	fi
done < <(jq -r '.plugins[] | [.module_path, (.version // "")] | @tsv' xcaddy.json)
while IFS=$'\t' read -r old new; do
	jq -e --arg m "$old" '.plugins[] | select(.module_path == $m)' xcaddy.json >/dev/null && continue
	args+=(--replace "$old=$(cd "$new" && pwd)")
done < <(jq -r '.replacements[] | [.old, .new] | @tsv' xcaddy.json)

args+=("${optional[@]}")
mkdir -p "$(dirname "$out")"
echo "build: xcaddy ${args[*]}" >&2
"$(go env GOPATH)/bin/xcaddy" "${args[@]}" >&2
echo "$root/$out"
