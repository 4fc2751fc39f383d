package module

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// A secondary zone's primaries make named transfer from the addresses a
// client names and serve what answers there: with only the zones action
// a tenant could have named scan the internal network (the zone's state
// tells whether a transfer worked) and copy the zones of any server that
// lets this host transfer them, named itself and its other views
// included. Naming primaries therefore needs the server action, as an
// import by AXFR does (docs/import.md), unless every address is inside
// the networks the operator lists in allowed_primaries.
//
// A zone's also-notify servers make named send NOTIFY messages to the
// addresses a client names, on every change of the zone and on POST
// /zones/{name}/notify: with only the zones action a tenant could have
// named send packets to any host and port (the receiver then queries
// this server for the zone's SOA). Naming them needs the server action
// too, unless every address is inside the networks the operator lists in
// allowed_notify. That is an option of its own rather than
// allowed_primaries: the hosts differ (the secondaries a tenant runs are
// not its primaries), and letting named transfer from an address (and
// serve what it gets) is more than sending it a NOTIFY, so allowing one
// must not allow the other.

// primaryNetworks are the networks of allowed_primaries or
// allowed_notify.
type primaryNetworks []netip.Prefix

// parsePrimaryNetworks reads allowed_primaries: CIDR networks or single
// addresses.
func parsePrimaryNetworks(list []string) (primaryNetworks, error) {
	return parseNetworks("allowed_primaries", list)
}

// parseNotifyNetworks reads allowed_notify, as parsePrimaryNetworks.
func parseNotifyNetworks(list []string) (primaryNetworks, error) {
	return parseNetworks("allowed_notify", list)
}

// parseNetworks reads the option's CIDR networks or single addresses.
func parseNetworks(option string, list []string) (primaryNetworks, error) {
	var out primaryNetworks
	for _, s := range list {
		if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an IP address or a CIDR network", option, s)
		}
		if p.Addr().Is4In6() {
			return nil, fmt.Errorf("%s: %q is an IPv4-mapped network; write it as IPv4", option, s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// primaryAddr is the address of a server in the zone API's notation:
// "ip", "ip:port" or "[v6]:port", optionally followed by " key NAME".
func primaryAddr(s string) (netip.Addr, bool) {
	text, _, _ := strings.Cut(strings.TrimSpace(s), " key ")
	text = strings.TrimSpace(text)
	if a, err := netip.ParseAddr(text); err == nil && a.Zone() == "" {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(text); err == nil && ap.Addr().Zone() == "" {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// outside returns the servers whose address is in none of n's networks
// (one that does not parse counts as outside).
func (n primaryNetworks) outside(servers []string) []string {
	var out []string
next:
	for _, p := range servers {
		if a, ok := primaryAddr(p); ok {
			for _, net := range n {
				if net.Contains(a) {
					continue next
				}
			}
		}
		out = append(out, p)
	}
	return out
}

// serverList describes a list of servers that makes named connect to the
// addresses it names, for serverListCheck's message.
type serverList struct {
	what   string // "primaries"
	none   string // "no primaries"
	why    string // "they make named transfer from the addresses given"
	option string // "allowed_primaries"
}

var (
	primariesList = serverList{what: "primaries", none: "no primaries", option: "allowed_primaries",
		why: "they make named transfer from the addresses given"}
	alsoNotifyList = serverList{what: "a zone's also-notify servers", none: "no also-notify servers", option: "allowed_notify",
		why: "they make named send NOTIFY messages to the addresses given"}
)

// primariesCheck returns the check of a request naming primaries
// (serverListCheck with allowed_primaries).
func primariesCheck(n primaryNetworks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return serverListCheck(primariesList, n, forbid)
}

// notifyCheck returns the check of a request naming also-notify servers
// (serverListCheck with allowed_notify).
func notifyCheck(n primaryNetworks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return serverListCheck(alsoNotifyList, n, forbid)
}

// serverListCheck returns the check of a request naming servers of the
// list l: it answers 403 through forbid and returns false unless the
// identity may act on the whole server (the server action, not limited
// to some zones or records) or every server is inside n. An
// unauthenticated request (authentication disabled) may, and so may an
// empty list (it names no address).
func serverListCheck(l serverList, n primaryNetworks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return func(w http.ResponseWriter, r *http.Request, servers []string) bool {
		st := authOf(r)
		if st.id == nil || len(servers) == 0 {
			return true
		}
		g := st.id.Grant
		if g.CheckActionIn(st.id.ID, auth.ActionServer, "", st.view) == nil && g.AllowsServer() {
			return true
		}
		out := n.outside(servers)
		if len(out) == 0 {
			return true
		}
		where := fmt.Sprintf("this server allows %s to identities without it (%s is empty)", l.none, l.option)
		if len(n) > 0 {
			where = fmt.Sprintf("%s %s outside the networks %s lists", strings.Join(quoteAll(out), ", "), plural(len(out), "is", "are"), l.option)
		}
		return forbid(w, r, &auth.Denied{Message: st.id.ID + " may not name " + l.what + ": " + l.why + ", which needs the server action (an identity limited neither to some zones nor to some records), as an import by AXFR does; " + where})
	}
}

// quoteAll names the servers' addresses for a message; the rest of an
// entry (a port, a key name, or all of a PowerDNS master not validated
// yet) is not repeated.
func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		if a, ok := primaryAddr(s); ok {
			out[i] = a.String()
		} else {
			out[i] = "an entry that is not an address"
		}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
