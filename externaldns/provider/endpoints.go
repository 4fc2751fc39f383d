package provider

import (
	"errors"
	"fmt"
	"net"
	"sort"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
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
// external-dns manages), by mnemonic. SOA and the apex NS are never
// listed.
var supported = map[string]bool{
	"A": true, "AAAA": true, "CNAME": true, "TXT": true, "SRV": true,
	"NS": true, "PTR": true, "MX": true, "NAPTR": true, "CAA": true,
}

// Endpoints turns a zone's RRsets (RecordReader.Records) into endpoints,
// one per RRset of a supported type, in the RRsets' order.
func Endpoints(sets []zonemodel.RRset, zone string) []*Endpoint {
	var out []*Endpoint
	apex := zonemodel.Origin(zone)
	for _, s := range sets {
		if !supported[s.Type] || (s.Type == "NS" && s.Name == apex) {
			continue
		}
		ep := &Endpoint{DNSName: strings.TrimSuffix(s.Name, "."), RecordType: s.Type, RecordTTL: int64(s.TTL)}
		for _, v := range s.Values {
			ep.Targets = append(ep.Targets, target(s.Type, v))
		}
		sort.Strings(ep.Targets)
		out = append(out, ep)
	}
	return out
}

// target is a record's data (master-file form, an RRset's value) as
// external-dns writes it: host names without the trailing dot, TXT as its
// text.
func target(typ, value string) string {
	switch typ {
	case "A":
		return value
	case "AAAA":
		// An IPv4-mapped address as Go writes it (1.2.3.4, not
		// ::ffff:1.2.3.4).
		if ip := net.ParseIP(value); ip != nil {
			return ip.String()
		}
		return value
	case "CNAME", "NS", "PTR", "MX", "SRV":
		// The host name is the data's last field.
		return strings.TrimSuffix(value, ".")
	case "TXT":
		return zonemodel.TXTText(value)
	}
	return strings.TrimSpace(value)
}

// records are an endpoint's RRset: its owner as read, type mnemonic, TTL
// and each target's data in master-file form.
type records struct {
	owner, typ string
	ttl        uint32
	values     []string
}

// toRecords turns an endpoint into records, as external-dns's RFC 2136
// provider does: each target in master-file form after "<name> <ttl> IN
// <type>", host names taken as absolute (zonemodel.ParseRootRecord); a
// TXT target not starting with a double quote is one literal string.
func toRecords(ep *Endpoint, ttl uint32) (*records, error) {
	t := strings.ToUpper(ep.RecordType)
	if !supported[t] {
		return nil, fmt.Errorf("recordType %q is not supported (A, AAAA, CNAME, TXT, SRV, NS, PTR, MX, NAPTR, CAA)", ep.RecordType)
	}
	if len(ep.Targets) == 0 {
		return nil, fmt.Errorf("%s %s: no targets", ep.DNSName, ep.RecordType)
	}
	name := zonemodel.Fqdn(strings.ToLower(strings.TrimSpace(ep.DNSName)))
	rs := &records{typ: t, ttl: ttl}
	for _, v := range ep.Targets {
		if t == "TXT" && !strings.HasPrefix(v, `"`) {
			v = txtdata.Quote(v)
		}
		if strings.ContainsAny(v, "\n\r") {
			return nil, fmt.Errorf("%s %s: target %q is not one record's data", ep.DNSName, ep.RecordType, v)
		}
		owner, err := zonemodel.RootRecordOwner(name, ttl, t, v)
		if errors.Is(err, zonemodel.ErrMoreThanOneRecord) {
			return nil, fmt.Errorf("%s %s: target %q is more than one record", ep.DNSName, ep.RecordType, v)
		}
		if err != nil {
			return nil, fmt.Errorf("%s %s: target %q: %v", ep.DNSName, ep.RecordType, v, err)
		}
		rs.owner = owner
		rs.values = append(rs.values, v)
	}
	return rs, nil
}
