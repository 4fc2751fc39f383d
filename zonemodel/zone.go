package zonemodel

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// Zone types as stored in Zone.Type and Entry.Type.
const (
	// TypePrimary is the type of a zone whose data this service owns.
	TypePrimary = "primary"
	// TypeSecondary is the type of a zone transferred from primaries.
	TypeSecondary = "secondary"
)

// SOA defaults, as in bindcar.
const (
	defaultRefresh     = 3600
	defaultRetry       = 600
	defaultExpire      = 604800
	defaultNegativeTTL = 86400
)

// CreateZoneRequest is a request to create a zone, as the zone model
// takes it. The wire body of POST /api/v1/zones is apitypes.CreateZone,
// which the front ends convert; this type keeps its own JSON form because
// the zone service fingerprints it (zoneservice.Fingerprint) and the
// fingerprints of the zones made so far must not change.
type CreateZoneRequest struct {
	// ZoneName is the zone's name, e.g. "example.com" (a trailing dot is
	// accepted).
	ZoneName string `json:"zoneName"`
	// ZoneType is "primary" or "secondary" ("master" and "slave" are accepted
	// as aliases).
	ZoneType string `json:"zoneType"`
	// ZoneConfig holds the zone's content and options; it is required for
	// primary zones.
	ZoneConfig *ZoneConfig `json:"zoneConfig"`
	// UpdateKeyName is the TSIG key allowed to update the zone; when empty
	// the caller's default key applies.
	UpdateKeyName string `json:"updateKeyName,omitempty"`
}

// ZoneConfig is the content and the options of a zone to create.
type ZoneConfig struct {
	// TTL is the zone's default TTL ($TTL), 1 to 2147483647 seconds.
	TTL uint32 `json:"ttl"`
	// SOA is the zone's start of authority.
	SOA *SOA `json:"soa"`
	// NameServers are the NS targets at the apex.
	NameServers []string `json:"nameServers"`
	// NameServerIPs maps glue host names inside the zone to an IPv4 (A) or
	// IPv6 (AAAA) address.
	NameServerIPs map[string]string `json:"nameServerIps,omitempty"`
	// Records are further records of the zone.
	Records []Record `json:"records,omitempty"`
	// AlsoNotify lists extra servers to notify: "ip", "ip:port" or
	// "[v6]:port".
	AlsoNotify []string `json:"alsoNotify,omitempty"`
	// AllowTransfer lists the addresses ("ip") or networks ("ip/len")
	// allowed to transfer the zone.
	AllowTransfer []string `json:"allowTransfer,omitempty"`
	// Primaries lists the servers a secondary zone transfers from: "ip",
	// "ip:port" or "[v6]:port".
	Primaries []string `json:"primaries,omitempty"`
	// DNSSECPolicy names a BIND dnssec-policy to sign the zone with.
	DNSSECPolicy string `json:"dnssecPolicy,omitempty"`
	// InlineSigning sets BIND's inline-signing option when present.
	InlineSigning *bool `json:"inlineSigning,omitempty"`
}

// SOA is the start of authority of a zone to create.
type SOA struct {
	// PrimaryNS is the primary name server (SOA MNAME).
	PrimaryNS string `json:"primaryNs"`
	// AdminEmail is the responsible mailbox (SOA RNAME), in DNS mailbox form
	// ("hostmaster.example.com.") or e-mail form ("hostmaster@example.com").
	AdminEmail string `json:"adminEmail"`
	// Serial is the zone's serial; the default is YYYYMMDDnn (see package doc).
	Serial *uint32 `json:"serial,omitempty"`
	// Refresh is the SOA refresh interval in seconds (default 3600).
	Refresh *uint32 `json:"refresh,omitempty"`
	// Retry is the SOA retry interval in seconds (default 600).
	Retry *uint32 `json:"retry,omitempty"`
	// Expire is the SOA expire time in seconds (default 604800).
	Expire *uint32 `json:"expire,omitempty"`
	// NegativeTTL is the SOA minimum, the negative caching TTL in seconds
	// (default 86400).
	NegativeTTL *uint32 `json:"negativeTtl,omitempty"`
}

// Record is one resource record of a zone to create.
type Record struct {
	// Name is the owner: "@", a name relative to the zone, or an absolute
	// name inside the zone.
	Name string `json:"name"`
	// Type is the record type, e.g. "A" or "MX" (case-insensitive).
	Type string `json:"type"`
	// Value is the record data in master-file form, e.g. "192.0.2.1" or
	// "10 mail.example.com.".
	Value string `json:"value"`
	// TTL is the record's TTL; the zone's TTL applies when absent.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// Endpoint is a validated server address with an optional port.
type Endpoint struct {
	// Addr is the server's address (an IPv4-mapped address is unmapped).
	Addr netip.Addr
	// Port is the server's port; 0: none given (the default applies).
	Port uint16
}

// Options are a zone's validated BIND options, besides its type and file:
// what the statement that adds the zone says of it.
type Options struct {
	// AlsoNotify are servers sent NOTIFY besides the NS targets.
	AlsoNotify []Endpoint
	// AllowTransfer are the networks allowed to transfer the zone (a
	// single address is a full-length prefix); none: named's default.
	AllowTransfer []netip.Prefix
	// Primaries are the servers a secondary zone transfers from.
	Primaries []Endpoint
	// DNSSECPolicy is the zone's dnssec-policy, or "".
	DNSSECPolicy string
	// InlineSigning is inline-signing yes or no, or nil: named's default.
	InlineSigning *bool
}

// Zone is a validated, normalised zone ready to be rendered.
type Zone struct {
	// Name is the canonical zone name: lower-case, without a trailing dot.
	Name string
	// Type is TypePrimary or TypeSecondary.
	Type string
	// TTL is the default TTL of a primary zone.
	TTL uint32
	// Serial is the SOA serial of a primary zone.
	Serial uint32
	// UpdateKeyName is the TSIG key named by the request, or "".
	UpdateKeyName string

	rrs           []dns.RR // primary: SOA, NS, glue, records, in file order
	alsoNotify    []Endpoint
	allowTransfer []netip.Prefix // single addresses have full-length prefixes
	primaries     []Endpoint
	dnssecPolicy  string
	inlineSigning *bool
}

// Options returns the zone's BIND options (copies of its lists).
func (z *Zone) Options() Options {
	o := Options{
		AlsoNotify:    slices.Clone(z.alsoNotify),
		AllowTransfer: slices.Clone(z.allowTransfer),
		Primaries:     slices.Clone(z.primaries),
		DNSSECPolicy:  z.dnssecPolicy,
	}
	if z.inlineSigning != nil {
		b := *z.inlineSigning
		o.InlineSigning = &b
	}
	return o
}

// Records returns copies of the zone's resource records in file order: SOA,
// apex NS, glue, then the request's records. It is empty for secondaries.
func (z *Zone) Records() []dns.RR {
	out := make([]dns.RR, len(z.rrs))
	for i, rr := range z.rrs {
		out[i] = dns.Copy(rr)
	}
	return out
}

// origin returns the zone's name as an absolute domain name.
func (z *Zone) origin() string { return Origin(z.Name) }

// DefaultSerial returns the serial used when a request gives none:
// YYYYMMDDnn in UTC, where nn is minutes since midnight scaled to 0–99.
func DefaultSerial(now time.Time) uint32 {
	t := now.UTC()
	nn := (t.Hour()*60 + t.Minute()) * 100 / 1440
	return uint32(t.Year()*1000000+int(t.Month())*10000+t.Day()*100) + uint32(nn)
}

// parseEndpoint parses "ip", "ip:port" or "[v6]:port".
func parseEndpoint(s string) (Endpoint, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return Endpoint{}, false
		}
		return Endpoint{Addr: a.Unmap()}, true
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 || ap.Addr().Zone() != "" {
		return Endpoint{}, false
	}
	return Endpoint{Addr: ap.Addr().Unmap(), Port: ap.Port()}, true
}

// parseNetwork parses "ip" or "ip/len" with no host bits set.
func parseNetwork(s string) (netip.Prefix, string) {
	if a, err := netip.ParseAddr(s); err == nil && a.Zone() == "" {
		a = a.Unmap()
		return netip.PrefixFrom(a, a.BitLen()), ""
	}
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Sprintf("%q is not an IP address or a CIDR network", s)
	}
	if m := p.Masked(); m != p {
		return netip.Prefix{}, fmt.Sprintf("%q has host bits set (did you mean %q?)", s, m.String())
	}
	return p, ""
}

// Normalize validates the request and returns the zone; now gives the
// default serial. The error, when not nil, is a *ValidationError listing
// every problem found.
func (r *CreateZoneRequest) Normalize(now time.Time) (*Zone, error) {
	ve := &ValidationError{}
	z := &Zone{}

	name, err := NormalizeZoneName(r.ZoneName)
	if err != nil {
		ve.add("zoneName", "%s", err.Error())
	}
	z.Name = name

	switch strings.ToLower(r.ZoneType) {
	case "primary", "master":
		z.Type = TypePrimary
	case "secondary", "slave":
		z.Type = TypeSecondary
	case "":
		ve.add("zoneType", "must not be empty (expected \"primary\" or \"secondary\")")
	default:
		ve.add("zoneType", "%q is not a zone type (expected \"primary\" or \"secondary\")", r.ZoneType)
	}

	if r.UpdateKeyName != "" {
		if msg := CheckIdentifier(r.UpdateKeyName); msg != "" {
			ve.add("updateKeyName", "%s", msg)
		} else if z.Type == TypeSecondary {
			ve.add("updateKeyName", "is allowed only for primary zones (BIND accepts allow-update in primary zones only)")
		}
		z.UpdateKeyName = r.UpdateKeyName
	}

	cfg := r.ZoneConfig
	if cfg == nil {
		switch z.Type {
		case TypePrimary:
			ve.add("zoneConfig", "is required for primary zones")
		case TypeSecondary:
			ve.add("zoneConfig.primaries", "a secondary zone needs at least one primary server")
		}
	} else {
		z.normalizeOptions(cfg, ve)
		if z.Type == TypePrimary && z.Name != "" {
			z.normalizeContent(cfg, now, ve)
		}
	}

	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return z, nil
}

// parseEndpoints parses the list field's endpoints, adding a problem to
// ve for each that is not one.
func parseEndpoints(field string, list []string, ve *ValidationError) []Endpoint {
	var out []Endpoint
	for i, s := range list {
		ep, ok := parseEndpoint(s)
		if !ok {
			ve.add(fmt.Sprintf("%s[%d]", field, i), "%q is not \"ip\", \"ip:port\" or \"[ipv6]:port\"", s)
			continue
		}
		out = append(out, ep)
	}
	return out
}

// normalizeOptions validates the options that become the rndc addzone block.
func (z *Zone) normalizeOptions(cfg *ZoneConfig, ve *ValidationError) {
	z.alsoNotify = parseEndpoints("zoneConfig.alsoNotify", cfg.AlsoNotify, ve)
	for i, s := range cfg.AllowTransfer {
		p, msg := parseNetwork(s)
		if msg != "" {
			ve.add(fmt.Sprintf("zoneConfig.allowTransfer[%d]", i), "%s", msg)
			continue
		}
		z.allowTransfer = append(z.allowTransfer, p)
	}
	if z.Type == TypeSecondary {
		if len(cfg.Primaries) == 0 {
			ve.add("zoneConfig.primaries", "a secondary zone needs at least one primary server")
		}
		z.primaries = parseEndpoints("zoneConfig.primaries", cfg.Primaries, ve)
	}
	if cfg.DNSSECPolicy != "" {
		if msg := CheckIdentifier(cfg.DNSSECPolicy); msg != "" {
			ve.add("zoneConfig.dnssecPolicy", "%s", msg)
		}
		z.dnssecPolicy = cfg.DNSSECPolicy
	}
	z.inlineSigning = cfg.InlineSigning
}

// normalizeContent validates and builds the records of a primary zone.
func (z *Zone) normalizeContent(cfg *ZoneConfig, now time.Time, ve *ValidationError) {
	if cfg.TTL < 1 || cfg.TTL > maxTTL {
		ve.add("zoneConfig.ttl", "must be between 1 and %d seconds (RFC 2181), got %d", maxTTL, cfg.TTL)
	}
	z.TTL = cfg.TTL
	c := &contentSet{ve: ve, seen: map[string]string{}}
	if soaRR := z.normalizeSOA(cfg.SOA, now, ve); soaRR != nil {
		c.all = append(c.all, placed{soaRR, "zoneConfig.soa"})
	}
	z.normalizeNameServers(cfg, c)
	for i := range cfg.Records {
		field := fmt.Sprintf("zoneConfig.records[%d]", i)
		if rr := z.normalizeRecord(&cfg.Records[i], field, ve); rr != nil {
			c.add(rr, field)
		}
	}
	c.checkRules(z.origin())
	z.rrs = make([]dns.RR, len(c.all))
	for i, p := range c.all {
		z.rrs[i] = p.rr
	}
}

// rrHeader is the header of a record of the zone's class.
func rrHeader(name string, t uint16, ttl uint32) dns.RR_Header {
	return dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: ttl}
}

// normalizeSOA validates the SOA of a create request and returns its
// record (nil when s is nil); it sets z.Serial.
func (z *Zone) normalizeSOA(s *SOA, now time.Time, ve *ValidationError) *dns.SOA {
	if s == nil {
		ve.add("zoneConfig.soa", "is required for primary zones")
		return nil
	}
	origin := z.origin()
	soaRR := &dns.SOA{Hdr: rrHeader(origin, dns.TypeSOA, z.TTL)}
	ns, msg := resolveName(s.PrimaryNS, origin, false)
	if msg != "" {
		ve.add("zoneConfig.soa.primaryNs", "%s", msg)
	}
	soaRR.Ns = ns
	mbox, msg := resolveMailbox(s.AdminEmail, origin)
	if msg != "" {
		ve.add("zoneConfig.soa.adminEmail", "%s", msg)
	}
	soaRR.Mbox = mbox
	z.Serial = DefaultSerial(now)
	if s.Serial != nil {
		z.Serial = *s.Serial
	}
	soaRR.Serial = z.Serial
	timer := func(p *uint32, def uint32, field string) uint32 {
		if p == nil {
			return def
		}
		if *p > maxTTL {
			ve.add("zoneConfig.soa."+field, "must be at most %d seconds, got %d", maxTTL, *p)
		}
		return *p
	}
	soaRR.Refresh = timer(s.Refresh, defaultRefresh, "refresh")
	soaRR.Retry = timer(s.Retry, defaultRetry, "retry")
	soaRR.Expire = timer(s.Expire, defaultExpire, "expire")
	soaRR.Minttl = timer(s.NegativeTTL, defaultNegativeTTL, "negativeTtl")
	return soaRR
}

// placed is a record of the zone and the JSON path of the item that
// produced it.
type placed struct {
	rr    dns.RR
	field string
}

// contentSet collects a zone's records for the CNAME and glue checks,
// refusing duplicates.
type contentSet struct {
	ve   *ValidationError
	all  []placed
	seen map[string]string // record key -> field, for duplicates
}

func (c *contentSet) add(rr dns.RR, field string) {
	h := rr.Header()
	key := strings.ToLower(h.Name) + " " + dns.TypeToString[h.Rrtype] + " " + strings.TrimPrefix(rr.String(), h.String())
	if prev, ok := c.seen[key]; ok {
		c.ve.add(field, "duplicates %s", prev)
		return
	}
	c.seen[key] = field
	c.all = append(c.all, placed{rr, field})
}

// normalizeNameServers adds the apex NS records and the glue, sorted by
// host for a stable file.
func (z *Zone) normalizeNameServers(cfg *ZoneConfig, c *contentSet) {
	origin, ve := z.origin(), c.ve
	if len(cfg.NameServers) == 0 {
		ve.add("zoneConfig.nameServers", "a primary zone needs at least one name server")
	}
	for i, s := range cfg.NameServers {
		field := fmt.Sprintf("zoneConfig.nameServers[%d]", i)
		ns, msg := resolveName(s, origin, false)
		if msg != "" {
			ve.add(field, "%s", msg)
			continue
		}
		c.add(&dns.NS{Hdr: rrHeader(origin, dns.TypeNS, z.TTL), Ns: ns}, field)
	}
	hosts := make([]string, 0, len(cfg.NameServerIPs))
	for h := range cfg.NameServerIPs {
		hosts = append(hosts, h)
	}
	slices.Sort(hosts)
	for _, h := range hosts {
		field := "zoneConfig.nameServerIps[" + strconv.Quote(h) + "]"
		host, msg := resolveName(h, origin, false)
		if msg != "" {
			ve.add(field, "host name %s", msg)
			continue
		}
		if !inZone(host, origin) {
			ve.add(field, "glue host %s is outside the zone %s", host, origin)
			continue
		}
		ip := cfg.NameServerIPs[h]
		a, err := netip.ParseAddr(ip)
		if err != nil || a.Zone() != "" {
			ve.add(field, "%q is not an IPv4 or IPv6 address", ip)
			continue
		}
		a = a.Unmap()
		if a.Is4() {
			c.add(&dns.A{Hdr: rrHeader(host, dns.TypeA, z.TTL), A: a.AsSlice()}, field)
		} else {
			c.add(&dns.AAAA{Hdr: rrHeader(host, dns.TypeAAAA, z.TTL), AAAA: a.AsSlice()}, field)
		}
	}
}

// checkRules applies the CNAME rules (not at the apex, not beside other
// data, only one) and requires an address for every NS target inside the
// zone, as BIND refuses the zone otherwise. Maps keep this linear in the
// number of records.
func (c *contentSet) checkRules(origin string) {
	perName := map[string][]int{} // owner -> indexes into all
	hasAddr := map[string]bool{}  // owners with A or AAAA
	for i, p := range c.all {
		h := p.rr.Header()
		n := strings.ToLower(h.Name)
		perName[n] = append(perName[n], i)
		if h.Rrtype == dns.TypeA || h.Rrtype == dns.TypeAAAA {
			hasAddr[n] = true
		}
	}
	for i, p := range c.all {
		switch rr := p.rr.(type) {
		case *dns.CNAME:
			name := strings.ToLower(rr.Hdr.Name)
			if name == origin {
				c.ve.add(p.field+".name", "a CNAME is not allowed at the zone apex")
				continue
			}
			for _, j := range perName[name] {
				if j != i {
					c.ve.add(p.field+".name", "a CNAME at %s cannot coexist with other data at that name (%s)", name, c.all[j].field)
					break
				}
			}
		case *dns.NS:
			target := strings.ToLower(rr.Ns)
			if inZone(target, origin) && !hasAddr[target] {
				c.ve.add(p.field, "name server %s is inside the zone but has no address: add it to zoneConfig.nameServerIps", rr.Ns)
			}
		}
	}
}

// normalizeRecord validates one record and returns it as a dns.RR, or nil
// after adding problems.
func (z *Zone) normalizeRecord(r *Record, field string, ve *ValidationError) dns.RR {
	return parseRecord(r, z.origin(), z.TTL, field, false, ve)
}
