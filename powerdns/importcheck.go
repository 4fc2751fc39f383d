package powerdns

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// outOfZone returns PowerDNS's refusal of zone file text holding a record
// outside the zone ("RRset example.org. IN AAAA: Name is out of zone",
// test_import_zone_axfr_outofzone), "" when every record is at or below
// the zone's apex. named-checkzone only warns of such data and named
// drops it, so a zone imported here would silently lose records the
// client gave; PowerDNS refuses the zone. Text the parser refuses is
// left to the import, which names its line. The text is at most MaxBody
// bytes (the request body's bound).
func outOfZone(zone string, text []byte) string {
	rrs, err := zonemodel.ParseZoneFile(zone, text, zonemodel.MaxImportRecords)
	if err != nil {
		return ""
	}
	for _, rr := range rrs {
		if h := rr.Header(); !InZone(h.Name, zone) {
			return "RRset " + FQDN(h.Name) + " IN " + zonemodel.TypeString(h.Rrtype) + ": Name is out of zone"
		}
	}
	return ""
}
