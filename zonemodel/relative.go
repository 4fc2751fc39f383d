package zonemodel

// HasRelativeNames reports whether value, as the data of a record of
// type typ, holds a domain name without its trailing dot, which a zone
// file completes with the origin (MX "10 mail" is mail.<origin>). APIs
// whose clients must send absolute names (the PowerDNS API) refuse such
// data instead of guessing. Data that does not parse reports false: its
// own validation says why.
func HasRelativeNames(typ, value string) bool {
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
