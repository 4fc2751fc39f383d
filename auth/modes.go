package auth

import (
	"fmt"
	"net"
	"strings"

	"github.com/caddyserver/caddy/v2"
)

// K8sTokenReviewModule is the Go package that adds the k8s_token_review
// mode to a build.
const K8sTokenReviewModule = "github.com/zoneapi/caddy-zoneapi/auth/k8stokenreview"

// CheckMode returns nil when the mode is in this build, else an error
// saying which modes are, and for k8s_token_review how to build it in.
func CheckMode(mode string) error {
	if _, err := caddy.GetModule(Namespace + "." + mode); err == nil {
		return nil
	}
	if mode == "k8s_token_review" {
		return fmt.Errorf("auth mode k8s_token_review is not in this build of Caddy: build with `ZONEAPI_K8S_TOKEN_REVIEW=1 bash scripts/build.sh`, or add `--with %s` to xcaddy build", K8sTokenReviewModule)
	}
	var have []string
	for _, m := range caddy.GetModules(Namespace) {
		have = append(have, m.ID.Name())
	}
	return fmt.Errorf("unknown auth mode %q; this build has: %s", mode, strings.Join(have, ", "))
}

// Exposed returns the listener addresses of listen (Caddy network
// addresses such as ":443", "tcp/0.0.0.0:80", "127.0.0.1:8080") that are
// reachable from other hosts: any address that is not loopback and not a
// Unix socket.
func Exposed(listen []string) []string {
	var out []string
	for _, l := range listen {
		na, err := caddy.ParseNetworkAddress(l)
		if err != nil {
			out = append(out, l)
			continue
		}
		if na.IsUnixNetwork() || na.IsFdNetwork() {
			continue
		}
		host := na.Host
		if host == "localhost" {
			continue
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			continue
		}
		out = append(out, l)
	}
	return out
}
