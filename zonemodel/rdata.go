package zonemodel

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/internal/txtdata"
)

// TypeString is the type's mnemonic or its RFC 3597 form.
func TypeString(t uint16) string {
	if s, ok := dns.TypeToString[t]; ok {
		return s
	}
	return "TYPE" + itoa(uint32(t))
}

// RDataText is the record's data in master-file form, e.g.
// "10 mail.example.com." or `\# 3 abcdef` for a type miekg/dns does not
// know. A and AAAA records, most of a large zone or batch, are written
// without formatting their header twice, as rr.String() writes their data.
func RDataText(rr dns.RR) string {
	switch r := rr.(type) {
	case *dns.RFC3597:
		return `\# ` + itoa(uint32(len(r.Rdata)/2)) + " " + r.Rdata
	case *dns.A:
		if r.A == nil {
			return ""
		}
		return r.A.String()
	case *dns.AAAA:
		if r.AAAA == nil {
			return ""
		}
		if r.AAAA.To4() != nil {
			return "::ffff:" + r.AAAA.String() // as miekg/dns writes it
		}
		return r.AAAA.String()
	case *dns.TXT:
		if t, ok := plainTXTText(r.Txt); ok {
			return t
		}
	case *dns.SPF:
		if t, ok := plainTXTText(r.Txt); ok {
			return t
		}
	}
	return strings.TrimPrefix(rr.String(), rr.Header().String())
}

// plainTXTText is the master-file form of a TXT record's strings, written
// without formatting its header, when no byte of them needs escaping (all
// printable ASCII, no quote or backslash): each quoted, separated by
// spaces, as miekg/dns writes them. ok is false otherwise.
func plainTXTText(txt []string) (string, bool) {
	n := 0
	for _, s := range txt {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
				return "", false
			}
		}
		n += len(s) + 3
	}
	var b strings.Builder
	b.Grow(n)
	for i, s := range txt {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
	}
	return b.String(), true
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

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

// parseRecord validates one record of the zone origin and returns it as a
// dns.RR, or nil after adding problems to ve under field. defaultTTL applies
// when r.TTL is nil. With suffixAbsolute, an owner without a trailing dot
// that is the zone name or ends in ".<zone>" is taken as absolute
// (bindcar's rule for the record endpoints, with a label-boundary check);
// otherwise master-file rules apply. It is shared by zone creation and the
// record endpoints.
//
// It runs a little over 80 lines because it checks every part (owner,
// type, TTL, priority, value) before giving up, so that one answer lists
// every problem; the rdata itself is parsed by parseRData.
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
		txt := txtdata.Split(r.Value)
		if rrtype == dns.TypeSPF {
			return &dns.SPF{Hdr: hdr, Txt: txt}
		}
		return &dns.TXT{Hdr: hdr, Txt: txt}
	}

	if ok && prio == nil {
		if rr := parseAddress(hdr, value); rr != nil {
			return rr
		}
		if rr := parseQuotedTXT(hdr, value); rr != nil {
			return rr
		}
	}

	rr := parseRData(hdr, typeName, prio, value, r.Value, origin, field, ve)
	if rr == nil || !ok {
		return nil
	}
	rr.Header().Name = owner
	// The parser accepts a type with no rdata at all ("MX ()"), the
	// form RFC 2136 uses to delete an RRset, which no zone file can hold:
	// what is kept must read back as itself. Its text is compared, not
	// its fields: a DS digest given in lower case is kept as given and
	// written in upper case, which reads back the same.
	if back, err := dns.NewRR(rr.String()); err != nil || back == nil || back.String() != rr.String() {
		ve.add(field+".value", "%q is not valid %s data: it does not make a complete record", r.Value, typeName)
		return nil
	}
	return rr
}

// parseRData parses value as the data of a record with header hdr (and
// priority prio put before it) with miekg/dns's zone parser, $INCLUDE
// refused. raw is the value as given, for messages.
func parseRData(hdr dns.RR_Header, typeName string, prio *uint16, value, raw, origin, field string, ve *ValidationError) dns.RR {
	owner, ttl, rrtype := hdr.Name, hdr.Ttl, hdr.Rrtype
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
		ve.add(field+".value", "%q is not valid %s data: %s", raw, typeName, parseErrText(err))
		return nil
	}
	if len(got) != 1 {
		ve.add(field+".value", "must make exactly one %s record, got %d", typeName, len(got))
		return nil
	}
	rr := got[0]
	if h := rr.Header(); h.Rrtype != rrtype || !strings.EqualFold(h.Name, owner) || h.Class != dns.ClassINET || h.Ttl != ttl {
		ve.add(field+".value", "%q is not valid %s data", raw, typeName)
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
			if msg := escapeAt(v, i); msg != "" {
				return msg
			}
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

// BadEscape returns a message when v, record data in master-file form,
// has a \DDD escape that named's master-file parser refuses as a syntax
// error: a backslash followed by a digit that does not start exactly three
// decimal digits (\1, \12x) or whose three digits exceed 255 (\256). This
// holds in character-strings (TXT, SPF, HINFO, NAPTR, CAA, URI, ...) and
// in names. miekg/dns reads \1 as "1" and \256 as \000, so such data would
// reach named in wire form as other bytes than a zone file holding it
// could: named-checkzone refuses the file. It returns "" when every
// escape is complete.
func BadEscape(v string) string {
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' {
			if msg := escapeAt(v, i); msg != "" {
				return msg
			}
			i++
		}
	}
	return ""
}

// escapeAt checks the escape whose backslash is at v[i]: a digit after it
// must start a \DDD escape of three digits, 000 to 255.
func escapeAt(v string, i int) string {
	if i+1 >= len(v) || !isDigit(v[i+1]) {
		return ""
	}
	n := 1
	for n < 3 && i+1+n < len(v) && isDigit(v[i+1+n]) {
		n++
	}
	esc := v[i : i+1+n]
	if n < 3 {
		return fmt.Sprintf(`has the incomplete escape %s: a backslash followed by a digit starts a \DDD escape of exactly three decimal digits, \000 to \255 (write \%03d for the byte %s, or \\ for a backslash); named's master-file parser refuses it`, esc, atoi(esc[1:]), esc[1:])
	}
	if atoi(esc[1:]) > 255 {
		return fmt.Sprintf(`has the escape %s, out of range: a \DDD escape is one byte, \000 to \255; named's master-file parser refuses it`, esc)
	}
	return ""
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
