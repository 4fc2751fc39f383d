package powerdns

import "strings"

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
