package zonemodel

import (
	"strings"

	"github.com/miekg/dns"
)

// ParseListType parses the type a record listing (or a page of changes)
// is filtered by: the types ParseRecordType accepts, and SOA.
func ParseListType(v string) (uint16, error) {
	if strings.EqualFold(v, "SOA") {
		return dns.TypeSOA, nil
	}
	return ParseRecordType(v)
}
