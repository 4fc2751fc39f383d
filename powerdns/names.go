package powerdns

import (
	"fmt"
	"strconv"
	"strings"
)

// ZoneID is the id PowerDNS gives the zone named name (canonical, without
// the trailing dot; "" or "." is the root): the name with its trailing
// dot, every byte other than a letter, digit, '.' or '-' written =XX (so
// '/' is =2F and '_' is =5F), and the root "=2E".
func ZoneID(name string) string {
	fqdn := strings.TrimSuffix(name, ".") + "."
	if fqdn == "." {
		return "=2E"
	}
	var b strings.Builder
	for i := 0; i < len(fqdn); i++ {
		c := fqdn[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "=%02X", c)
	}
	return b.String()
}

// ZoneName decodes a zone id (=XX escapes) into the zone's name, as
// PowerDNS does; a name without its trailing dot is accepted too. It does
// not validate the name.
func ZoneName(id string) string {
	if !strings.Contains(id, "=") {
		return id
	}
	var b strings.Builder
	for i := 0; i < len(id); i++ {
		if id[i] == '=' && i+2 < len(id) {
			if v, err := strconv.ParseUint(id[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(v))
				i += 2
				continue
			}
		}
		b.WriteByte(id[i])
	}
	return b.String()
}

// FQDN is the canonical name with its trailing dot, as PowerDNS writes
// names.
func FQDN(name string) string {
	return strings.TrimSuffix(name, ".") + "."
}

// Zone kinds: PowerDNS's names and what they are in BIND.
const (
	KindNative    = "Native"
	KindMaster    = "Master"
	KindSlave     = "Slave"
	KindPrimary   = "Primary"
	KindSecondary = "Secondary"
	KindProducer  = "Producer"
	KindConsumer  = "Consumer"

	BINDPrimary   = "primary"
	BINDSecondary = "secondary"
)

// BINDType maps a PowerDNS zone kind (case-insensitive, as PowerDNS reads
// it) onto BIND's zone type: Native, Master and Primary are a primary
// zone (BIND notifies and serves transfers either way), Slave and
// Secondary a secondary. Producer and Consumer (catalog zones) and
// unknown kinds are refused; an empty kind is Native, as in PowerDNS.
func BINDType(kind string) (string, error) {
	switch strings.ToLower(kind) {
	case "", "native", "master", "primary":
		return BINDPrimary, nil
	case "slave", "secondary":
		return BINDSecondary, nil
	case "producer":
		return "", fmt.Errorf("zone kind %s is not supported: the catalog zone is kept by the catalog option of zone_api (RFC 9432), not created as a zone", kind)
	case "consumer":
		return "", fmt.Errorf("zone kind %s is not supported: named consumes a catalog zone (makes its members) only when named.conf defines the zone and names it in catalog-zones; a zone added through the API would be a copy of the catalog whose members named never makes. Configure the consumer in named.conf, or create the member zones as Slave zones", kind)
	}
	return "", fmt.Errorf("zone kind %q is not one of Native, Master, Slave, Primary, Secondary", kind)
}

// Kind is the PowerDNS kind of a BIND zone type: primary zones are
// Master (they send NOTIFY and serve transfers, which is what PowerDNS
// clients test Master for), secondary zones Slave.
func Kind(bindType string) string {
	switch strings.ToLower(bindType) {
	case BINDSecondary, "slave":
		return KindSlave
	}
	return KindMaster
}

// CanonicalName checks that a name is in PowerDNS's canonical form (ends
// with a dot) and returns it lower-cased, or an error in PowerDNS's words.
func CanonicalName(name string) (string, error) {
	if !strings.HasSuffix(name, ".") {
		return "", fmt.Errorf("DNS Name '%s' is not canonical", name)
	}
	if strings.Contains(name, "..") || strings.HasPrefix(name, ".") && name != "." {
		return "", fmt.Errorf("Unable to parse DNS Name '%s': empty label", name)
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`:"'\;()@$`, c) >= 0 {
			return "", fmt.Errorf("Name '%s' contains unsupported characters", name)
		}
	}
	return strings.ToLower(name), nil
}

// InZone reports whether the absolute name is the zone's apex or below
// it.
func InZone(name, zone string) bool {
	name, origin := strings.ToLower(FQDN(name)), strings.ToLower(FQDN(zone))
	return name == origin || origin == "." || strings.HasSuffix(name, "."+origin)
}

// DefaultMailbox is the mailbox of PowerDNS's default SOA for the zone
// name (with its trailing dot): hostmaster.<zone>, as its
// default-soa-content "hostmaster.@" gives; but for a zone with a '/' in
// a label (0/25.2.0.192.in-addr.arpa.) hostmaster at the nearest
// enclosing name without one (hostmaster.2.0.192.in-addr.arpa.), since
// named's check-names refuses an SOA mailbox whose domain is not a host
// name, and the zone with it.
func DefaultMailbox(name string) string {
	name = FQDN(name)
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i:]
		name = name[strings.IndexByte(name, '.')+1:]
	}
	return "hostmaster." + strings.TrimPrefix(name, ".")
}
