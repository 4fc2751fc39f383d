package auth

import (
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// ServerPolicy says who may name the servers of one kind of list a zone
// has, a list that makes named connect to the addresses it names.
//
// A secondary zone's primaries (PrimariesPolicy) make named transfer from
// the addresses a client names and serve what answers there: with only
// the zones action a tenant could have named scan the internal network
// (the zone's state tells whether a transfer worked) and copy the zones of
// any server that lets this host transfer them, named itself and its
// other views included. Naming primaries therefore needs the server
// action, as an import by AXFR does (docs/import.md), unless every
// address is inside the networks the operator lists in allowed_primaries.
//
// A zone's also-notify servers (NotifyPolicy) make named send NOTIFY
// messages to the addresses a client names, on every change of the zone
// and on POST /zones/{name}/notify: with only the zones action a tenant
// could have named send packets to any host and port (the receiver then
// queries this server for the zone's SOA). Naming them needs the server
// action too, unless every address is inside the networks the operator
// lists in allowed_notify. That is an option of its own rather than
// allowed_primaries: the hosts differ (the secondaries a tenant runs are
// not its primaries), and letting named transfer from an address (and
// serve what it gets) is more than sending it a NOTIFY, so allowing one
// must not allow the other.
type ServerPolicy int

// The server lists with a policy.
const (
	// PrimariesPolicy is a secondary zone's primaries (allowed_primaries).
	PrimariesPolicy ServerPolicy = iota
	// NotifyPolicy is a zone's also-notify servers (allowed_notify).
	NotifyPolicy
)

// serverList is what a 403's message says of a policy's list.
type serverList struct {
	what   string // "primaries"
	none   string // "no primaries"
	why    string // "they make named transfer from the addresses given"
	option string // "allowed_primaries"
}

// serverLists are the policies' lists, by ServerPolicy.
var serverLists = [...]serverList{
	PrimariesPolicy: {what: "primaries", none: "no primaries", option: "allowed_primaries",
		why: "they make named transfer from the addresses given"},
	NotifyPolicy: {what: "a zone's also-notify servers", none: "no also-notify servers", option: "allowed_notify",
		why: "they make named send NOTIFY messages to the addresses given"},
}

// Networks are the networks of allowed_primaries or allowed_notify.
type Networks []netip.Prefix

// Parse reads the policy's option (allowed_primaries or allowed_notify):
// CIDR networks or single addresses. Its errors name the option.
func (p ServerPolicy) Parse(list []string) (Networks, error) {
	option := serverLists[p].option
	var out Networks
	for _, s := range list {
		if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
			a = a.Unmap()
			out = append(out, netip.PrefixFrom(a, a.BitLen()))
			continue
		}
		pfx, err := netip.ParsePrefix(s)
		if err != nil {
			return nil, fmt.Errorf("%s: %q is not an IP address or a CIDR network", option, s)
		}
		if pfx.Addr().Is4In6() {
			return nil, fmt.Errorf("%s: %q is an IPv4-mapped network; write it as IPv4", option, s)
		}
		out = append(out, pfx.Masked())
	}
	return out, nil
}

// Check returns nil if id may name servers in view, else a *Denied whose
// message says what is needed: the identity may act on the whole server
// (the server action, not limited to some zones or records), or every
// server's address is inside allowed. An unauthenticated request (id nil:
// authentication disabled) may, and so may an empty list (it names no
// address).
func (p ServerPolicy) Check(id *Identity, view string, servers []string, allowed Networks) error {
	if id == nil || len(servers) == 0 {
		return nil
	}
	g := id.Grant
	if g.CheckActionIn(id.ID, ActionServer, "", view) == nil && g.AllowsServer() {
		return nil
	}
	out := allowed.outside(servers)
	if len(out) == 0 {
		return nil
	}
	l := serverLists[p]
	where := fmt.Sprintf("this server allows %s to identities without it (%s is empty)", l.none, l.option)
	if len(allowed) > 0 {
		where = fmt.Sprintf("%s %s outside the networks %s lists", strings.Join(quoteAddrs(out), ", "), plural(len(out), "is", "are"), l.option)
	}
	return &Denied{Message: id.ID + " may not name " + l.what + ": " + l.why + ", which needs the server action (an identity limited neither to some zones nor to some records), as an import by AXFR does; " + where}
}

// Checker returns p's check of a request naming servers, for a front end
// (the REST API's zone create and PATCH, the PowerDNS API's masters and
// ALSO-NOTIFY): Check of the request's identity (FromContext) in its view
// (view) against the networks allowed; a refusal goes to forbid, which
// answers the 403 and returns false.
func (p ServerPolicy) Checker(allowed Networks, view func(*http.Request) string, forbid func(http.ResponseWriter, *http.Request, error) bool) func(http.ResponseWriter, *http.Request, []string) bool {
	return func(w http.ResponseWriter, r *http.Request, servers []string) bool {
		if err := p.Check(FromContext(r.Context()), view(r), servers, allowed); err != nil {
			return forbid(w, r, err)
		}
		return true
	}
}

// serverAddr is the address of a server in the zone API's notation:
// "ip", "ip:port" or "[v6]:port", optionally followed by " key NAME".
func serverAddr(s string) (netip.Addr, bool) {
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
func (n Networks) outside(servers []string) []string {
	var out []string
next:
	for _, s := range servers {
		if a, ok := serverAddr(s); ok {
			for _, net := range n {
				if net.Contains(a) {
					continue next
				}
			}
		}
		out = append(out, s)
	}
	return out
}

// quoteAddrs names the servers' addresses for a message; the rest of an
// entry (a port, a key name, or all of a PowerDNS master not validated
// yet) is not repeated.
func quoteAddrs(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		if a, ok := serverAddr(s); ok {
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
