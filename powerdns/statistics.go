package powerdns

import (
	"context"
	"encoding/json"
	"sort"
	"strconv"
)

// MapStatisticItem is a statistic of GET /statistics that PowerDNS gives
// as counts by name (response-by-qtype, response-by-rcode).
type MapStatisticItem struct {
	Name  string          `json:"name"`
	Type  string          `json:"type"`
	Value []StatisticPair `json:"value"`
}

// StatisticPair is one count of a MapStatisticItem.
type StatisticPair struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// namedServer is the part of named's statistics channel's /json/v1/server
// that has a PowerDNS counterpart.
type namedServer struct {
	Opcodes map[string]uint64 `json:"opcodes"`
	Rcodes  map[string]uint64 `json:"rcodes"`
	Qtypes  map[string]uint64 `json:"qtypes"`
	NSStats map[string]uint64 `json:"nsstats"`
}

// counterNames are PowerDNS's statistics that named counts too: the
// PowerDNS name, and where named's /json/v1/server keeps it (section,
// counter). named leaves out a counter still at zero in nsstats, which
// is 0 here.
var counterNames = []struct{ pdns, section, named string }{
	{"dnsupdate-answers", "nsstats", "UpdateDone"},
	{"dnsupdate-queries", "opcodes", "UPDATE"},
	{"dnsupdate-refused", "nsstats", "UpdateRej"},
	{"incoming-notifications", "opcodes", "NOTIFY"},
	{"noerror-packets", "rcodes", "NOERROR"},
	{"nxdomain-packets", "rcodes", "NXDOMAIN"},
	{"servfail-packets", "rcodes", "SERVFAIL"},
	{"tcp-queries", "nsstats", "QryTCP"},
	{"udp-queries", "nsstats", "QryUDP"},
}

// rcodeNames are PowerDNS's names of the response codes in
// response-by-rcode, by named's names of them.
var rcodeNames = map[string]string{
	"NOERROR": "No Error", "FORMERR": "Form Error", "SERVFAIL": "Server Failure", "NXDOMAIN": "Non-Existent domain",
	"NOTIMP": "Not Implemented", "REFUSED": "Query Refused", "YXDOMAIN": "Name Exists when it should not",
	"YXRRSET": "RR Set Exists when it should not", "NXRRSET": "RR Set that should exist does not",
	"NOTAUTH": "Server Not Authoritative for zone / Not Authorized", "NOTZONE": "Name not contained in zone",
	"BADVERS": "Bad OPT Version / TSIG Signature Failure", "BADCOOKIE": "Bad/missing Server Cookie",
}

// counterStatistics reads named's counters (the statistics channel's
// /json/v1/server through read) as PowerDNS's statistics: the
// StatisticItems of counterNames, then response-by-qtype (named's
// queries by type: it answers each) and response-by-rcode, whose maps
// list the non-zero counts as PowerDNS's do. Nothing without read, or
// when it fails: the statistics are then named's status alone.
func counterStatistics(ctx context.Context, read func(context.Context) ([]byte, error)) []any {
	if read == nil {
		return nil
	}
	b, err := read(ctx)
	if err != nil {
		return nil
	}
	var s namedServer
	if json.Unmarshal(b, &s) != nil {
		return nil
	}
	sections := map[string]map[string]uint64{"opcodes": s.Opcodes, "rcodes": s.Rcodes, "nsstats": s.NSStats}
	var out []any
	for _, c := range counterNames {
		out = append(out, StatisticItem{Name: c.pdns, Type: "StatisticItem", Value: strconv.FormatUint(sections[c.section][c.named], 10)})
	}
	counts := func(m map[string]uint64, name func(string) string) []StatisticPair {
		pairs := []StatisticPair{}
		for k, v := range m {
			if n := name(k); n != "" && v > 0 {
				pairs = append(pairs, StatisticPair{Name: n, Value: strconv.FormatUint(v, 10)})
			}
		}
		sort.Slice(pairs, func(i, j int) bool { return pairs[i].Name < pairs[j].Name })
		return pairs
	}
	out = append(out,
		MapStatisticItem{Name: "response-by-qtype", Type: "MapStatisticItem", Value: counts(s.Qtypes, func(k string) string { return k })},
		MapStatisticItem{Name: "response-by-rcode", Type: "MapStatisticItem", Value: counts(s.Rcodes, func(k string) string { return rcodeNames[k] })})
	return out
}

// statisticName is the name of an item of GET /statistics.
func statisticName(item any) string {
	switch it := item.(type) {
	case StatisticItem:
		return it.Name
	case MapStatisticItem:
		return it.Name
	}
	return ""
}
