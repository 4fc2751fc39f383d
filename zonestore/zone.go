package zonestore

import (
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/miekg/dns"
)

// Zone types as stored in Zone.Type and Entry.Type.
const (
	// TypePrimary is the type of a zone whose data this service owns.
	TypePrimary = "primary"
	// TypeSecondary is the type of a zone transferred from primaries.
	TypeSecondary = "secondary"
)

// Limits from RFC 1035 and RFC 2181.
const (
	maxNameLen  = 253
	maxLabelLen = 63
	maxTTL      = 2147483647
)

// SOA defaults, as in bindcar.
const (
	defaultRefresh     = 3600
	defaultRetry       = 600
	defaultExpire      = 604800
	defaultNegativeTTL = 86400
)

// CreateZoneRequest is the body of POST /api/v1/zones (bindcar-compatible,
// camelCase JSON).
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

// Problem is one validation failure; Field is a JSON path like
// "zoneConfig.soa.primaryNs" or "zoneConfig.records[2].value".
type Problem struct {
	// Field is the JSON path of the offending value.
	Field string `json:"field"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

// ValidationError lists every problem found in a request, not only the
// first.
type ValidationError struct {
	// Problems are the failures in the order they were found.
	Problems []Problem `json:"problems"`
}

// Error joins the problems as "field: message; field: message".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

func (e *ValidationError) add(field, format string, args ...any) {
	e.Problems = append(e.Problems, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}

// endpoint is a validated server address with an optional port.
type endpoint struct {
	addr netip.Addr
	port uint16 // 0: none given
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
	alsoNotify    []endpoint
	allowTransfer []netip.Prefix // single addresses have full-length prefixes
	primaries     []endpoint
	dnssecPolicy  string
	inlineSigning *bool
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
func (z *Zone) origin() string { return z.Name + "." }

// DefaultSerial returns the serial used when a request gives none:
// YYYYMMDDnn in UTC, where nn is minutes since midnight scaled to 0–99.
func DefaultSerial(now time.Time) uint32 {
	t := now.UTC()
	nn := (t.Hour()*60 + t.Minute()) * 100 / 1440
	return uint32(t.Year()*1000000+int(t.Month())*10000+t.Day()*100) + uint32(nn)
}

// NormalizeZoneName validates a zone name from a path or a body and returns
// its canonical form (lower-case, no trailing dot), or an error whose message
// is suitable for a 400 response.
func NormalizeZoneName(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("zone name must not be empty")
	}
	if strings.Contains(s, "..") {
		return "", fmt.Errorf("zone name must not contain '..'")
	}
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	if s == "" {
		return "", fmt.Errorf("zone name must not be the root zone")
	}
	if len(s) > maxNameLen {
		return "", fmt.Errorf("zone name is longer than %d characters", maxNameLen)
	}
	if msg := checkLabels(s, false); msg != "" {
		return "", fmt.Errorf("zone name %s", msg)
	}
	return strings.ToLower(s), nil
}

// checkLabels checks dot-separated labels (no trailing dot) and returns a
// message fragment like `label "a b" contains invalid character ' '`, or "".
func checkLabels(s string, allowWildcard bool) string {
	if strings.HasPrefix(s, ".") {
		return "must not start with '.'"
	}
	if strings.Contains(s, "..") {
		return "must not contain '..'"
	}
	labels := strings.Split(s, ".")
	for i, l := range labels {
		if allowWildcard && i == 0 && l == "*" {
			continue
		}
		if len(l) == 0 {
			return "must not contain an empty label"
		}
		if len(l) > maxLabelLen {
			return fmt.Sprintf("label %q is longer than %d characters", l, maxLabelLen)
		}
		for j := 0; j < len(l); j++ {
			c := l[j]
			if !isLabelChar(c) {
				if c == '*' && allowWildcard {
					return fmt.Sprintf("label %q: '*' is allowed only as the whole first label", l)
				}
				return fmt.Sprintf("label %q contains invalid character %s", l, quoteChar(c))
			}
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Sprintf("label %q must not start or end with '-'", l)
		}
	}
	return ""
}

func isLabelChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// quoteChar shows a byte in a message: printable ASCII as 'c', else as a
// Go escape.
func quoteChar(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return "'" + string(rune(c)) + "'"
	}
	return strconv.QuoteRune(rune(c))
}

// checkIdentifier validates an rndc identifier: [A-Za-z0-9._-]{1,253}.
func checkIdentifier(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > maxNameLen {
		return fmt.Sprintf("is longer than %d characters", maxNameLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLabelChar(c) && c != '.' {
			return fmt.Sprintf("contains invalid character %s (allowed: A-Z a-z 0-9 . _ -)", quoteChar(c))
		}
	}
	return ""
}

// resolveName turns "@", a relative or an absolute name into a lower-case
// absolute name; it returns a message when the name is invalid. Owner names
// may have a leading "*" label when wildcard is true.
func resolveName(s, origin string, wildcard bool) (string, string) {
	if s == "" {
		return "", "must not be empty"
	}
	if s == "@" {
		return origin, ""
	}
	var fqdn string
	if strings.HasSuffix(s, ".") {
		if s == "." {
			return "", "must not be the root name"
		}
		fqdn = s
	} else {
		fqdn = s + "." + origin
	}
	if len(fqdn)-1 > maxNameLen {
		return "", fmt.Sprintf("%q is longer than %d characters", fqdn, maxNameLen)
	}
	if msg := checkLabels(fqdn[:len(fqdn)-1], wildcard); msg != "" {
		return "", msg
	}
	return strings.ToLower(fqdn), ""
}

// inZone reports whether the absolute name is the origin or below it (label
// boundary checked).
func inZone(fqdn, origin string) bool {
	return fqdn == origin || strings.HasSuffix(fqdn, "."+origin)
}

// parseEndpoint parses "ip", "ip:port" or "[v6]:port".
func parseEndpoint(s string) (endpoint, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		if a.Zone() != "" {
			return endpoint{}, false
		}
		return endpoint{addr: a.Unmap()}, true
	}
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 || ap.Addr().Zone() != "" {
		return endpoint{}, false
	}
	return endpoint{addr: ap.Addr().Unmap(), port: ap.Port()}, true
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
		if msg := checkIdentifier(r.UpdateKeyName); msg != "" {
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

// normalizeOptions validates the options that become the rndc addzone block.
func (z *Zone) normalizeOptions(cfg *ZoneConfig, ve *ValidationError) {
	for i, s := range cfg.AlsoNotify {
		ep, ok := parseEndpoint(s)
		if !ok {
			ve.add(fmt.Sprintf("zoneConfig.alsoNotify[%d]", i), "%q is not \"ip\", \"ip:port\" or \"[ipv6]:port\"", s)
			continue
		}
		z.alsoNotify = append(z.alsoNotify, ep)
	}
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
		for i, s := range cfg.Primaries {
			ep, ok := parseEndpoint(s)
			if !ok {
				ve.add(fmt.Sprintf("zoneConfig.primaries[%d]", i), "%q is not \"ip\", \"ip:port\" or \"[ipv6]:port\"", s)
				continue
			}
			z.primaries = append(z.primaries, ep)
		}
	}
	if cfg.DNSSECPolicy != "" {
		if msg := checkIdentifier(cfg.DNSSECPolicy); msg != "" {
			ve.add("zoneConfig.dnssecPolicy", "%s", msg)
		}
		z.dnssecPolicy = cfg.DNSSECPolicy
	}
	z.inlineSigning = cfg.InlineSigning
}

// normalizeContent validates and builds the records of a primary zone.
func (z *Zone) normalizeContent(cfg *ZoneConfig, now time.Time, ve *ValidationError) {
	origin := z.origin()

	if cfg.TTL < 1 || cfg.TTL > maxTTL {
		ve.add("zoneConfig.ttl", "must be between 1 and %d seconds (RFC 2181), got %d", maxTTL, cfg.TTL)
	}
	z.TTL = cfg.TTL
	hdr := func(name string, t uint16, ttl uint32) dns.RR_Header {
		return dns.RR_Header{Name: name, Rrtype: t, Class: dns.ClassINET, Ttl: ttl}
	}

	// SOA.
	var soaRR *dns.SOA
	if cfg.SOA == nil {
		ve.add("zoneConfig.soa", "is required for primary zones")
	} else {
		s := cfg.SOA
		soaRR = &dns.SOA{Hdr: hdr(origin, dns.TypeSOA, z.TTL)}
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
	}

	// Owner bookkeeping for CNAME and glue checks.
	type placed struct {
		rr    dns.RR
		field string // JSON path of the item that produced rr
	}
	var all []placed
	seen := map[string]string{} // record key -> field, for duplicates
	add := func(rr dns.RR, field string) {
		h := rr.Header()
		key := strings.ToLower(h.Name) + " " + dns.TypeToString[h.Rrtype] + " " + strings.TrimPrefix(rr.String(), h.String())
		if prev, ok := seen[key]; ok {
			ve.add(field, "duplicates %s", prev)
			return
		}
		seen[key] = field
		all = append(all, placed{rr, field})
	}
	if soaRR != nil {
		all = append(all, placed{soaRR, "zoneConfig.soa"})
	}

	// Apex NS.
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
		add(&dns.NS{Hdr: hdr(origin, dns.TypeNS, z.TTL), Ns: ns}, field)
	}

	// Glue, sorted by host for a stable file.
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
			add(&dns.A{Hdr: hdr(host, dns.TypeA, z.TTL), A: a.AsSlice()}, field)
		} else {
			add(&dns.AAAA{Hdr: hdr(host, dns.TypeAAAA, z.TTL), AAAA: a.AsSlice()}, field)
		}
	}

	// Records.
	for i := range cfg.Records {
		field := fmt.Sprintf("zoneConfig.records[%d]", i)
		if rr := z.normalizeRecord(&cfg.Records[i], field, ve); rr != nil {
			add(rr, field)
		}
	}

	// CNAME rules: not at the apex, not beside other data, only one.
	// And every NS target inside the zone needs an address, or BIND
	// refuses the zone. Maps keep this linear in the number of records.
	perName := map[string][]int{} // owner -> indexes into all
	hasAddr := map[string]bool{}  // owners with A or AAAA
	for i, p := range all {
		h := p.rr.Header()
		n := strings.ToLower(h.Name)
		perName[n] = append(perName[n], i)
		if h.Rrtype == dns.TypeA || h.Rrtype == dns.TypeAAAA {
			hasAddr[n] = true
		}
	}
	for i, p := range all {
		switch rr := p.rr.(type) {
		case *dns.CNAME:
			name := strings.ToLower(rr.Hdr.Name)
			if name == origin {
				ve.add(p.field+".name", "a CNAME is not allowed at the zone apex")
				continue
			}
			for _, j := range perName[name] {
				if j != i {
					ve.add(p.field+".name", "a CNAME at %s cannot coexist with other data at that name (%s)", name, all[j].field)
					break
				}
			}
		case *dns.NS:
			target := strings.ToLower(rr.Ns)
			if inZone(target, origin) && !hasAddr[target] {
				ve.add(p.field, "name server %s is inside the zone but has no address: add it to zoneConfig.nameServerIps", rr.Ns)
			}
		}
	}

	z.rrs = make([]dns.RR, len(all))
	for i, p := range all {
		z.rrs[i] = p.rr
	}
}

// resolveMailbox turns adminEmail into an absolute mailbox name.
func resolveMailbox(s, origin string) (string, string) {
	if s == "" {
		return "", "must not be empty"
	}
	at := strings.IndexByte(s, '@')
	if at < 0 {
		n, msg := resolveName(s, origin, false)
		if msg != "" {
			return "", msg
		}
		return n, ""
	}
	local, domain := s[:at], s[at+1:]
	if local == "" || domain == "" || strings.ContainsRune(domain, '@') {
		return "", fmt.Sprintf("%q is not a mailbox (\"user@example.com\" or \"user.example.com.\")", s)
	}
	if len(local) > maxLabelLen {
		return "", fmt.Sprintf("local part %q is longer than %d characters", local, maxLabelLen)
	}
	for i := 0; i < len(local); i++ {
		if c := local[i]; !isLabelChar(c) && c != '.' && c != '+' {
			return "", fmt.Sprintf("local part %q contains invalid character %s (allowed: A-Z a-z 0-9 . + _ -)", local, quoteChar(c))
		}
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return "", fmt.Sprintf("local part %q has a misplaced '.'", local)
	}
	d, msg := resolveName(dns.Fqdn(domain), origin, false)
	if msg != "" {
		return "", "domain " + msg
	}
	mbox := strings.ReplaceAll(strings.ToLower(local), ".", `\.`) + "." + d
	if _, ok := dns.IsDomainName(mbox); !ok || len(mbox) > maxNameLen+1 {
		return "", fmt.Sprintf("%q does not make a valid mailbox name", s)
	}
	return mbox, ""
}

// forbiddenTypes are record types a client may not put in a zone: the SOA
// comes from zoneConfig.soa, meta and query types are not data, and DNSSEC
// signatures and denial records are BIND's to make.
var forbiddenTypes = map[uint16]bool{
	dns.TypeSOA: true, dns.TypeOPT: true, dns.TypeTSIG: true, dns.TypeTKEY: true,
	dns.TypeANY: true, dns.TypeAXFR: true, dns.TypeIXFR: true, dns.TypeMAILA: true,
	dns.TypeMAILB: true, dns.TypeNone: true, dns.TypeReserved: true,
	dns.TypeRRSIG: true, dns.TypeNSEC: true, dns.TypeNSEC3: true, dns.TypeSIG: true,
}

// checkRecordType returns a message when t is not a record type a client
// may write, or "".
func checkRecordType(t string) string {
	typeName := strings.ToUpper(t)
	rrtype, known := lookupType(typeName)
	switch {
	case t == "":
		return "must not be empty"
	case !known:
		return fmt.Sprintf("%q is not a known record type", t)
	case rrtype == dns.TypeNULL:
		return fmt.Sprintf("type %s is NULL (10), which has no text form (RFC 1035 §3.3.10), so its records can be neither written nor shown here", typeName)
	case forbiddenTypes[rrtype]:
		return fmt.Sprintf("records of type %s cannot be created here", typeName)
	case rrtype >= 128 && rrtype <= 255:
		return fmt.Sprintf("type %s is a meta or query type (128-255), not record data", typeName)
	}
	return ""
}

// lookupType resolves an upper-case type mnemonic or the RFC 3597 generic
// form "TYPEnnn".
func lookupType(typeName string) (uint16, bool) {
	if t, ok := dns.StringToType[typeName]; ok {
		return t, true
	}
	if n, ok := strings.CutPrefix(typeName, "TYPE"); ok && n != "" && n[0] != '0' && n[0] != '+' {
		if v, err := strconv.ParseUint(n, 10, 16); err == nil && v > 0 {
			return uint16(v), true
		}
	}
	return 0, false
}

// absoluteIfInZone appends the root dot to a name that is the zone name or
// ends in ".<zone>" (case-insensitively, on a label boundary), so that
// bindcar clients' "www.example.com" means www.example.com.
func absoluteIfInZone(name, origin string) string {
	if name == "" || strings.HasSuffix(name, ".") {
		return name
	}
	zone := strings.TrimSuffix(origin, ".")
	lower := strings.ToLower(name)
	if lower == zone || strings.HasSuffix(lower, "."+zone) {
		return name + "."
	}
	return name
}

// normalizeRecord validates one record and returns it as a dns.RR, or nil
// after adding problems.
func (z *Zone) normalizeRecord(r *Record, field string, ve *ValidationError) dns.RR {
	return parseRecord(r, z.origin(), z.TTL, field, false, ve)
}

// parseRecord validates one record of the zone origin and returns it as a
// dns.RR, or nil after adding problems to ve under field. defaultTTL applies
// when r.TTL is nil. With suffixAbsolute, an owner without a trailing dot
// that is the zone name or ends in ".<zone>" is taken as absolute
// (bindcar's rule for the record endpoints, with a label-boundary check);
// otherwise master-file rules apply. It is shared by zone creation and the
// record endpoints.
func parseRecord(r *Record, origin string, defaultTTL uint32, field string, suffixAbsolute bool, ve *ValidationError) dns.RR {
	ok := true

	name := r.Name
	if suffixAbsolute {
		name = absoluteIfInZone(name, origin)
	}
	owner, msg := resolveName(name, origin, true)
	if msg != "" {
		ve.add(field+".name", "%s", msg)
		ok = false
	} else if !inZone(owner, origin) {
		ve.add(field+".name", "%s is outside the zone %s", owner, origin)
		ok = false
	}

	typeName := strings.ToUpper(r.Type)
	rrtype, known := lookupType(typeName)
	if msg := checkRecordType(r.Type); msg != "" {
		ve.add(field+".type", "%s", msg)
		ok = false
	}

	ttl := defaultTTL
	if r.TTL != nil {
		if *r.TTL > maxTTL {
			ve.add(field+".ttl", "must be at most %d seconds (RFC 2181), got %d", maxTTL, *r.TTL)
			ok = false
		}
		ttl = *r.TTL
	}

	prio := r.Priority
	if r.Priority != nil && known && rrtype != dns.TypeMX && rrtype != dns.TypeSRV {
		ve.add(field+".priority", "is allowed only for MX and SRV records, not %s", typeName)
		ok = false
		prio = nil
	}

	value := strings.TrimSpace(r.Value)
	literal := (rrtype == dns.TypeTXT || rrtype == dns.TypeSPF) && !strings.HasPrefix(value, `"`)
	if msg := checkValueText(r.Value, literal); msg != "" {
		ve.add(field+".value", "%s", msg)
		return nil
	}
	if !ok {
		// Still parse the value when the type allows, so that every
		// problem is listed; nothing is returned.
		if checkRecordType(r.Type) != "" {
			return nil
		}
		if owner == "" {
			owner = origin
		}
		if ttl > maxTTL {
			ttl = 0
		}
	}

	hdr := dns.RR_Header{Name: owner, Rrtype: rrtype, Class: dns.ClassINET, Ttl: ttl}
	if literal {
		if !ok {
			return nil
		}
		// Literal text: one character-string, split at 255 bytes.
		txt := splitTXT(r.Value)
		if rrtype == dns.TypeSPF {
			return &dns.SPF{Hdr: hdr, Txt: txt}
		}
		return &dns.TXT{Hdr: hdr, Txt: txt}
	}

	if ok && prio == nil {
		if rr := parseAddress(hdr, value); rr != nil {
			return rr
		}
	}

	// Assemble the line from validated parts only; the value has passed
	// checkValueText (no newline, directive, comment or unbalanced quote or
	// parenthesis), so it can only be rdata.
	var b strings.Builder
	b.WriteString(owner)
	b.WriteString(" ")
	b.WriteString(strconv.FormatUint(uint64(ttl), 10))
	b.WriteString(" IN ")
	b.WriteString(typeName)
	b.WriteString(" ")
	if prio != nil {
		b.WriteString(strconv.FormatUint(uint64(*prio), 10))
		b.WriteString(" ")
	}
	b.WriteString(value)

	zp := dns.NewZoneParser(strings.NewReader(b.String()), origin, "")
	zp.SetIncludeAllowed(false)
	zp.SetDefaultTTL(ttl)
	var got []dns.RR
	for rr, more := zp.Next(); more; rr, more = zp.Next() {
		got = append(got, rr)
	}
	if err := zp.Err(); err != nil {
		ve.add(field+".value", "%q is not valid %s data: %s", r.Value, typeName, parseErrText(err))
		return nil
	}
	if len(got) != 1 {
		ve.add(field+".value", "must make exactly one %s record, got %d", typeName, len(got))
		return nil
	}
	rr := got[0]
	if h := rr.Header(); h.Rrtype != rrtype || !strings.EqualFold(h.Name, owner) || h.Class != dns.ClassINET || h.Ttl != ttl {
		ve.add(field+".value", "%q is not valid %s data", r.Value, typeName)
		return nil
	}
	if !ok {
		return nil
	}
	h := rr.Header()
	h.Name = owner
	// The parser accepts a type with no rdata at all ("MX ()"), the
	// form RFC 2136 uses to delete an RRset, which no zone file can hold:
	// what is kept must read back as itself.
	if back, err := dns.NewRR(rr.String()); err != nil || back == nil || !dns.IsDuplicate(back, rr) {
		ve.add(field+".value", "%q is not valid %s data: it does not make a complete record", r.Value, typeName)
		return nil
	}
	return rr
}

// parseAddress parses the data of an A or AAAA record without the
// master-file parser (several times faster, which counts in a batch of
// a thousand adds), accepting exactly what miekg/dns accepts: one token of
// the address family's characters that net.ParseIP takes. It returns nil
// for any other type or value, which the parser then handles (and
// explains).
func parseAddress(hdr dns.RR_Header, value string) dns.RR {
	var v4 bool
	switch hdr.Rrtype {
	case dns.TypeA:
		v4 = true
	case dns.TypeAAAA:
	default:
		return nil
	}
	sep := false
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case c >= '0' && c <= '9', c == '.':
			sep = sep || v4 && c == '.'
		case !v4 && (c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'):
		case !v4 && c == ':':
			sep = true
		default:
			return nil
		}
	}
	ip := net.ParseIP(value)
	if !sep || ip == nil {
		return nil
	}
	if v4 {
		return &dns.A{Hdr: hdr, A: ip}
	}
	return &dns.AAAA{Hdr: hdr, AAAA: ip}
}

// parseErrText extracts the reason from a *dns.ParseError without the
// assembled line.
func parseErrText(err error) string {
	if pe, ok := err.(*dns.ParseError); ok {
		return strings.TrimSpace(strings.TrimPrefix(pe.Error(), "dns: "))
	}
	return err.Error()
}

// checkValueText rejects record values that could be anything but one
// record's data in a master file. Literal TXT text is never parsed, so only
// the character checks apply to it.
func checkValueText(v string, literal bool) string {
	if strings.TrimSpace(v) == "" {
		return "must not be empty"
	}
	if !utf8.ValidString(v) {
		return "is not valid UTF-8"
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c == 0x7f {
			return fmt.Sprintf("contains the control character %s", quoteChar(c))
		}
	}
	upper := strings.ToUpper(v)
	for _, d := range []string{"$INCLUDE", "$ORIGIN", "$TTL", "$GENERATE"} {
		if strings.Contains(upper, d) {
			return fmt.Sprintf("must not contain the master-file directive %s", d)
		}
	}
	if literal {
		return ""
	}
	inQuote, depth := false, 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '\\':
			i++ // escaped character, whatever it is
			if i >= len(v) {
				return "ends with a dangling '\\'"
			}
		case c == '"':
			inQuote = !inQuote
		case inQuote:
		case c == ';':
			return "must not contain ';' outside quotes (comments are not allowed)"
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth < 0 {
				return "has unbalanced parentheses"
			}
		}
	}
	if inQuote {
		return "has an unterminated quoted string"
	}
	if depth != 0 {
		return "has unbalanced parentheses"
	}
	return ""
}

// splitTXT turns literal text into character-strings of at most 255 bytes,
// escaped as miekg/dns stores them (presentation form without quotes).
func splitTXT(s string) []string {
	var out []string
	for len(s) > 0 || len(out) == 0 {
		n := min(len(s), 255)
		chunk := s[:n]
		s = s[n:]
		var b strings.Builder
		for i := 0; i < len(chunk); i++ {
			c := chunk[i]
			switch {
			case c == '"' || c == '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			case c < ' ' || c > '~':
				fmt.Fprintf(&b, "\\%03d", c)
			default:
				b.WriteByte(c)
			}
		}
		out = append(out, b.String())
	}
	return out
}
