package module

import (
	"net/http"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// Who may name a secondary zone's primaries or a zone's also-notify
// servers is auth.ServerPolicy's; here are the checks the front ends get,
// over the networks of allowed_primaries (primaryNets) and allowed_notify
// (notifyNets).

// primariesCheck returns the check of a request naming primaries
// (auth.PrimariesPolicy with allowed_primaries).
func primariesCheck(n auth.Networks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return serverListCheck(auth.PrimariesPolicy, n, forbid)
}

// notifyCheck returns the check of a request naming also-notify servers
// (auth.NotifyPolicy with allowed_notify).
func notifyCheck(n auth.Networks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return serverListCheck(auth.NotifyPolicy, n, forbid)
}

// serverListCheck returns the check of a request naming servers under
// policy p with the networks n: it answers 403 through forbid and returns
// false when the policy denies the request's identity in its view.
func serverListCheck(p auth.ServerPolicy, n auth.Networks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return func(w http.ResponseWriter, r *http.Request, servers []string) bool {
		st := authOf(r)
		if err := p.Check(st.id, st.view, servers, n); err != nil {
			return forbid(w, r, err)
		}
		return true
	}
}
