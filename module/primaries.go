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

// primaryNetworks are the networks of allowed_primaries.
type primaryNetworks []netip.Prefix

// parsePrimaryNetworks reads allowed_primaries: CIDR networks or single
// addresses.
func parsePrimaryNetworks(list []string) (primaryNetworks, error) {
	var out primaryNetworks
	for _, s := range list {
		if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("allowed_primaries: %q is not an IP address or a CIDR network", s)
		}
		if p.Addr().Is4In6() {
			return nil, fmt.Errorf("allowed_primaries: %q is an IPv4-mapped network; write it as IPv4", s)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// primaryAddr is the address of a primary in the zone API's notation:
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

// outside returns the primaries whose address is in none of n's
// networks (one that does not parse counts as outside).
func (n primaryNetworks) outside(primaries []string) []string {
	var out []string
next:
	for _, p := range primaries {
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

// primariesCheck returns the check of a request naming primaries: it
// answers 403 through forbid and returns false unless the identity may
// act on the whole server (the server action, not limited to some zones
// or records) or every primary is inside n. An unauthenticated request
// (authentication disabled) may.
func primariesCheck(n primaryNetworks, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return func(w http.ResponseWriter, r *http.Request, primaries []string) bool {
		st := authOf(r)
		if st.id == nil || len(primaries) == 0 {
			return true
		}
		g := st.id.Grant
		if g.CheckActionIn(st.id.ID, auth.ActionServer, "", st.view) == nil && g.AllowsServer() {
			return true
		}
		out := n.outside(primaries)
		if len(out) == 0 {
			return true
		}
		where := "this server allows no primaries to identities without it (allowed_primaries is empty)"
		if len(n) > 0 {
			where = fmt.Sprintf("%s %s outside the networks allowed_primaries lists", strings.Join(quoteAll(out), ", "), plural(len(out), "is", "are"))
		}
		return forbid(w, r, &auth.Denied{Message: st.id.ID + " may not name primaries: they make named transfer from the addresses given, which needs the server action (an identity limited neither to some zones nor to some records), as an import by AXFR does; " + where})
	}
}

// quoteAll names the primaries' addresses for a message; the rest of an
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
