package powerdns

import (
	"net/http"
	"slices"
	"strings"
	"time"
)

// putZone answers PUT /zones/{id}: changes what maps onto BIND (masters
// of a Slave zone; dnssec true signs the zone with BIND's default
// dnssec-policy, dnssec false turns it to insecure), keeps what has no BIND
// meaning (kind, account, catalog, soa_edit_api, soa_edit, api_rectify,
// nsec3param, nsec3narrow: putsData) in the zone's side file, and
// refuses a change of kind between Master and Slave or a catalog (422).
// With "rrsets" (PowerDNS 4.9+) the zone's content is replaced: every
// RRset not given is deleted, in the same UPDATE; a secondary zone given
// none transfers anew. 204.
func (a *API) putZone(w http.ResponseWriter, r *http.Request, zone string) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return
	}
	var req ZoneRequest
	if !decode(w, r, &req) {
		return
	}
	if !a.allowMasters(w, r, req.Masters) {
		return
	}
	// With rrsets the zone's records change: the records action too,
	// asked before anything is read.
	if req.RRsets != nil && !a.allowRecords(w, r, name, nil) {
		return
	}
	z, ok := a.zone(w, r, name)
	if !ok {
		return
	}
	var ch ZoneChange
	changed := false
	if req.Kind != "" {
		typ, err := BINDType(req.Kind)
		if err != nil {
			WriteError(w, http.StatusUnprocessableEntity, "%s", err.Error())
			return
		}
		if typ != z.Type {
			WriteError(w, http.StatusUnprocessableEntity, "changing the kind of zone %s from %s to %s is not supported: BIND cannot turn a %s zone into a %s zone in place; delete and create it", FQDN(name), Kind(z.Type), req.Kind, z.Type, typ)
			return
		}
	}
	if req.Masters != nil && z.Type == BINDSecondary {
		m := req.Masters
		ch.Primaries, changed = &m, true
	}
	if req.DNSSEC != nil && *req.DNSSEC != z.Signing() {
		// dnssec false is PowerDNS's removal of the keys: BIND 9.18's
		// dnssec-policy insecure, whose keys named removes at once when
		// no DS was published for them (the zone service waits for it),
		// and only once that is safe otherwise.
		p := "default"
		if !*req.DNSSEC {
			p = "insecure"
		}
		ch.DNSSECPolicy, changed = &p, true
	}
	for _, k := range append(append([]string{}, req.MasterTSIG...), req.SlaveTSIG...) {
		WriteError(w, http.StatusUnprocessableEntity, "A TSIG key with the name '%s' is not managed here: TSIG keys are BIND's (named.conf); grant transfers with the TSIG-ALLOW-AXFR metadata", k)
		return
	}
	if req.NSEC3Param != nil && *req.NSEC3Param != "" && !z.Signing() && (req.DNSSEC == nil || !*req.DNSSEC) {
		WriteError(w, http.StatusUnprocessableEntity, "NSEC3PARAM can only be set on a DNSSEC-signed zone: %s is not signed", FQDN(name))
		return
	}
	var (
		plan       *Plan
		side       []sideChange
		retransfer bool
	)
	if req.RRsets != nil && z.Type == BINDSecondary {
		// PowerDNS empties a secondary zone given no records and marks
		// it stale, so that it transfers anew; named transfers it anew
		// at once. Records it cannot take: named takes no UPDATE for a
		// secondary zone.
		if len(req.RRsets) > 0 {
			WriteError(w, http.StatusUnprocessableEntity, "%s is a Slave zone: its records are what its primaries transfer, and BIND replaces them at the next transfer; replace a Master zone's records instead, or give no rrsets to have the zone transferred anew", FQDN(name))
			return
		}
		retransfer = true
	} else if req.RRsets != nil {
		if !hasApexSOA(name, req.RRsets) {
			WriteError(w, http.StatusUnprocessableEntity, "Must give SOA record for zone when replacing all RR sets")
			return
		}
		// Planned, and every RRset it changes (given or deleted)
		// checked, before the configuration changes.
		if plan, side, ok = a.contentPlan(w, r, name, req.RRsets); !ok || !a.allowRecords(w, r, name, append(slices.Clone(plan.Sets), sideOnlySets(plan, side)...)) {
			return
		}
		// The SOA given is edited by the zone's SOA-EDIT-API, or the
		// one this request sets, as PowerDNS does.
		d, err := a.loadData(z)
		if err != nil {
			a.fail(w, err, nil, false)
			return
		}
		edit := d.SOAEdit
		if req.SOAEdit != nil {
			edit = *req.SOAEdit
		}
		plan.EditSOA(soaEditsOf(d, req.SOAEditAPI), edit, time.Now())
	}
	if changed {
		if _, err := a.Service.Modify(r.Context(), name, &ch); err != nil {
			a.fail(w, err, nil, false)
			return
		}
	}
	if retransfer {
		if _, err := a.Service.Retransfer(r.Context(), name); err != nil {
			a.fail(w, err, nil, false)
			return
		}
	}
	if plan == nil && !putsData(&req) {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	// The attributes and, with rrsets, every RRset's comments and
	// disabled records are this request's: kept around the UPDATE as a
	// PATCH's are (withData).
	change := func(d *zoneData) {
		dataFromRequest(d, &req, z.Type)
		if plan != nil {
			d.RRsets = nil
			applySide(d, side, time.Now())
		}
	}
	var apply func() error
	if plan != nil && len(plan.Changes) > 0 {
		apply = func() error {
			_, _, err := a.Service.Apply(r.Context(), name, plan.Changes)
			return err
		}
	}
	if err := a.withData(r.Context(), z, change, apply); err != nil {
		var ex func(string, string) string
		if plan != nil {
			ex = plan.Explain
		}
		a.fail(w, err, ex, false)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// putsData reports whether a PUT gives zone attributes the side file
// keeps.
func putsData(req *ZoneRequest) bool {
	return req.Kind != "" || req.Account != nil || req.Catalog != nil || req.SOAEdit != nil || req.SOAEditAPI != nil ||
		req.APIRectify != nil || req.NSEC3Param != nil || req.NSEC3Narrow != nil || req.Masters != nil
}

// contentPlan plans the replacement of the zone's RRsets with sets (PUT
// with rrsets): a DELETE of every RRset not given (SOA and apex NS are
// kept unless given) and a REPLACE of every one given, the SOA included
// (set in the same UPDATE), for one UPDATE.
// It answers the failure itself (not ok).
func (a *API) contentPlan(w http.ResponseWriter, r *http.Request, name string, sets []RRset) (*Plan, []sideChange, bool) {
	byName := map[string][]string{}
	for _, s := range sets {
		if n, err := CanonicalName(s.Name); err == nil && len(s.Records) > 0 {
			byName[n] = append(byName[n], strings.ToUpper(s.Type))
		}
	}
	if err := checkExclusive(byName); err != nil {
		a.fail(w, err, nil, false)
		return nil, nil, false
	}
	_, cur, err := a.Service.Records(r.Context(), name)
	if err != nil {
		a.fail(w, err, nil, false)
		return nil, nil, false
	}
	given := map[string]bool{}
	var patch []RRset
	replace, del := ChangeReplace, ChangeDelete
	for _, s := range sets {
		n, _ := CanonicalName(s.Name)
		given[n+" "+strings.ToUpper(s.Type)] = true
		s.ChangeType = &replace
		if s.Records == nil {
			s.Records = []Record{}
		}
		patch = append(patch, s)
	}
	for _, s := range cur {
		if s.Type == "SOA" || s.Type == "DNSKEY" || s.Type == "RRSIG" || s.Type == "NSEC" || s.Type == "NSEC3" || s.Type == "NSEC3PARAM" || s.Type == "TYPE65534" || s.Type == "CDS" || s.Type == "CDNSKEY" {
			continue
		}
		if s.Type == "NS" && strings.EqualFold(s.Name, FQDN(name)) && !given[FQDN(name)+" NS"] {
			continue // a zone keeps its apex NS unless new ones are given
		}
		if !given[strings.ToLower(s.Name)+" "+s.Type] {
			patch = append(patch, RRset{Name: s.Name, Type: s.Type, ChangeType: &del})
		}
	}
	patch, side, err := splitPatch(name, patch)
	if err != nil {
		a.fail(w, err, nil, false)
		return nil, nil, false
	}
	plan, err := PlanPatch(name, patch)
	if err != nil {
		a.fail(w, err, nil, false)
		return nil, nil, false
	}
	return plan, side, true
}
