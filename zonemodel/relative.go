package zonemodel

import "strings"

// HasRelativeNames reports whether value, as the data of a record of
// type typ, holds a domain name without its trailing dot, which a zone
// file completes with the origin (MX "10 mail" is mail.<origin>). APIs
// whose clients must send absolute names (the PowerDNS API) refuse such
// data instead of guessing. Data that does not parse reports false: its
// own validation says why.
func HasRelativeNames(typ, value string) bool {
	if noNameTypes[strings.ToUpper(typ)] {
		return false
	}
	return parsedUnderTwoOrigins(typ, value)
}

// noNameTypes are types whose data holds no domain name, so that their
// data reads the same under any origin: HasRelativeNames needs no parse
// for them (FuzzHasRelativeNames checks each against the parse).
var noNameTypes = map[string]bool{
	"A": true, "AAAA": true, "TXT": true, "SPF": true, "CAA": true, "SSHFP": true,
	"TLSA": true, "DS": true, "CDS": true, "DNSKEY": true, "CDNSKEY": true, "HINFO": true,
}

// parsedUnderTwoOrigins parses value as typ data under two origins and
// reports whether the two differ (some name in it is relative).
func parsedUnderTwoOrigins(typ, value string) bool {
	a, err := ParseRecord("origin-a.invalid", 0, "@", typ, value, nil, nil, "", "value")
	if err != nil {
		return false
	}
	b, err := ParseRecord("origin-b.invalid", 0, "@", typ, value, nil, nil, "", "value")
	if err != nil {
		return false
	}
	return RDataText(a) != RDataText(b)
}
