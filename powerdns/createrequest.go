package powerdns

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// CreateRequest translates a PowerDNS zone creation into the zone
// service's: kind → zone type, masters → primaries, nameservers (or the
// apex NS RRset) → the apex NS records, an SOA RRset or serial → the SOA
// (PowerDNS's default SOA otherwise, defaultSOA), other RRsets → records. Unknown fields are ignored as PowerDNS
// does; zone file text ("zone") is not translated (createZone imports
// it). labels name, for each record of
// the result, the RRset it came from ("www.example.com. IN A").
func CreateRequest(req *ZoneRequest) (out *zonemodel.CreateZoneRequest, labels []string, err error) {
	out, labels, _, err = createRequest(req)
	return out, labels, err
}

// createExplain names the RRset of a record in the zone service's
// errors about a create ("zoneConfig.records[3]"), and speaks of rrsets
// where the zone API's fields would not mean anything to the client.
func createExplain(labels []string) func(field, msg string) string {
	return func(field, msg string) string {
		msg = strings.ReplaceAll(msg, "add it to zoneConfig.nameServerIps", "give its A or AAAA record in rrsets (BIND does not load a zone whose name server inside it has no address)")
		var i int
		if _, err := fmt.Sscanf(field, "zoneConfig.records[%d]", &i); err == nil && i >= 0 && i < len(labels) {
			return "RRset " + labels[i] + ": " + msg
		}
		if strings.HasPrefix(field, "zoneConfig.nameServers") {
			return "Nameserver: " + msg
		}
		if field == "" {
			return msg
		}
		return field + ": " + msg
	}
}

func createRequest(req *ZoneRequest) (*zonemodel.CreateZoneRequest, []string, *zoneData, error) {
	out, labels, data, err := createRequestData(req)
	if err != nil {
		return nil, nil, nil, err
	}
	dataFromRequest(data, req, out.ZoneType)
	return out, labels, data, nil
}

// createRequestData is createRequest but for the zone attributes: data
// holds the rrsets' comments and disabled records, which named does not
// get.
func createRequestData(req *ZoneRequest) (*zonemodel.CreateZoneRequest, []string, *zoneData, error) {
	var labels []string
	data := &zoneData{}
	now := time.Now()
	name, err := zoneName(req.Name)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := consumerRules(req); err != nil {
		return nil, nil, nil, err
	}
	typ, err := BINDType(req.Kind)
	if err != nil {
		return nil, nil, nil, &InputError{Message: err.Error()}
	}
	if req.Zone != nil && *req.Zone != "" {
		return nil, nil, nil, inputErr("zone file text (\"zone\") is imported by the create endpoint, not translated into a create request")
	}
	out := &zonemodel.CreateZoneRequest{ZoneName: zonemodel.ZoneOfOrigin(name), ZoneType: typ}
	if typ == BINDSecondary {
		if len(req.Masters) == 0 {
			return nil, nil, nil, inputErr("a Slave zone needs masters")
		}
		out.ZoneConfig = &zonemodel.ZoneConfig{Primaries: req.Masters}
		return out, nil, data, nil
	}
	if len(req.Masters) > 0 {
		return nil, nil, nil, inputErr("masters are only for Slave zones (kind %s)", req.Kind)
	}
	zc := &zonemodel.ZoneConfig{TTL: defaultTTL}
	for _, ns := range req.Nameservers {
		n, err := CanonicalName(ns)
		if err != nil {
			return nil, nil, nil, inputErr("Nameserver is not canonical: '%s'", ns)
		}
		zc.NameServers = append(zc.NameServers, n)
	}
	soa := defaultSOA(name, req.Serial)
	seen := map[string]bool{}
	byName := map[string][]string{}
	if len(req.Nameservers) > 0 {
		byName[name] = []string{"NS"}
	}
	for _, s := range req.RRsets {
		sn, err := CanonicalName(s.Name)
		if err != nil {
			return nil, nil, nil, &InputError{Message: err.Error()}
		}
		st := strings.ToUpper(s.Type)
		label := sn + " IN " + st
		if seen[label] {
			return nil, nil, nil, inputErr("Duplicate RRset %s", label)
		}
		seen[label] = true
		if len(s.Records) > 0 {
			byName[sn] = append(byName[sn], st)
		}
		if !InZone(sn, name) {
			return nil, nil, nil, inputErr("RRset %s: Name is out of zone", label)
		}
		if why, ok := refusedTypes[st]; ok {
			return nil, nil, nil, inputErr("RRset %s: %s", label, why)
		}
		if err := checkComments(s.Comments); err != nil {
			return nil, nil, nil, err
		}
		if hasComments(s.Comments) {
			data.rrset(sn, st).Comments = nowComments(s.Comments, now)
		}
		if err := checkApex(name, sn, st); err != nil {
			return nil, nil, nil, err
		}
		dup := map[string]bool{}
		var enabled []Record
		for _, rec := range s.Records {
			if rec.Disabled && (st == "SOA" || st == "DNSKEY") {
				return nil, nil, nil, inputErr("RRset %s: disabling the %s record is not supported: BIND serves a zone only with it", label, st)
			}
			if err := checkContent(sn, st, rec.Content); err != nil {
				return nil, nil, nil, err
			}
			if err := checkHostname(label, st, rec.Content); err != nil {
				return nil, nil, nil, err
			}
			k := contentKey(rec.Content)
			if dup[k] {
				return nil, nil, nil, errDuplicate(label, rec.Content)
			}
			dup[k] = true
			if rec.Disabled {
				// Kept in the side file, not served.
				rs := data.rrset(sn, st)
				rs.Disabled = append(rs.Disabled, rec.Content)
				if s.TTL != nil {
					rs.TTL = *s.TTL
				}
				continue
			}
			enabled = append(enabled, rec)
		}
		s.Records = enabled
		if singletonTypes[st] && len(s.Records) > 1 {
			return nil, nil, nil, errOnlyOne(label)
		}
		switch {
		case st == "SOA":
			if len(s.Records) == 0 {
				continue
			}
			if err := soaFromContent(s.Records[0].Content, soa, req.Serial != nil); err != nil {
				return nil, nil, nil, inputErr("RRset %s: %v", label, err)
			}
		case st == "NS" && sn == name:
			if len(req.Nameservers) > 0 {
				return nil, nil, nil, inputErr("Nameservers list MUST NOT be mixed with zone-level NS in rrsets")
			}
			for _, rec := range s.Records {
				zc.NameServers = append(zc.NameServers, rec.Content)
			}
		default:
			var ttl *uint32
			if s.TTL != nil {
				v := *s.TTL
				ttl = &v
			}
			for _, rec := range s.Records {
				zc.Records = append(zc.Records, zonemodel.Record{Name: sn, Type: st, Value: rec.Content, TTL: ttl})
				labels = append(labels, label)
			}
		}
	}
	if err := checkExclusive(byName); err != nil {
		return nil, nil, nil, err
	}
	if len(zc.NameServers) == 0 {
		return nil, nil, nil, inputErr("a zone needs nameservers (or an NS RRset at its apex): BIND refuses to load a zone without NS records")
	}
	editSerial(soa, req)
	zc.SOA = soa
	if req.DNSSEC != nil && *req.DNSSEC {
		zc.DNSSECPolicy = "default" // BIND's default policy: one CSK, ECDSAP256SHA256
	}
	out.ZoneConfig = zc
	return out, labels, data, nil
}

// editSerial applies the request's SOA-EDIT-API (DEFAULT when absent, as
// in PowerDNS) to the serial it gives (in serial or its SOA; 0 when
// none). A serial the edit leaves at 0 stays unset: the zone API's
// default then.
func editSerial(soa *zonemodel.SOA, req *ZoneRequest) {
	api, edit := SOAEditAPIDefault, ""
	if req.SOAEditAPI != nil {
		api = *req.SOAEditAPI
	}
	if req.SOAEdit != nil {
		edit = *req.SOAEdit
	}
	var given uint32
	if soa.Serial != nil {
		given = *soa.Serial
	}
	s := CreateSerial(given, api, edit, time.Now())
	soa.Serial = &s
}

// PowerDNS's default-soa-content, the SOA of a zone created without one:
// "a.misconfigured.dns.server.invalid hostmaster.@ 0 10800 3600 604800
// 3600" (MNAME a name that resolves nowhere: BIND, like PowerDNS, sends
// NOTIFY to every name server then).
const (
	defaultSOAMName   = "a.misconfigured.dns.server.invalid."
	defaultSOARefresh = 10800
	defaultSOARetry   = 3600
	defaultSOAExpire  = 604800
	defaultSOAMinimum = 3600
)

// defaultSOA is PowerDNS's default SOA of zone name (with its trailing
// dot), serial the one given (0 when nil).
func defaultSOA(name string, serial *uint32) *zonemodel.SOA {
	refresh, retry, expire, minimum := uint32(defaultSOARefresh), uint32(defaultSOARetry), uint32(defaultSOAExpire), uint32(defaultSOAMinimum)
	var sr uint32
	if serial != nil {
		sr = *serial
	}
	return &zonemodel.SOA{PrimaryNS: defaultSOAMName, AdminEmail: DefaultMailbox(name), Serial: &sr,
		Refresh: &refresh, Retry: &retry, Expire: &expire, NegativeTTL: &minimum}
}

// soaFromContent reads SOA content ("mname rname serial refresh retry
// expire minimum") into soa; keepSerial keeps a serial given apart.
func soaFromContent(content string, soa *zonemodel.SOA, keepSerial bool) error {
	f := strings.Fields(content)
	if len(f) != 7 {
		return errNotSOA(content)
	}
	var n [5]uint32
	for i := range n {
		v, err := strconv.ParseUint(f[2+i], 10, 32)
		if err != nil {
			return errNotSOA(content)
		}
		n[i] = uint32(v)
	}
	soa.PrimaryNS, soa.AdminEmail = f[0], f[1]
	if !keepSerial {
		soa.Serial = &n[0]
	}
	soa.Refresh, soa.Retry, soa.Expire, soa.NegativeTTL = &n[1], &n[2], &n[3], &n[4]
	return nil
}

func errNotSOA(content string) error {
	return inputErr("Not in expected format (SOA content: mname rname serial refresh retry expire minimum): '%s'", content)
}
