package powerdns

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// defaultTTL is the TTL of the SOA and NS records of a zone created
// without them, PowerDNS's default-ttl.
const defaultTTL = 3600

// createZone answers POST /zones: 201 with the zone (rrsets=false leaves
// its RRsets out), 409 when it exists, 422 for invalid input.
func (a *API) createZone(w http.ResponseWriter, r *http.Request, _ string) {
	withSets, ok := boolParam(w, r, "rrsets", true)
	if !ok {
		return
	}
	var req ZoneRequest
	if !decode(w, r, &req) {
		return
	}
	if req.Zone != nil && *req.Zone != "" {
		a.importZone(w, r, &req, withSets)
		return
	}
	cr, labels, data, err := createRequest(&req)
	if err != nil {
		// A zone that exists is a conflict whatever else is wrong with
		// the request, as PowerDNS answers; but only for a zone the
		// identity may create: for others the lookup would tell which
		// zones exist outside its scope (and reach named before the
		// request is authorised).
		if n, nerr := zonemodel.NormalizeZoneName(req.Name); nerr == nil && strings.HasSuffix(req.Name, ".") {
			if !a.allowZones(w, r, n) {
				return
			}
			if _, zerr := a.Service.DescribeZone(r.Context(), n); zerr == nil {
				WriteError(w, http.StatusConflict, "Conflict: Domain '%s' already exists", FQDN(n))
				return
			}
		}
		a.fail(w, err, nil, true)
		return
	}
	name, err := zonemodel.NormalizeZoneName(cr.ZoneName)
	if err != nil {
		WriteError(w, http.StatusUnprocessableEntity, "Unable to parse DNS Name '%s': %v", req.Name, err)
		return
	}
	if !a.allowZones(w, r, name) || !a.allowMasters(w, r, req.Masters) {
		return
	}
	zone, err := cr.Normalize(time.Now())
	if err == nil {
		_, err = a.Service.Create(r.Context(), zone, "")
	}
	if err != nil {
		a.fail(w, err, createExplain(labels), true)
		return
	}
	if !a.keepCreated(w, r, name, data) {
		return
	}
	w.Header().Set("Location", Prefix+"/zones/"+ZoneID(name))
	a.writeZone(w, r, name, http.StatusCreated, withSets, "", "")
}

// importZone answers POST /zones with zone file text ("zone"): the zone
// API's import of a master file, for a Native or Master zone given
// without rrsets, nameservers or masters (PowerDNS takes "zone" instead
// of them). A refused file is 422 with the line named-checkzone names.
func (a *API) importZone(w http.ResponseWriter, r *http.Request, req *ZoneRequest, withSets bool) {
	name, err := zoneName(req.Name)
	if err == nil {
		err = consumerRules(req)
	}
	if err != nil {
		WriteError(w, http.StatusUnprocessableEntity, "%s", err.Error())
		return
	}
	if typ, err := BINDType(req.Kind); err != nil || typ != BINDPrimary {
		WriteError(w, http.StatusUnprocessableEntity, "a zone given as zone file text (\"zone\") must be of kind Native or Master")
		return
	}
	if len(req.RRsets) > 0 || len(req.Nameservers) > 0 || len(req.Masters) > 0 {
		WriteError(w, http.StatusUnprocessableEntity, "give either zone file text (\"zone\") or rrsets and nameservers, not both")
		return
	}
	zone := zonemodel.ZoneOfOrigin(name)
	if !a.allowZones(w, r, zone) {
		return
	}
	if msg := outOfZone(zone, []byte(*req.Zone)); msg != "" {
		WriteError(w, http.StatusUnprocessableEntity, "%s", msg)
		return
	}
	if _, err := a.Service.Import(r.Context(), zone, &zonemodel.ImportSource{File: []byte(*req.Zone)}, ""); err != nil {
		var fe *zonemodel.FileError
		if errors.As(err, &fe) && (strings.Contains(fe.Message, "CNAME and other data") || strings.Contains(fe.Message, "CNAME is not allowed")) {
			// PowerDNS's words for a CNAME beside other data; at the
			// apex, the other data are the zone's NS records.
			msg := "Conflicts with another RRset: " + failureOf(err).msg
			if strings.HasPrefix(fe.Message, zone+": ") || strings.Contains(fe.Message, "apex") {
				msg = "RRset " + FQDN(zone) + " IN CNAME: conflicts with existing NS RRset of the same name (" + msg + ")"
			}
			WriteError(w, http.StatusUnprocessableEntity, "%s", msg)
			return
		}
		a.fail(w, err, nil, true)
		return
	}
	data := &zoneData{}
	dataFromRequest(data, req, BINDPrimary)
	if !a.keepCreated(w, r, zone, data) {
		return
	}
	w.Header().Set("Location", Prefix+"/zones/"+ZoneID(zone))
	a.writeZone(w, r, zone, http.StatusCreated, withSets, "", "")
}

// keepCreated writes a new zone's side file when the create gave
// anything to keep there. When that fails the zone is deleted again
// (a create is all or nothing) and the failure answered (not ok).
func (a *API) keepCreated(w http.ResponseWriter, r *http.Request, name string, data *zoneData) bool {
	if data.empty() {
		return true
	}
	z, ok := a.zone(w, r, name)
	if !ok {
		return false
	}
	if a.sideFiles() == nil {
		return true
	}
	err := a.updateData(r.Context(), z, func(d *zoneData) error {
		*d = *data
		return nil
	})
	if err != nil {
		_, _ = a.Service.Delete(r.Context(), name, zonemodel.DeleteOptions{})
		status := http.StatusInternalServerError
		var ie *InputError
		if errors.As(err, &ie) {
			status = http.StatusUnprocessableEntity // too much to keep
		}
		WriteError(w, status, "zone %s was not created: keeping its PowerDNS data (comments, disabled records, attributes) failed: %v", FQDN(name), err)
		return false
	}
	return true
}

// allowZones checks that the identity may create the zone (the zones
// action on it), answering 403 itself when not.
func (a *API) allowZones(w http.ResponseWriter, r *http.Request, zone string) bool {
	if a.Allow != nil {
		return a.Allow(w, r, auth.ActionZones, zone)
	}
	if id := identity(r); id != nil {
		if err := id.Grant.CheckAction(id.ID, auth.ActionZones, zone); err != nil {
			a.forbid(w, r, err)
			return false
		}
	}
	return true
}

// allowMasters checks that the identity may name these masters (they
// make named transfer from the addresses given), answering 403 itself
// when not: auth.PrimariesPolicy, with the host's networks when it has
// them (AllowPrimaries).
func (a *API) allowMasters(w http.ResponseWriter, r *http.Request, masters []string) bool {
	return a.allowServers(w, r, masters, a.AllowPrimaries, auth.PrimariesPolicy)
}

// allowNotify checks that the identity may name these also-notify
// servers (named sends NOTIFY messages to the addresses given), answering
// 403 itself when not: auth.NotifyPolicy, with the host's networks when
// it has them (AllowNotify).
func (a *API) allowNotify(w http.ResponseWriter, r *http.Request, servers []string) bool {
	return a.allowServers(w, r, servers, a.AllowNotify, auth.NotifyPolicy)
}

// allowServers is allowMasters and allowNotify: the host's check when it
// has one, else policy's with no networks allowed (only an identity with
// the server action may name servers).
func (a *API) allowServers(w http.ResponseWriter, r *http.Request, servers []string, host func(http.ResponseWriter, *http.Request, []string) bool, policy auth.ServerPolicy) bool {
	if host == nil {
		host = policy.Checker(nil, func(*http.Request) string { return "" }, func(w http.ResponseWriter, r *http.Request, err error) bool {
			a.forbid(w, r, err)
			return false
		})
	}
	return host(w, r, servers)
}
