package powerdns

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// PowerDNS's rules for the records of one RRset (its Check::checkRRSet),
// applied to a PATCH and to the rrsets of a create before anything
// reaches BIND, with PowerDNS's words: a refusal reads
// "RRset <name> IN <type>: <what>".
var (
	// atApexTypes are only allowed at the zone's apex.
	atApexTypes = map[string]bool{"SOA": true, "DNSKEY": true}
	// nonApexTypes are not allowed at the zone's apex.
	nonApexTypes = map[string]bool{"DS": true}
)

// checkApex refuses a type at a name where PowerDNS does not allow it.
func checkApex(zone, name, typ string) error {
	apex := strings.EqualFold(strings.TrimSuffix(name, "."), strings.TrimSuffix(zone, "."))
	switch {
	case apex && nonApexTypes[typ]:
		return inputErr("RRset %s IN %s: is not allowed at apex", name, typ)
	case !apex && atApexTypes[typ]:
		return inputErr("RRset %s IN %s: is only allowed at apex", name, typ)
	}
	return nil
}

// errOnlyOne is PowerDNS's refusal of a second record of a type that
// holds one (CNAME, DNAME, SOA), in the words of 4.9 and of earlier
// versions.
func errOnlyOne(label string) error {
	return inputErr("RRset %s: only one such record allowed (RRset %s has more than one record)", label, label)
}

// errDuplicate is PowerDNS's refusal of a record given twice in one
// RRset, in the words of 4.9 and of earlier versions.
func errDuplicate(label, content string) error {
	return inputErr("RRset %s: duplicate record with content \"%s\" (Duplicate record in RRset %s)", label, content, label)
}

// checkHostname refuses NS, MX and SRV content whose target is not a
// host name (letters, digits and inner hyphens in every label), as
// PowerDNS does ("non-hostname content") and as named's check-names does
// for a primary zone; a null MX or SRV target (".") is allowed.
func checkHostname(label, typ, content string) error {
	f := strings.Fields(content)
	var target string
	switch {
	case typ == "NS" && len(f) == 1:
		target = f[0]
	case typ == "MX" && len(f) == 2:
		target = f[1]
	case typ == "SRV" && len(f) == 4:
		target = f[3]
	default:
		return nil // not these types, or malformed: the zone service says how
	}
	if target == "." && typ != "NS" {
		return nil
	}
	if !isHostname(target) {
		return inputErr("RRset %s: non-hostname content %s", label, target)
	}
	return nil
}

// checkContent applies checkEscapes and checkAbsolute to a record's
// content.
func checkContent(name, typ, content string) error {
	if err := checkEscapes(name, typ, content); err != nil {
		return err
	}
	return checkAbsolute(name, typ, content)
}

// checkEscapes refuses content with a \DDD escape that named's parser
// refuses (zonemodel.BadEscape: "\1", "\256") in PowerDNS's words for
// content it does not read back as given (test_zone_rr_update_invalid_txt).
// "parsed as" shows the content as a lenient parser reads it, each such
// backslash taken as RFC 1035's \X (the digit itself); the zone model's
// reason follows.
func checkEscapes(name, typ, content string) error {
	msg := zonemodel.BadEscape(content)
	if msg == "" {
		return nil
	}
	var b strings.Builder
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c == '\\' && i+1 < len(content) {
			if zonemodel.BadEscape(content[i:i+min(4, len(content)-i)]) != "" {
				continue // the backslash of a bad escape: the digits stay
			}
			b.WriteByte(c)
			i++
			c = content[i]
		}
		b.WriteByte(c)
	}
	return inputErr("Record %s/%s '%s': Not in expected format (parsed as '%s'): the content %s", name, typ, content, b.String(), msg)
}

// isHostname reports whether every label of name is a host name label
// (RFC 952 and 1123): letters, digits and hyphens, not at either end.
func isHostname(name string) bool {
	name = strings.TrimSuffix(name, ".")
	if name == "" {
		return false
	}
	for _, l := range strings.Split(name, ".") {
		if l == "" || l[0] == '-' || l[len(l)-1] == '-' {
			return false
		}
		for i := 0; i < len(l); i++ {
			c := l[i]
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// contentKey is record content as compared for duplicates: fields
// separated by one space, lower-cased.
func contentKey(content string) string {
	return strings.ToLower(strings.Join(strings.Fields(content), " "))
}

// trimmedRecords returns the records with the white space around their
// content removed (a copy when any changes).
func trimmedRecords(recs []Record) []Record {
	var out []Record
	for i, r := range recs {
		if c := strings.TrimSpace(r.Content); c != r.Content {
			if out == nil {
				out = append([]Record(nil), recs...)
			}
			out[i].Content = c
		}
	}
	if out == nil {
		return recs
	}
	return out
}

// checkComments refuses a comment whose modified_at is not a Unix time
// PowerDNS keeps (0 to 2^32-1), in its words.
func checkComments(cs []Comment) error {
	for _, c := range cs {
		if c.ModifiedAt == "" {
			continue
		}
		if _, err := strconv.ParseUint(string(c.ModifiedAt), 10, 32); err != nil {
			return inputErr("Key 'modified_at' is out of range (Value for key 'modified_at' is out of range: %s)", c.ModifiedAt)
		}
	}
	return nil
}

// checkExclusive refuses a CNAME beside another RRset of its name among
// the RRsets a request gives whole (a create, or a PUT that replaces the
// zone), in PowerDNS's words: its checkRRSet orders an owner's RRsets by
// type number and names the first pair that holds a CNAME ("RRset x IN
// CNAME: conflicts with existing NS RRset of the same name"). byName maps
// each owner to its types.
func checkExclusive(byName map[string][]string) error {
	names := make([]string, 0, len(byName))
	for n := range byName {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		types := slices.Clone(byName[n])
		if !slices.Contains(types, "CNAME") || len(types) < 2 {
			continue
		}
		sort.Slice(types, func(i, j int) bool { return typeCode(types[i]) < typeCode(types[j]) })
		for i := 1; i < len(types); i++ {
			if types[i] == "CNAME" || types[i-1] == "CNAME" {
				return inputErr("RRset %s IN %s: conflicts with existing %s RRset of the same name (Conflicts with another RRset)", n, types[i], types[i-1])
			}
		}
	}
	return nil
}

// typeCode is a record type's number (0 when unknown): PowerDNS orders an
// owner's RRsets by it.
func typeCode(t string) uint16 {
	if zonemodel.IsSOAType(t) {
		return 6 // not a type of the record endpoints, but one here
	}
	n, _ := zonemodel.ParseRecordType(t)
	return n
}

// zoneName checks a zone name as CanonicalName does, in the words
// PowerDNS uses for zone names ("Unable to parse Zone Name", 5.x) and
// for any name (earlier versions).
func zoneName(name string) (string, error) {
	n, err := CanonicalName(name)
	if err != nil {
		msg := err.Error()
		if strings.HasPrefix(msg, "Unable to parse DNS Name") {
			msg = "Unable to parse Zone Name '" + name + "': " + msg
		}
		return "", &InputError{Message: msg}
	}
	return n, nil
}

// consumerRules are PowerDNS's refusals of a Consumer zone's create that
// gives name servers or zone data, checked (in its words) before the kind
// itself is refused here.
func consumerRules(req *ZoneRequest) error {
	if !strings.EqualFold(req.Kind, KindConsumer) {
		return nil
	}
	if len(req.Nameservers) > 0 {
		return inputErr("Nameservers MUST NOT be given for Consumer zones")
	}
	if len(req.RRsets) > 0 || req.Zone != nil && *req.Zone != "" {
		return inputErr("Zone data MUST NOT be given for Consumer zones")
	}
	return nil
}

// hasApexSOA reports whether sets hold the zone's SOA RRset, which a PUT
// that replaces every RRset must give (PowerDNS refuses it otherwise).
func hasApexSOA(zone string, sets []RRset) bool {
	for _, s := range sets {
		if strings.EqualFold(s.Type, "SOA") && strings.EqualFold(FQDN(s.Name), FQDN(zone)) {
			return true
		}
	}
	return false
}
