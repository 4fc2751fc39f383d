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
	MetaSOAEditAPI    = "SOA-EDIT-API"    // accepted; BIND sets serials
)

// metaKinds lists the supported kinds, in the order GET lists them.
var metaKinds = []string{MetaAllowAXFRFrom, MetaAlsoNotify, MetaTSIGAllowAXFR, MetaSOAEditAPI}

// metaValues reads a kind's values from the zone's configuration.
func metaValues(z *ZoneInfo, kind string) []string {
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
	case MetaSOAEditAPI:
		out = append(out, "DEFAULT")
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

// metaKind checks a metadata kind: supported kinds pass; PowerDNS's
// other kinds and X- kinds are 422, with why.
func metaKind(w http.ResponseWriter, kind string) (string, bool) {
	k := strings.ToUpper(kind)
	for _, m := range metaKinds {
		if k == m {
			return k, true
		}
	}
	WriteError(w, http.StatusUnprocessableEntity, "Metadata kind %s is not supported: BIND zones have no place for it (supported: %s)", kind, strings.Join(metaKinds, ", "))
	return "", false
}

// kindArg is the {kind} (or {id}) segment of a route: the last one.
func kindArg(r *http.Request) string {
	return path.Base(strings.TrimSuffix(r.URL.Path, "/"))
}

func (a *API) listMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	_, z, ok := a.zoneAt(w, r, zone, true)
	if !ok {
		return
	}
	out := []Metadata{}
	for _, k := range metaKinds {
		if v := metaValues(z, k); len(v) > 0 {
			out = append(out, Metadata{Type: "Metadata", Kind: k, Metadata: v})
		}
	}
	writeJSON(w, http.StatusOK, out)
}

func (a *API) getMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	_, z, ok := a.zoneAt(w, r, zone, true)
	if !ok {
		return
	}
	kind, ok := metaKind(w, kindArg(r))
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, Metadata{Type: "Metadata", Kind: kind, Metadata: metaValues(z, kind)})
}

// setMetadata replaces (or, with add, extends) a kind's values.
func (a *API) setMetadata(w http.ResponseWriter, r *http.Request, zone, kind string, values []string, add bool, status int) {
	name, z, ok := a.zoneAt(w, r, zone, false)
	if !ok {
		return
	}
	if add {
		values = append(metaValues(z, kind), values...)
	}
	var ch ZoneChange
	switch kind {
	case MetaSOAEditAPI:
		// Accepted: BIND sets the serial of every change itself
		// (serial_update_method).
		writeJSON(w, status, Metadata{Type: "Metadata", Kind: kind, Metadata: metaValues(z, kind)})
		return
	case MetaAlsoNotify:
		v := values
		ch.AlsoNotify = &v
	case MetaAllowAXFRFrom:
		v := append([]string{}, values...)
		for _, k := range metaValues(z, MetaTSIGAllowAXFR) {
			v = append(v, "key "+k)
		}
		ch.AllowTransfer = &v
	case MetaTSIGAllowAXFR:
		v := metaValues(z, MetaAllowAXFRFrom)
		for _, k := range values {
			v = append(v, "key "+k)
		}
		ch.AllowTransfer = &v
	}
	if err := a.Service.Modify(r.Context(), name, ch); err != nil {
		a.fail(w, err, nil, false)
		return
	}
	if z, ok = a.zone(w, r, name); !ok {
		return
	}
	writeJSON(w, status, Metadata{Type: "Metadata", Kind: kind, Metadata: metaValues(z, kind)})
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
	kind, ok := metaKind(w, m.Kind)
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
	kind, ok := metaKind(w, kindArg(r))
	if !ok {
		return
	}
	a.setMetadata(w, r, zone, kind, m.Metadata, false, http.StatusOK)
}

func (a *API) deleteMetadata(w http.ResponseWriter, r *http.Request, zone string) {
	if !a.zoneExists(w, r, zone) {
		return
	}
	kind, ok := metaKind(w, kindArg(r))
	if !ok {
		return
	}
	a.setMetadata(w, r, zone, kind, []string{}, false, http.StatusOK)
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
		out = append(out, Cryptokey{Type: "Cryptokey", ID: int(k.Tag), KeyType: kt, Active: true, Published: true,
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
	case z.Signed || z.DNSSECPolicy != "" && z.DNSSECPolicy != "none" && z.DNSSECPolicy != "insecure":
		WriteError(w, http.StatusUnprocessableEntity, "zone %s is signed by dnssec-policy %q already: BIND makes and retires its keys", FQDN(name), z.DNSSECPolicy)
		return
	case req.Active != nil && !*req.Active:
		WriteError(w, http.StatusUnprocessableEntity, "inactive keys are not supported: BIND's dnssec-policy publishes and activates its keys itself")
		return
	}
	p := "default"
	if err := a.Service.Modify(r.Context(), name, ZoneChange{DNSSECPolicy: &p}); err != nil {
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
