package powerdns

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// zoneObject is the PowerDNS zone object of a zone.
func zoneObject(z *ZoneInfo) Zone {
	id := ZoneID(z.Name)
	masters := z.Primaries
	if masters == nil || z.Type != BINDSecondary {
		masters = []string{}
	}
	return Zone{
		ID: id, Name: FQDN(z.Name), Type: "Zone", URL: Prefix + "/zones/" + id, Kind: Kind(z.Type),
		Serial: z.Serial, NotifiedSerial: z.Serial, EditedSerial: z.Serial, Masters: masters,
		DNSSEC: z.Signing(), SOAEditAPI: "DEFAULT", MasterTSIGKeyIDs: []string{}, SlaveTSIGKeyIDs: []string{},
	}
}

// signerTypes are the records named's signer makes and keeps (the
// signatures, the NSEC or NSEC3 chain and its parameters, BIND's private
// signing state): PowerDNS shows none of them in a zone's RRsets, as it
// makes them when it answers; the DNSKEY RRset is shown.
var signerTypes = map[string]bool{"RRSIG": true, "NSEC": true, "NSEC3": true, "NSEC3PARAM": true, "TYPE65534": true}

// rrsetObjects are the PowerDNS RRsets of the zone's RRsets the grant
// allows, keeping those name (and typ) select when not empty.
func rrsetObjects(sets []zonemodel.RRset, g *auth.Grant, name, typ string) []RRset {
	out := []RRset{}
	for _, s := range sets {
		if signerTypes[s.Type] {
			continue
		}
		if name != "" && !strings.EqualFold(s.Name, name) || typ != "" && !strings.EqualFold(s.Type, typ) || !g.AllowsRecord(s.Name, s.Type) {
			continue
		}
		ttl := s.TTL
		rs := RRset{Name: s.Name, Type: s.Type, TTL: &ttl, Records: make([]Record, len(s.Values)), Comments: []Comment{}}
		for i, v := range s.Values {
			if s.Type == "SOA" {
				v = soaContent(v)
			}
			rs.Records[i] = Record{Content: v}
		}
		out = append(out, rs)
	}
	return out
}

// zoneArg resolves the zone of a route, answering 404 for a name that is
// not a zone name at all.
func zoneArg(w http.ResponseWriter, zone string) (string, bool) {
	name, err := zonemodel.NormalizeZoneName(zone)
	if err != nil {
		WriteError(w, http.StatusNotFound, "Could not find domain '%s'", zone)
		return "", false
	}
	return name, true
}

// boolParam reads a "true"/"false" query parameter.
func boolParam(w http.ResponseWriter, r *http.Request, key string, def bool) (bool, bool) {
	v := r.URL.Query().Get(key)
	switch v {
	case "":
		return def, true
	case "true":
		return true, true
	case "false":
		return false, true
	}
	WriteError(w, http.StatusUnprocessableEntity, "'%s' request parameter value '%s' is not supported", key, v)
	return false, false
}

// listZones answers GET /zones (?zone= keeps one zone, as PowerDNS: an
// empty list when it does not exist). Zones outside the identity's
// scope are left out. Listed zones carry the serial named's statistics
// channel last reported (0 without one configured, and for a zone created
// since); with ?zone= the serial is named's current one. GET the zone for
// the current serial.
func (a *API) listZones(w http.ResponseWriter, r *http.Request, _ string) {
	withDNSSEC, ok := boolParam(w, r, "dnssec", true)
	if !ok {
		return
	}
	// The side files there are, read for their zones only.
	sf := a.sideFiles()
	var withData map[string]bool
	if sf != nil {
		withData, _ = sf.SideFileZones(zonemodel.SideKindPowerDNS)
	}
	item := func(z *ZoneInfo) ZoneListItem {
		o := zoneObject(z)
		d := &zoneData{}
		if withData[z.Name] {
			if rd, err := readData(sf, z); err == nil {
				d = rd
			}
		}
		applyData(&o, z, d)
		it := ZoneListItem{ID: o.ID, Name: o.Name, URL: o.URL, Kind: o.Kind, Serial: o.Serial, NotifiedSerial: o.NotifiedSerial,
			Masters: o.Masters, LastCheck: o.LastCheck, Account: o.Account, Catalog: o.Catalog}
		if withDNSSEC {
			it.EditedSerial, it.DNSSEC = &o.EditedSerial, &o.DNSSEC
		}
		if grant(r).RestrictsRecords() {
			it.Masters = []string{} // configuration, as in writeZone
		}
		return it
	}
	g := grant(r)
	if q := r.URL.Query().Get("zone"); q != "" {
		out := []ZoneListItem{}
		if name, err := zonemodel.NormalizeZoneName(ZoneName(q)); err == nil && g.AllowsZone(name) {
			if z, err := a.Service.DescribeZone(r.Context(), name); err == nil {
				out = append(out, item(z))
			} else if failureOf(err).status != http.StatusNotFound {
				a.fail(w, err, nil, false)
				return
			}
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if p, ok := a.Service.(zonePager); ok {
		a.streamZones(w, r, p, g, item)
		return
	}
	zones, err := a.Service.ListZones(r.Context())
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	out := make([]ZoneListItem, 0, len(zones))
	for i := range zones {
		if g.AllowsZone(zones[i].Name) {
			out = append(out, item(&zones[i]))
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// zonePager is a service that lists its zones a page at a time: in name
// order, at most limit after cursor ("" from the start), with the cursor
// of the next page ("" after the last).
type zonePager interface {
	ZonesPage(ctx context.Context, cursor string, limit int) (zones []ZoneInfo, next string, err error)
}

// zoneListPage is how many zones streamZones asks for at a time.
const zoneListPage = 1000

// streamZones writes the zone list as listZones does, the same bytes, a
// page of zones at a time, so that neither the list nor its answer is
// held whole, whatever the number of zones. A failure before the first
// byte is answered as listZones answers it; a later one ends the answer
// short (invalid JSON), which the client sees as an error.
func (a *API) streamZones(w http.ResponseWriter, r *http.Request, p zonePager, g *auth.Grant, item func(*ZoneInfo) ZoneListItem) {
	zones, next, err := p.ZonesPage(r.Context(), "", zoneListPage)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	sep := byte('[')
	for {
		for i := range zones {
			if !g.AllowsZone(zones[i].Name) {
				continue
			}
			b, err := json.Marshal(item(&zones[i]))
			if err != nil {
				return
			}
			_ = bw.WriteByte(sep)
			_, _ = bw.Write(b)
			sep = ','
		}
		if next == "" {
			break
		}
		if zones, next, err = p.ZonesPage(r.Context(), next, zoneListPage); err != nil {
			_ = bw.Flush()
			return
		}
	}
	if sep == '[' {
		_ = bw.WriteByte('[')
	}
	_, _ = bw.WriteString("]\n")
	_ = bw.Flush()
}

func grant(r *http.Request) *auth.Grant {
	if id := identity(r); id != nil {
		return id.Grant
	}
	return nil
}

// getZone answers GET /zones/{id}: the zone with its RRsets (rrsets=false
// leaves them out; rrset_name and rrset_type filter them).
func (a *API) getZone(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	withSets, ok := boolParam(w, r, "rrsets", true)
	if !ok {
		return
	}
	if _, ok := boolParam(w, r, "include_disabled", true); !ok {
		return
	}
	if _, ok := boolParam(w, r, "record_count", false); !ok {
		return // writeZone reads it; a value other than true or false is refused here
	}
	q := r.URL.Query()
	rname, rtype := q.Get("rrset_name"), strings.ToUpper(q.Get("rrset_type"))
	if rtype != "" && rname == "" {
		WriteError(w, http.StatusUnprocessableEntity, "rrset_type can only be used together with rrset_name")
		return
	}
	if rname != "" {
		n, err := CanonicalName(rname)
		if err != nil {
			WriteError(w, http.StatusUnprocessableEntity, "%s", err.Error())
			return
		}
		rname = n
	}
	a.writeZoneFrom(w, r, name, http.StatusOK, withSets, rname, rtype, true)
}

// zoneCacher is a service that describes a zone from its zone cache
// (the adapter's Zones): the zone GET asks named nothing when it holds
// the zone. Its answer is Zone's.
type zoneCacher interface {
	CachedZone(ctx context.Context, zone string) (*ZoneInfo, error)
}

// zone reads the zone from the service, or answers the failure (not ok).
func (a *API) zone(w http.ResponseWriter, r *http.Request, name string) (*ZoneInfo, bool) {
	z, err := a.Service.DescribeZone(r.Context(), name)
	if err != nil {
		a.fail(w, err, nil, false)
		return nil, false
	}
	return z, true
}

// zoneAt checks the {zone} argument and reads the zone, or answers the
// failure (not ok). With config the identity must be allowed to read the
// zone's configuration (mayReadConfig), checked before the zone is read.
func (a *API) zoneAt(w http.ResponseWriter, r *http.Request, zone string, config bool) (string, *ZoneInfo, bool) {
	name, ok := zoneArg(w, zone)
	if !ok || config && !a.mayReadConfig(w, r, name) {
		return "", nil, false
	}
	z, ok := a.zone(w, r, name)
	return name, z, ok
}

// writeZone answers the zone object, read from the service.
func (a *API) writeZone(w http.ResponseWriter, r *http.Request, name string, status int, withSets bool, rname, rtype string) {
	a.writeZoneFrom(w, r, name, status, withSets, rname, rtype, false)
}

// writeZoneFrom is writeZone, with cached reading the zone from the
// service's zone cache when it has one (zoneCacher).
func (a *API) writeZoneFrom(w http.ResponseWriter, r *http.Request, name string, status int, withSets bool, rname, rtype string, cached bool) {
	var z *ZoneInfo
	if c, ok := a.Service.(zoneCacher); ok && cached {
		var err error
		if z, err = c.CachedZone(r.Context(), name); err != nil {
			a.fail(w, err, nil, false)
			return
		}
	} else if z, ok = a.zone(w, r, name); !ok {
		return
	}
	data, err := a.loadData(z)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	obj := zoneObject(z)
	applyData(&obj, z, data)
	if g := grant(r); g.RestrictsRecords() {
		// A secondary's primaries are its configuration, which a token
		// limited to some records does not read (see mayReadConfig).
		obj.Masters = []string{}
	}
	if withSets {
		sets := []RRset{}
		if z.Type != BINDSecondary || z.HasSerial {
			serial, rs, err := a.Service.Records(r.Context(), name)
			if err != nil && z.Type != BINDSecondary {
				a.fail(w, err, nil, false)
				return
			}
			if err == nil {
				obj.Serial, obj.EditedSerial, obj.NotifiedSerial = serial, serial, serial
				sets = rrsetObjects(rs, grant(r), rname, rtype)
			}
		}
		includeDisabled := r.URL.Query().Get("include_disabled") != "false"
		sets = mergeData(sets, data, includeDisabled, func(n, t string) bool {
			return (rname == "" || strings.EqualFold(n, rname)) && (rtype == "" || strings.EqualFold(t, rtype)) && grant(r).AllowsRecord(n, t)
		})
		obj.RRsets = &sets
		if r.URL.Query().Get("record_count") == "true" {
			n := 0
			for _, s := range sets {
				n += len(s.Records)
			}
			obj.RecordCount = &n
		}
	}
	writeJSON(w, status, obj)
}

// patchZone answers PATCH /zones/{id}: the RRsets' changes, checked
// against the identity's scope, as one atomic UPDATE; 204.
func (a *API) patchZone(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	var req PatchRequest
	if !decode(w, r, &req) {
		return
	}
	if req.RRsets == nil {
		WriteError(w, http.StatusUnprocessableEntity, "No rrsets given in update request")
		return
	}
	sets, side, err := splitPatch(name, *req.RRsets)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	plan, err := PlanPatch(name, sets)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	if !a.allowRecords(w, r, name, append(slices.Clone(plan.Sets), sideOnlySets(plan, side)...)) || !a.editPlanSOA(w, r, name, plan) {
		return
	}
	if a.sideTouched(name, side) {
		// Comments or disabled records: kept in the zone's side file.
		a.patchWithData(w, r, name, plan, side)
		return
	}
	if len(plan.Changes) == 0 {
		// Nothing for BIND to do (comments only, deletes outside the
		// zone); the zone must exist all the same.
		if _, ok := a.zone(w, r, name); !ok {
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	old, serial, err := a.Service.Apply(r.Context(), name, plan.Changes)
	if err != nil {
		a.fail(w, err, plan.Explain, false)
		return
	}
	setSerialHeaders(w, old, serial)
	w.WriteHeader(http.StatusNoContent)
	// The change is applied and the answer has no body: it leaves now,
	// so that the audit and request log lines and the metrics written
	// after the handler returns are not part of the client's wait (a
	// next request on the connection is still read only after them).
	_ = http.NewResponseController(w).Flush()
}

// setSerialHeaders sets PowerDNS's headers of a PATCH's serials.
func setSerialHeaders(w http.ResponseWriter, old, serial uint32) {
	w.Header().Set("X-PDNS-Old-Serial", strconv.FormatUint(uint64(old), 10))
	w.Header().Set("X-PDNS-New-Serial", strconv.FormatUint(uint64(serial), 10))
}

// deleteZone answers DELETE /zones/{id}: 204.
func (a *API) deleteZone(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	if _, err := a.Service.Delete(r.Context(), name, zonemodel.DeleteOptions{}); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// notify answers PUT /zones/{id}/notify.
func (a *API) notify(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	if _, err := a.Service.Notify(r.Context(), name); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	writeJSON(w, http.StatusOK, Result{Result: "Notification queued"})
}

// axfrRetrieve answers PUT /zones/{id}/axfr-retrieve: a secondary zone
// transfers now (rndc retransfer).
func (a *API) axfrRetrieve(w http.ResponseWriter, r *http.Request, zone string) {
	name, z, ok := a.zoneAt(w, r, zone, false)
	if !ok {
		return
	}
	if z.Type != BINDSecondary || len(z.Primaries) == 0 {
		WriteError(w, http.StatusUnprocessableEntity, "Domain '%s' is not a slave domain (or has no master defined)", FQDN(name))
		return
	}
	if _, err := a.Service.Retransfer(r.Context(), name); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	writeJSON(w, http.StatusOK, Result{Result: "Added retrieval request for '" + FQDN(name) + "' from primary " + z.Primaries[0]})
}

// rectify answers PUT /zones/{id}/rectify: BIND keeps DNSSEC data
// consistent itself, so there is nothing to do for an existing zone.
func (a *API) rectify(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	if _, ok := a.zone(w, r, name); !ok {
		return
	}
	writeJSON(w, http.StatusOK, Result{Result: "Rectified"})
}

// export answers GET /zones/{id}/export: the zone in PowerDNS's "AXFR
// format" (name, TTL, class, type, content separated by tabs), as text,
// or as {"zone": text} when the client prefers JSON.
func (a *API) export(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	if id := identity(r); id != nil && id.Grant.RestrictsRecords() {
		a.forbid(w, r, &auth.Denied{Message: id.ID + " may not export zone " + name + ": its scope limits record names or types; GET the zone instead"})
		return
	}
	_, sets, err := a.Service.Records(r.Context(), name)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	writeLines := func(out io.Writer) {
		for _, s := range sets {
			for _, v := range s.Values {
				_, _ = io.WriteString(out, s.Name+"\t"+strconv.FormatUint(uint64(s.TTL), 10)+"\tIN\t"+s.Type+"\t"+v+"\n")
			}
		}
	}
	if acceptsJSON(r) {
		var b strings.Builder
		writeLines(&b)
		writeJSON(w, http.StatusOK, map[string]string{"zone": b.String()})
		return
	}
	// The text is streamed: no second copy of the zone is built.
	w.Header().Set("Content-Type", "text/plain; charset=us-ascii")
	w.WriteHeader(http.StatusOK)
	bw := bufio.NewWriterSize(w, 64<<10)
	writeLines(bw)
	_ = bw.Flush()
}

// acceptsJSON reports whether the Accept header names JSON before any
// wildcard, as PowerDNS decides.
func acceptsJSON(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt := strings.TrimSpace(strings.SplitN(part, ";", 2)[0])
		switch mt {
		case "application/json":
			return true
		case "*/*", "text/plain":
			return false
		}
	}
	return false
}
