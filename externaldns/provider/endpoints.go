package provider

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// The webhook protocol's bodies (apitypes').
type (
	// Endpoint is external-dns's endpoint.Endpoint.
	Endpoint = apitypes.ExternalDNSEndpoint
	// ProviderProperty is a provider-specific property of an endpoint.
	ProviderProperty = apitypes.ExternalDNSProperty
	// Changes is external-dns's plan.Changes.
	Changes = apitypes.ExternalDNSChanges
)

// supported are the types the webhook lists and changes (those
// external-dns manages). SOA and the apex NS are never listed.
var supported = map[uint16]bool{
	dns.TypeA: true, dns.TypeAAAA: true, dns.TypeCNAME: true, dns.TypeTXT: true, dns.TypeSRV: true,
	dns.TypeNS: true, dns.TypePTR: true, dns.TypeMX: true, dns.TypeNAPTR: true, dns.TypeCAA: true,
}

// Endpoints turns a zone snapshot into endpoints, one per RRset of a
// supported type, in the snapshot's order.
func Endpoints(snap *dnsupdate.Snapshot, zone string) []*Endpoint {
	type key struct {
		name string
		typ  uint16
	}
	idx := map[key]*Endpoint{}
	var out []*Endpoint
	apex := zone + "."
	for _, rr := range snap.RRs {
		hd := rr.Header()
		if !supported[hd.Rrtype] || (hd.Rrtype == dns.TypeNS && hd.Name == apex) {
			continue
		}
		k := key{hd.Name, hd.Rrtype}
		ep, ok := idx[k]
		if !ok {
			ep = &Endpoint{DNSName: strings.TrimSuffix(hd.Name, "."), RecordType: dns.TypeToString[hd.Rrtype], RecordTTL: int64(hd.Ttl)}
			idx[k] = ep
			out = append(out, ep)
		}
		ep.Targets = append(ep.Targets, target(rr))
	}
	for _, ep := range out {
		sort.Strings(ep.Targets)
	}
	return out
}

// target is a record's data as external-dns writes it: host names without
// the trailing dot, TXT as its text.
func target(rr dns.RR) string {
	switch v := rr.(type) {
	case *dns.A:
		return v.A.String()
	case *dns.AAAA:
		return v.AAAA.String()
	case *dns.CNAME:
		return strings.TrimSuffix(v.Target, ".")
	case *dns.NS:
		return strings.TrimSuffix(v.Ns, ".")
	case *dns.PTR:
		return strings.TrimSuffix(v.Ptr, ".")
	case *dns.MX:
		return strconv.Itoa(int(v.Preference)) + " " + strings.TrimSuffix(v.Mx, ".")
	case *dns.SRV:
		return fmt.Sprintf("%d %d %d %s", v.Priority, v.Weight, v.Port, strings.TrimSuffix(v.Target, "."))
	case *dns.TXT:
		return txtdata.Join(v.Txt)
	}
	return strings.TrimSpace(strings.TrimPrefix(rr.String(), rr.Header().String()))
}

// toRRs turns an endpoint into records, as external-dns's RFC 2136
// provider does: each target in master-file form after "<name> <ttl> IN
// <type>", host names taken as absolute; a TXT target not starting with a
// double quote is one literal string.
func toRRs(ep *Endpoint, ttl uint32) ([]dns.RR, error) {
	t, ok := dns.StringToType[strings.ToUpper(ep.RecordType)]
	if !ok || !supported[t] {
		return nil, fmt.Errorf("recordType %q is not supported (A, AAAA, CNAME, TXT, SRV, NS, PTR, MX, NAPTR, CAA)", ep.RecordType)
	}
	if len(ep.Targets) == 0 {
		return nil, fmt.Errorf("%s %s: no targets", ep.DNSName, ep.RecordType)
	}
	name := dns.Fqdn(strings.ToLower(strings.TrimSpace(ep.DNSName)))
	var out []dns.RR
	for _, v := range ep.Targets {
		if t == dns.TypeTXT && !strings.HasPrefix(v, `"`) {
			v = txtdata.Quote(v)
		}
		if strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("%s %s: target %q is not one record's data", ep.DNSName, ep.RecordType, v)
		}
		zp := dns.NewZoneParser(strings.NewReader(fmt.Sprintf("%s %d IN %s %s\n", name, ttl, dns.TypeToString[t], v)), ".", "")
		zp.SetIncludeAllowed(false)
		rr, ok := zp.Next()
		if !ok || zp.Err() != nil {
			return nil, fmt.Errorf("%s %s: target %q: %v", ep.DNSName, ep.RecordType, v, zp.Err())
		}
		if _, more := zp.Next(); more {
			return nil, fmt.Errorf("%s %s: target %q is more than one record", ep.DNSName, ep.RecordType, v)
		}
		out = append(out, rr)
	}
	return out, nil
}
