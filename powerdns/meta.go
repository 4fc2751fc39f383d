package powerdns

import (
	"net/http"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/auth"
)

// Metadata kinds that map onto BIND zone clauses.
const (
	MetaAllowAXFRFrom = "ALLOW-AXFR-FROM" // allow-transfer addresses
	MetaAlsoNotify    = "ALSO-NOTIFY"     // also-notify servers
	MetaTSIGAllowAXFR = "TSIG-ALLOW-AXFR" // allow-transfer key grants
	// MetaRFC1123 "0" allows names beyond RFC 1123's host names (an A
	// record at _x.example.com); PowerDNS checks them when it is absent
	// or anything else. It maps onto check-names: "0" is check-names
	// ignore, anything else named's default (fail for a primary zone).
	MetaRFC1123 = "RFC1123-CONFORMANCE"
)

// Metadata kinds that are zone attributes, kept in the zone's side file
// with them (soa_edit_api, soa_edit, api_rectify, nsec3param,
// nsec3narrow).
const (
	MetaSOAEditAPI  = "SOA-EDIT-API"
	MetaSOAEdit     = "SOA-EDIT"
	MetaAPIRectify  = "API-RECTIFY"
	MetaNSEC3Param  = "NSEC3PARAM"
	MetaNSEC3Narrow = "NSEC3NARROW"
)

// metaKinds lists the kinds read from the zone's configuration or
// attributes, in the order GET lists them (the other kinds kept follow,
// by name).
var metaKinds = []string{MetaAllowAXFRFrom, MetaAlsoNotify, MetaTSIGAllowAXFR, MetaAPIRectify, MetaNSEC3Narrow, MetaNSEC3Param, MetaRFC1123, MetaSOAEdit, MetaSOAEditAPI}

// knownMetaKinds are PowerDNS's metadata kinds (its isValidMetadataKind);
// X- kinds are the users'. Every one is kept; the mapped ones change
// BIND's configuration.
var knownMetaKinds = map[string]bool{
	"ALLOW-AXFR-FROM": true, "AXFR-SOURCE": true, "ALLOW-DNSUPDATE-FROM": true, "TSIG-ALLOW-DNSUPDATE": true,
	"FORWARD-DNSUPDATE": true, "SOA-EDIT-DNSUPDATE": true, "NOTIFY-DNSUPDATE": true, "ALSO-NOTIFY": true,
	"AXFR-MASTER-TSIG": true, "GSS-ALLOW-AXFR-PRINCIPAL": true, "GSS-ACCEPTOR-PRINCIPAL": true, "IXFR": true,
	"LUA-AXFR-SCRIPT": true, "NSEC3NARROW": true, "NSEC3PARAM": true, "PRESIGNED": true, "PUBLISH-CDNSKEY": true,
	"PUBLISH-CDS": true, "SLAVE-RENOTIFY": true, "SOA-EDIT": true, "TSIG-ALLOW-AXFR": true,
	"SOA-EDIT-API": true, "API-RECTIFY": true, "ENABLE-LUA-RECORDS": true, "RFC1123-CONFORMANCE": true,
}

// protectedMetaKinds cannot be set through the API, as in PowerDNS
// (TSIG-ALLOW-AXFR can here: it maps onto allow-transfer key grants).
var protectedMetaKinds = map[string]bool{
	"API-RECTIFY": true, "AXFR-MASTER-TSIG": true, "NSEC3NARROW": true, "NSEC3PARAM": true, "PRESIGNED": true, "LUA-AXFR-SCRIPT": true,
}

// metaValues reads a kind's values from the zone's configuration and its
// side file's data.
func metaValues(z *ZoneInfo, d *zoneData, kind string) []string {
	out := []string{}
	switch kind {
	case MetaAllowAXFRFrom:
		for _, v := range z.AllowTransfer {
			if !strings.HasPrefix(v, "key ") {
				out = append(out, v)
			}
		}
	case MetaTSIGAllowAXFR:
		for _, v := range z.AllowTransfer {
			if k, ok := strings.CutPrefix(v, "key "); ok {
				out = append(out, strings.Trim(k, `"`))
			}
		}
	case MetaAlsoNotify:
		out = append(out, z.AlsoNotify...)
	case MetaRFC1123:
		if z.CheckNames == "ignore" {
			out = append(out, "0")
		}
	case MetaSOAEditAPI:
		v := SOAEditAPIDefault
		if d.SOAEditAPI != nil {
			v = *d.SOAEditAPI
		}
		if v != "" {
			out = append(out, v)
		}
	case MetaSOAEdit:
		if d.SOAEdit != "" {
			out = append(out, d.SOAEdit)
		}
	case MetaAPIRectify:
		if d.APIRectify != nil {
			out = append(out, map[bool]string{true: "1", false: "0"}[*d.APIRectify])
		}
	case MetaNSEC3Param:
		if d.NSEC3Param != "" {
			out = append(out, d.NSEC3Param)
		}
	case MetaNSEC3Narrow:
		if d.NSEC3Narrow {
			out = append(out, "1")
		}
	default:
		out = append(out, d.Metadata[kind]...)
	}
	return out
}

// mayReadConfig answers 403 and returns false for a token limited to
// some record names or types: metadata is the zone's configuration
// (transfer and notify targets, key names), which such a token does not
// read, as GET /api/v1/zones/{name} of the zone API does not show it.
func (a *API) mayReadConfig(w http.ResponseWriter, r *http.Request, name string) bool {
	if id := identity(r); id != nil && id.Grant.RestrictsRecords() {
		a.forbid(w, r, &auth.Denied{Message: id.ID + " may not read the metadata of zone " + name + ": its scope limits record names or types, and metadata is the zone's configuration"})
		return false
	}
	return true
}

// metaKind checks a metadata kind as PowerDNS does: its kinds and X-
// kinds pass, the protected ones only to be read (readonly); others are
// 422 in its words.
func metaKind(w http.ResponseWriter, kind string, readonly bool) (string, bool) {
	k := kind
	if !strings.HasPrefix(k, "X-") && !knownMetaKinds[k] {
		WriteError(w, http.StatusUnprocessableEntity, "Unsupported metadata kind '%s': it is none of PowerDNS's kinds nor an X- kind", kind)
		return "", false
	}
	if !readonly && protectedMetaKinds[k] {
		WriteError(w, http.StatusUnprocessableEntity, "Unsupported metadata kind '%s': setting it through the API is not supported", kind)
		return "", false
	}
	return k, true
}

// kindArg is the {kind} (or {id}) segment of a route: the last one.
func kindArg(r *http.Request) string {
	return path.Base(strings.TrimSuffix(r.URL.Path, "/"))
}

// zoneMeta reads the zone and its side file for the metadata routes, or
// answers the failure (not ok).
func (a *API) zoneMeta(w http.ResponseWriter, r *http.Request, zone string, config bool) (string, *ZoneInfo, *zoneData, bool) {
	name, z, ok := a.zoneAt(w, r, zone, config)
	if !ok {
		return "", nil, nil, false
	}
	d, err := a.loadData(z)
	if err != nil {
		a.fail(w, err, nil, false)
		return "", nil, nil, false
	}
	return name, z, d, true
}

func (a *API) listMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	_, z, d, ok := a.zoneMeta(w, r, zone, true)
	if !ok {
		return
	}
	out := []Metadata{}
	for _, k := range metaKinds {
		if v := metaValues(z, d, k); len(v) > 0 {
			out = append(out, Metadata{Type: "Metadata", Kind: k, Metadata: v})
		}
	}
	kinds := make([]string, 0, len(d.Metadata))
	for k := range d.Metadata {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		if v := metaValues(z, d, k); len(v) > 0 {
			out = append(out, Metadata{Type: "Metadata", Kind: k, Metadata: v})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	_, z, d, ok := a.zoneMeta(w, r, zone, true)
	if !ok {
		return
	}
	kind, ok := metaKind(w, kindArg(r), true)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, Metadata{Type: "Metadata", Kind: kind, Metadata: metaValues(z, d, kind)})
}

// setMetadata replaces (or, with add, extends) a kind's values and
// answers the kind (status; 204 without a body when status is 204).
func (a *API) setMetadata(w http.ResponseWriter, r *http.Request, zone, kind string, values []string, add bool, status int) {
	name, z, d, ok := a.zoneMeta(w, r, zone, false)
	if !ok {
		return
	}
	if add {
		values = append(metaValues(z, d, kind), values...)
	}
	if values == nil {
		values = []string{}
	}
	var ch ZoneChange
	switch kind {
	case MetaAlsoNotify:
		v := values
		ch.AlsoNotify = &v
	case MetaRFC1123:
		v := ""
		if len(values) > 0 && values[len(values)-1] == "0" {
			v = "ignore"
		}
		ch.CheckNames = &v
	case MetaAllowAXFRFrom:
		v := append([]string{}, values...)
		for _, k := range metaValues(z, d, MetaTSIGAllowAXFR) {
			v = append(v, "key "+k)
		}
		ch.AllowTransfer = &v
	case MetaTSIGAllowAXFR:
		v := metaValues(z, d, MetaAllowAXFRFrom)
		for _, k := range values {
			v = append(v, "key "+k)
		}
		ch.AllowTransfer = &v
	default:
		// Kept in the zone's side file.
		if a.sideFiles() == nil {
			WriteError(w, http.StatusUnprocessableEntity, "metadata kind %s is not kept: this server has no zone directory for it", kind)
			return
		}
		err := a.updateData(r.Context(), z, func(d *zoneData) error {
			setMetaData(d, kind, values)
			return nil
		})
		if err != nil {
			a.fail(w, err, nil, false)
			return
		}
		a.answerMeta(w, r, name, kind, status)
		return
	}
	if _, err := a.Service.Modify(r.Context(), name, &ch); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	a.answerMeta(w, r, name, kind, status)
}

// answerMeta answers a kind's values as the zone now has them.
func (a *API) answerMeta(w http.ResponseWriter, r *http.Request, name, kind string, status int) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	z, ok := a.zone(w, r, name)
	if !ok {
		return
	}
	d, err := a.loadData(z)
	if err != nil {
		a.fail(w, err, nil, false)
		return
	}
	writeJSON(w, status, Metadata{Type: "Metadata", Kind: kind, Metadata: metaValues(z, d, kind)})
}

// setMetaData sets a kind that is not BIND configuration in the side
// file's data: the zone attributes for their kinds, the kind's values
// otherwise (none removes it).
func setMetaData(d *zoneData, kind string, values []string) {
	first := ""
	if len(values) > 0 {
		first = values[0]
	}
	switch kind {
	case MetaSOAEditAPI:
		v := first
		d.SOAEditAPI = &v
		if v == SOAEditAPIDefault || len(values) == 0 {
			d.SOAEditAPI = nil
		}
	case MetaSOAEdit:
		d.SOAEdit = first
	case MetaAPIRectify:
		if len(values) == 0 {
			d.APIRectify = nil
		} else {
			v := first == "1"
			d.APIRectify = &v
		}
	case MetaNSEC3Param:
		d.NSEC3Param = first
	case MetaNSEC3Narrow:
		d.NSEC3Narrow = first == "1"
	default:
		if len(values) == 0 {
			delete(d.Metadata, kind)
			return
		}
		if d.Metadata == nil {
			d.Metadata = map[string][]string{}
		}
		d.Metadata[kind] = append([]string(nil), values...)
	}
}

// allowMeta checks that the identity may set these values of the kind:
// ALSO-NOTIFY servers need what allowNotify says (checked before named
// hears anything: a POST's values already there are not checked again).
func (a *API) allowMeta(w http.ResponseWriter, r *http.Request, kind string, values []string) bool {
	return !strings.EqualFold(kind, MetaAlsoNotify) || a.allowNotify(w, r, values)
}

func (a *API) postMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	var m Metadata
	if !decode(w, r, &m) || !a.allowMeta(w, r, m.Kind, m.Metadata) || !a.zoneExists(w, r, zone) {
		return
	}
	kind, ok := metaKind(w, m.Kind, false)
	if !ok {
		return
	}
	a.setMetadata(w, r, zone, kind, m.Metadata, true, http.StatusCreated)
}

// zoneExists answers 404 and returns false for an unknown zone, so that
// it is reported before a metadata kind this API refuses.
func (a *API) zoneExists(w http.ResponseWriter, r *http.Request, zone string) bool {
	name, ok := zoneArg(w, zone)
	if !ok {
		return false
	}
	_, ok = a.zone(w, r, name)
	return ok
}

func (a *API) putMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	var m Metadata
	if !decode(w, r, &m) || !a.allowMeta(w, r, kindArg(r), m.Metadata) {
		return
	}
	if !a.zoneExists(w, r, zone) {
		return
	}
	kind, ok := metaKind(w, kindArg(r), false)
	if !ok {
		return
	}
	a.setMetadata(w, r, zone, kind, m.Metadata, false, http.StatusOK)
}

// deleteMetadata answers DELETE …/metadata/{kind}: 204, as PowerDNS.
func (a *API) deleteMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	if !a.zoneExists(w, r, zone) {
		return
	}
	kind, ok := metaKind(w, kindArg(r), false)
	if !ok {
		return
	}
	a.setMetadata(w, r, zone, kind, []string{}, false, http.StatusNoContent)
}

// cryptokeys are the zone's DNSSEC keys as PowerDNS shows them.
func (a *API) cryptokeys(w http.ResponseWriter, r *http.Request, zone string) ([]Cryptokey, bool) {
	name, ok := zoneArg(w, zone)
	if !ok {
		return nil, false
	}
	// The keys are the zone's DNSKEY RRset (and their DS): a token that
	// may not read that RRset may not read them here either.
	if id := identity(r); id != nil && !id.Grant.AllowsRecord(FQDN(name), "DNSKEY") {
		a.forbid(w, r, &auth.Denied{Message: id.ID + " may not read the keys of zone " + name + ": its scope does not cover the DNSKEY RRset at " + FQDN(name)})
		return nil, false
	}
	keys, err := a.Service.Keys(r.Context(), name)
	if err != nil {
		a.fail(w, err, nil, false)
		return nil, false
	}
	return a.cryptokeysOf(keys)
}

// cryptokeysOf shows keys as PowerDNS does, by id (key tag).
func (a *API) cryptokeysOf(keys []Key) ([]Cryptokey, bool) {
	out := []Cryptokey{}
	for _, k := range keys {
		kt := "zsk"
		if k.Flags&1 == 1 {
			kt = "ksk"
			if !hasZSK(keys) {
				kt = "csk"
			}
		}
		out = append(out, Cryptokey{Type: "Cryptokey", ID: int(k.Tag), KeyType: kt, Flags: int(k.Flags), Active: true, Published: true,
			DNSKey: k.DNSKEY, DS: k.DS, Algorithm: k.Algorithm, Bits: k.Bits})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, true
}

func hasZSK(keys []Key) bool {
	for _, k := range keys {
		if k.Flags&1 == 0 {
			return true
		}
	}
	return false
}

// listCryptokeys answers GET /zones/{id}/cryptokeys: the DNSKEYs BIND
// publishes (keys of a dnssec-policy), ids being key tags. Private keys
// are never shown.
func (a *API) listCryptokeys(w http.ResponseWriter, r *http.Request, zone string) {
	if keys, ok := a.cryptokeys(w, r, zone); ok {
		writeJSON(w, http.StatusOK, keys)
	}
}

func (a *API) getCryptokey(w http.ResponseWriter, r *http.Request, zone string) {
	keys, ok := a.cryptokeys(w, r, zone)
	if !ok {
		return
	}
	id := kindArg(r)
	for _, k := range keys {
		if strconv.Itoa(k.ID) == id {
			writeJSON(w, http.StatusOK, k)
			return
		}
	}
	WriteError(w, http.StatusNotFound, "Could not find key %s in zone %s", id, FQDN(zone))
}

// createCryptokey answers POST /zones/{id}/cryptokeys, which is how
// DNSControl's AUTODNSSEC_ON (and PowerDNS-Admin's "enable DNSSEC") sign
// a zone: an unsigned zone gets BIND's default dnssec-policy, which makes
// one CSK; 201 with that key once BIND shows it (or with what was asked
// for, when it has not yet). Keys of a given algorithm or size, imported
// private keys, and further keys of a signed zone are BIND's policy's to
// make: 422.
func (a *API) createCryptokey(w http.ResponseWriter, r *http.Request, zone string) {
	var req struct {
		KeyType    string `json:"keytype"`
		Active     *bool  `json:"active"`
		PrivateKey string `json:"privatekey"`
		Algorithm  string `json:"algorithm"`
		Bits       int    `json:"bits"`
	}
	if !decode(w, r, &req) {
		return
	}
	name, z, ok := a.zoneAt(w, r, zone, false)
	if !ok {
		return
	}
	switch {
	case req.PrivateKey != "" || req.Algorithm != "" || req.Bits != 0:
		WriteError(w, http.StatusUnprocessableEntity, "importing keys or choosing their algorithm or size is not supported: BIND's dnssec-policy makes the keys (the default policy: one ECDSAP256SHA256 CSK)")
		return
	case z.Signing():
		WriteError(w, http.StatusUnprocessableEntity, "zone %s is signed by dnssec-policy %q already: BIND makes and retires its keys", FQDN(name), z.DNSSECPolicy)
		return
	case req.Active != nil && !*req.Active:
		WriteError(w, http.StatusUnprocessableEntity, "inactive keys are not supported: BIND's dnssec-policy publishes and activates its keys itself")
		return
	}
	p := "default"
	if _, err := a.Service.Modify(r.Context(), name, &ZoneChange{DNSSECPolicy: &p}); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	// Modify waited for named to publish the keys (zoneservice.awaitKeys).
	if keys, err := a.Service.Keys(r.Context(), name); err == nil && len(keys) > 0 {
		out, _ := a.cryptokeysOf(keys)
		writeJSON(w, http.StatusCreated, out[0])
		return
	}
	writeJSON(w, http.StatusCreated, Cryptokey{Type: "Cryptokey", KeyType: "csk", Active: true, Published: true, Algorithm: "ECDSAP256SHA256", Bits: 256})
}
