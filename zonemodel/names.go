package zonemodel

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/miekg/dns"
)

// Limits from RFC 1035 and RFC 2181.
const (
	maxNameLen  = 253
	maxLabelLen = 63
	maxTTL      = 2147483647
)

// Root is the canonical name of the root zone: ".", the one canonical
// name with a trailing dot (dropping it would leave the empty name, which
// means no zone). named serves a root zone as any other ("." on rndc's
// command line, in showzone and in the statistics channel), and PowerDNS
// names it "." (zone id "=2E").
const Root = "."

// NormalizeZoneName validates a zone name from a path or a body and returns
// its canonical form (lower-case, no trailing dot; the root zone is Root),
// or an error whose message is suitable for a 400 response.
func NormalizeZoneName(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("zone name must not be empty")
	}
	if s == Root {
		return Root, nil
	}
	if strings.Contains(s, "..") {
		return "", fmt.Errorf("zone name must not contain '..'")
	}
	if strings.HasSuffix(s, ".") {
		s = s[:len(s)-1]
	}
	if len(s) > maxNameLen {
		return "", fmt.Errorf("zone name is longer than %d characters", maxNameLen)
	}
	if msg := checkLabels(s, false); msg != "" {
		return "", fmt.Errorf("zone name %s", msg)
	}
	return strings.ToLower(s), nil
}

// Origin is the canonical zone name as an absolute domain name: the name
// with its trailing dot, and "." for the root zone (whose canonical name
// is already "."). A name given without the dot ("" for the root, as
// strings.TrimSuffix leaves it) gets it too.
func Origin(zone string) string {
	if zone == Root {
		return Root
	}
	return zone + "."
}

// ZoneOfOrigin is the canonical zone name of an absolute name read from
// DNS or from named (lower-cased by the caller when it must be): the name
// without its trailing dot, and Root for "." (where strings.TrimSuffix
// would leave the empty name). The inverse of Origin. The empty name
// stays empty: it is no zone (an unset field), never the root.
func ZoneOfOrigin(fqdn string) string {
	if fqdn == Root {
		return Root
	}
	return strings.TrimSuffix(fqdn, ".")
}

// checkLabels checks dot-separated labels (no trailing dot) and returns a
// message fragment like `label "a b" contains invalid character ' '`, or "".
// A label may hold '/' (RFC 2317's classless in-addr.arpa zones, such as
// 0/25.2.0.192.in-addr.arpa, which named serves and PowerDNS accepts): it
// is an ordinary character in a DNS name, and the zone directory's file
// names escape it (zonestore.FileBase).
func checkLabels(s string, allowWildcard bool) string {
	if strings.HasPrefix(s, ".") {
		return "must not start with '.'"
	}
	if strings.Contains(s, "..") {
		return "must not contain '..'"
	}
	for i, rest := 0, s; ; i++ {
		// The labels one by one, without splitting s into a slice.
		l := rest
		dot := strings.IndexByte(rest, '.')
		if dot >= 0 {
			l, rest = rest[:dot], rest[dot+1:]
		}
		if allowWildcard && i == 0 && l == "*" {
			if dot < 0 {
				return ""
			}
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
			if !isLabelChar(c) && c != '/' {
				if c == '*' && allowWildcard {
					return fmt.Sprintf("label %q: '*' is allowed only as the whole first label", l)
				}
				return fmt.Sprintf("label %q contains invalid character %s", l, quoteCharAt(l, j))
			}
		}
		if l[0] == '-' || l[len(l)-1] == '-' {
			return fmt.Sprintf("label %q must not start or end with '-'", l)
		}
		if dot < 0 {
			return ""
		}
	}
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

// quoteCharAt quotes the character that starts at byte i of s: the whole
// UTF-8 sequence, so that "é" is named as 'é' and not as the Latin-1
// reading of its first byte ('Ã'); a byte that starts no valid sequence is
// named by its value.
func quoteCharAt(s string, i int) string {
	if c := s[i]; c < utf8.RuneSelf {
		return quoteChar(c)
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size <= 1 {
		return fmt.Sprintf("byte 0x%02x", s[i])
	}
	return strconv.QuoteRune(r)
}

// CheckIdentifier validates an rndc identifier such as a key or policy name,
// [A-Za-z0-9._-]{1,253}, and returns what is wrong with it, or "".
func CheckIdentifier(s string) string {
	if s == "" {
		return "must not be empty"
	}
	if len(s) > maxNameLen {
		return fmt.Sprintf("is longer than %d characters", maxNameLen)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLabelChar(c) && c != '.' {
			return fmt.Sprintf("contains invalid character %s (allowed: A-Z a-z 0-9 . _ -)", quoteCharAt(s, i))
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
	switch {
	case s == ".":
		// The root name is in the root zone only (its apex).
		if origin != Root {
			return "", "must not be the root name"
		}
		return Root, ""
	case strings.HasSuffix(s, "."):
		fqdn = s
	case origin == Root:
		fqdn = s + "."
	default:
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

// InZone reports whether the absolute name is the origin or below it (label
// boundary checked); every absolute name is in the root zone.
func InZone(fqdn, origin string) bool { return inZone(fqdn, origin) }

func inZone(fqdn, origin string) bool {
	if origin == Root {
		return strings.HasSuffix(fqdn, ".")
	}
	return fqdn == origin || strings.HasSuffix(fqdn, "."+origin)
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
		if _, domain, _ := strings.Cut(n, "."); strings.Contains(domain, "/") {
			return "", mailboxSlash(s, domain)
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
			return "", fmt.Sprintf("local part %q contains invalid character %s (allowed: A-Z a-z 0-9 . + _ -)", local, quoteCharAt(local, i))
		}
	}
	if local[0] == '.' || local[len(local)-1] == '.' || strings.Contains(local, "..") {
		return "", fmt.Sprintf("local part %q has a misplaced '.'", local)
	}
	d, msg := resolveName(dns.Fqdn(domain), origin, false)
	if msg != "" {
		return "", "domain " + msg
	}
	if strings.Contains(d, "/") {
		return "", mailboxSlash(s, d)
	}
	mbox := strings.ReplaceAll(strings.ToLower(local), ".", `\.`) + "." + d
	if d == Root {
		mbox = mbox[:len(mbox)-1]
	}
	if _, ok := dns.IsDomainName(mbox); !ok || len(mbox) > maxNameLen+1 {
		return "", fmt.Sprintf("%q does not make a valid mailbox name", s)
	}
	return mbox, ""
}

// mailboxSlash is the refusal of a mailbox whose domain has a '/' in a
// label: a zone may be named so (0/25.2.0.192.in-addr.arpa), but named's
// check-names (fail in a primary zone) takes an SOA mailbox only in a
// domain of host names, and refuses the whole zone otherwise.
func mailboxSlash(s, domain string) string {
	return fmt.Sprintf("%q: the mailbox's domain %s is not a host name (a '/' in a label), which named's check-names refuses in an SOA; give a mailbox in another domain, such as hostmaster@example.net", s, domain)
}

// absoluteIfInZone appends the root dot to a name that is the zone name or
// ends in ".<zone>" (case-insensitively, on a label boundary), so that
// bindcar clients' "www.example.com" means www.example.com.
func absoluteIfInZone(name, origin string) string {
	if name == "" || strings.HasSuffix(name, ".") {
		return name
	}
	zone := strings.TrimSuffix(origin, ".")
	if !IsASCII(name) {
		lower := strings.ToLower(name)
		if lower == zone || strings.HasSuffix(lower, "."+zone) {
			return name + "."
		}
		return name
	}
	// ASCII, compared in place: no lower-cased copy or ".<zone>" per name.
	// The lower-cased name is compared with the zone as given, so a zone
	// that lower-casing changes matches no name (strings.ToLower returns
	// a lower-case ASCII zone itself, without allocating).
	if n := len(name) - len(zone); n == 0 || n > 0 && name[n-1] == '.' {
		if FoldEqual(name[n:], zone) && strings.ToLower(zone) == zone {
			return name + "."
		}
	}
	return name
}

// FoldEqual reports whether strings.ToLower(a) == strings.ToLower(b),
// without allocating when both are ASCII: there Unicode lower-casing is
// ASCII's, so strings.EqualFold gives the same answer. DNS names compare
// so (RFC 4343, ASCII case only), and so do the keys of the API's JSON
// bodies when the module looks for duplicates.
func FoldEqual(a, b string) bool {
	if !IsASCII(a) || !IsASCII(b) {
		return strings.ToLower(a) == strings.ToLower(b)
	}
	return strings.EqualFold(a, b)
}

// IsASCII reports whether s has no byte above 0x7F.
func IsASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
