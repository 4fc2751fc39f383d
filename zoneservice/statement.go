package zoneservice

import (
	"strconv"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// AddZoneStatement is the statement addzone is given for the zone z, e.g.
// `zone "example.com" { type primary; file "/zones/example.com.zone";
// allow-update { key "k"; }; };`. Secondary zones get `type secondary;
// primaries { ... };` and the file too, so BIND persists transfers.
// updateKey is the module's key: the key of allow-update when the request
// gave no updateKeyName ("" means no allow-update clause; never for
// secondary zones, where BIND does not allow it), and added to an
// allow-transfer list so the module can still read the zone by AXFR. A key
// that is not a valid identifier is left out. Signed zones (a
// dnssec-policy, or inline-signing yes) get keyDir (unless "") as their
// key-directory, first, so that named keeps their keys where a delete
// finds them and reports the directory in showzone.
func AddZoneStatement(z *zonemodel.Zone, file, updateKey, keyDir string) *rndc.ZoneStatement {
	o := z.Options()
	zs := &rndc.ZoneStatement{Name: z.Name}
	if keyDir != "" && (o.DNSSECPolicy != "" || o.InlineSigning != nil && *o.InlineSigning) {
		zs.Add("key-directory", rndc.Quoted(keyDir))
	}
	zs.Add("type", rndc.Word(z.Type))
	if file != "" {
		zs.Add("file", rndc.Quoted(file))
	}
	validKey := func(k string) bool { return k != "" && zonemodel.CheckIdentifier(k) == "" }
	if z.Type == zonemodel.TypeSecondary {
		zs.Add("primaries", servers(o.Primaries))
	}
	if z.Type == zonemodel.TypePrimary {
		key := z.UpdateKeyName
		if key == "" {
			key = updateKey
		}
		if validKey(key) {
			zs.Add("allow-update", rndc.List(keyElem(key)))
		}
	}
	if len(o.AlsoNotify) > 0 {
		zs.Add("also-notify", servers(o.AlsoNotify))
	}
	if len(o.AllowTransfer) > 0 {
		var elems []rndc.Value
		for _, p := range o.AllowTransfer {
			if p.IsSingleIP() {
				elems = append(elems, rndc.Words(p.Addr().String()))
			} else {
				elems = append(elems, rndc.Words(p.String()))
			}
		}
		// The module reads zones by AXFR signed with its key: a zone that
		// restricts transfers must still admit it.
		if validKey(updateKey) {
			elems = append(elems, keyElem(updateKey))
		}
		zs.Add("allow-transfer", rndc.List(elems...))
	}
	if o.DNSSECPolicy != "" {
		zs.Add("dnssec-policy", rndc.Quoted(o.DNSSECPolicy))
	}
	if o.InlineSigning != nil {
		v := "no"
		if *o.InlineSigning {
			v = "yes"
		}
		zs.Add("inline-signing", rndc.Word(v))
	}
	return zs
}

// keyElem is the address-match-list element `key "name"`.
func keyElem(name string) rndc.Value { return rndc.Value{rndc.Word("key"), rndc.Quoted(name)} }

// servers is a list of servers as BIND writes them: "ip" or "ip port n".
func servers(eps []zonemodel.Endpoint) rndc.Term {
	elems := make([]rndc.Value, len(eps))
	for i, e := range eps {
		if e.Port == 0 {
			elems[i] = rndc.Words(e.Addr.String())
		} else {
			elems[i] = rndc.Words(e.Addr.String(), "port", strconv.FormatUint(uint64(e.Port), 10))
		}
	}
	return rndc.List(elems...)
}
