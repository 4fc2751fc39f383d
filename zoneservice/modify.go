package zoneservice

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/history"
	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// SettingsChange is a change of a zone's settings (zonemodel.SettingsChange:
// the body of PATCH /api/v1/zones/{name} and what the PowerDNS API's
// zone changes set).
type SettingsChange = zonemodel.SettingsChange

// Settings are a zone's settings (zonemodel.ZoneSettings).
type Settings = zonemodel.ZoneSettings

// SettingsOf converts a parsed showzone statement to the API's notation.
func SettingsOf(zc *rndc.ZoneStatement) *Settings {
	v := &Settings{Type: zc.Type(), Options: map[string]string{}, Statement: zc.String()}
	for _, c := range zc.Clauses {
		v.Options[c.Name] = c.Value.String()
		switch c.Name {
		case "file":
			if t, ok := c.Value.Text(); ok {
				v.File = t
			}
		case "primaries", "masters":
			v.Primaries = viewList(c.Value, viewServer)
		case "also-notify":
			v.AlsoNotify = viewList(c.Value, viewServer)
		case "allow-transfer":
			v.AllowTransfer = viewList(c.Value, viewACL)
		case "allow-update":
			v.AllowUpdate = viewList(c.Value, viewACL)
		case "update-policy":
			v.UpdatePolicy = c.Value.String()
		case "dnssec-policy":
			if t, ok := c.Value.Text(); ok {
				v.DNSSECPolicy = t
			}
		case "inline-signing":
			b := isYes(c.Value)
			v.InlineSigning = &b
		}
	}
	return v
}

// isYes reports whether a boolean clause's value is the word yes (true, 1).
func isYes(v rndc.Value) bool {
	if len(v) != 1 || v[0].Kind != rndc.WordTerm {
		return false
	}
	t := v[0].Text
	return t == "yes" || t == "true" || t == "1"
}

// viewList converts each element of a braced list; a value that is not a
// list is shown as named printed it.
func viewList(value rndc.Value, conv func(rndc.Value) string) []string {
	elems, ok := value.Elems()
	if !ok {
		return []string{value.String()}
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		out = append(out, conv(e))
	}
	return out
}

// viewServer converts `192.0.2.1 port 53 key "k"` to "192.0.2.1:53 key k";
// an element it cannot read is shown as named printed it.
func viewServer(elem rndc.Value) string {
	w := elem.Strings()
	if len(w) == 0 {
		return elem.String()
	}
	addr, err := netip.ParseAddr(w[0])
	if err != nil {
		return elem.String()
	}
	s := addr.String()
	rest := w[1:]
	if len(rest) >= 2 && rest[0] == "port" {
		port, err := strconv.ParseUint(rest[1], 10, 16)
		if err != nil {
			return elem.String()
		}
		s = netip.AddrPortFrom(addr, uint16(port)).String()
		rest = rest[2:]
	}
	if len(rest) >= 2 && rest[0] == "key" {
		s += " key " + rest[1]
		rest = rest[2:]
	}
	if len(rest) > 0 {
		return elem.String()
	}
	return s
}

// viewACL converts `key "k"` to "key k", `"any"` to "any" and a
// full-length prefix to its address; an element it cannot read is shown
// as named printed it.
func viewACL(elem rndc.Value) string {
	w := elem.Strings()
	if len(w) == 0 {
		return elem.String()
	}
	if len(w) == 2 && w[0] == "key" {
		return "key " + w[1]
	}
	if len(w) != 1 || w[0] == "{" {
		return elem.String()
	}
	neg, s := "", w[0]
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		neg, s = "!", rest
	}
	if p, err := netip.ParsePrefix(s); err == nil && p.IsSingleIP() {
		s = p.Addr().String()
	}
	return neg + s
}

// aclKeywords are the named address match lists an ACL element may be.
var aclKeywords = map[string]bool{"any": true, "none": true, "localhost": true, "localnets": true}

// ServerElement converts a server element of the API's notation ("ip",
// "ip:port" or "[v6]:port", optionally followed by " key NAME") to a list
// element of the zone statement, e.g. `192.0.2.1 port 5300 key "k"`.
func ServerElement(s string) (rndc.Value, error) {
	addrText, keyName, hasKey := strings.Cut(strings.TrimSpace(s), " key ")
	addrText = strings.TrimSpace(addrText)
	var out rndc.Value
	if a, err := netip.ParseAddr(addrText); err == nil && a.Zone() == "" {
		out = rndc.Words(a.Unmap().String())
	} else if ap, err := netip.ParseAddrPort(addrText); err == nil && ap.Port() != 0 && ap.Addr().Zone() == "" {
		out = rndc.Words(ap.Addr().Unmap().String(), "port", strconv.Itoa(int(ap.Port())))
	} else {
		return nil, fmt.Errorf("%q is not \"ip\", \"ip:port\" or \"[ipv6]:port\", optionally followed by \" key NAME\"", s)
	}
	if hasKey {
		k, err := checkKeyName(keyName)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", s, err)
		}
		out = append(out, keyGrant(k)...)
	}
	return out, nil
}

// checkKeyName checks a TSIG key name (or a policy name) and returns it
// trimmed.
func checkKeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("empty key name")
	}
	if err := rndc.ValidZoneName(name); err != nil {
		return "", fmt.Errorf("key name %q: letters, digits, '.', '-' and '_' only", name)
	}
	return name, nil
}

// keyGrant is the list element `key "name"`.
func keyGrant(name string) rndc.Value { return rndc.Value{rndc.Word("key"), rndc.Quoted(name)} }

// isKeyGrant reports whether a list element is a key grant (`key "k"`).
func isKeyGrant(e rndc.Value) bool {
	return len(e) >= 2 && e[0].Kind == rndc.WordTerm && e[0].Text == "key"
}

// ACLElement converts an address-list element of the API's notation
// ("ip", "ip/len", "!ip", "key NAME", "any", ...) to a list element of the
// zone statement and reports whether it is a key grant.
func ACLElement(s string) (rndc.Value, bool, error) {
	s = strings.TrimSpace(s)
	if name, ok := strings.CutPrefix(s, "key "); ok {
		k, err := checkKeyName(name)
		if err != nil {
			return nil, false, err
		}
		return keyGrant(k), true, nil
	}
	neg, body := "", s
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		neg, body = "!", rest
	}
	if aclKeywords[body] {
		return rndc.Words(neg + body), false, nil
	}
	if a, err := netip.ParseAddr(body); err == nil && a.Zone() == "" {
		return rndc.Words(neg + a.Unmap().String()), false, nil
	}
	if p, err := netip.ParsePrefix(body); err == nil && p.Addr().Zone() == "" {
		if m := p.Masked(); m != p {
			return nil, false, fmt.Errorf("%q has host bits set (did you mean %q?)", s, neg+m.String())
		}
		return rndc.Words(neg + p.String()), false, nil
	}
	return nil, false, fmt.Errorf("%q is not an IP address, a CIDR network, \"key NAME\" or one of any, none, localhost, localnets", s)
}

// zoneChange is a validated SettingsChange: each set clause's new
// elements in BIND's notation.
type zoneChange struct {
	alsoNotify, primaries      *[]rndc.Value
	allowTransfer, allowUpdate *aclChange
	dnssecPolicy               *string
	inlineSigning              *bool
	checkNames                 *string
}

type aclChange struct {
	elems   []rndc.Value
	hasKeys bool // the list names keys: it replaces the existing grants
}

// ValidateSettings checks the change as Modify will; every problem is
// listed in the *zonemodel.ValidationError it returns. It does no I/O, so
// a front end checks a change with it before it authorises the request
// and asks for the service.
func ValidateSettings(ch *SettingsChange) error {
	_, err := validateChange(ch)
	return err
}

// validateChange checks the change and converts it to BIND's notation.
func validateChange(req *SettingsChange) (*zoneChange, error) {
	ve := &zonemodel.ValidationError{}
	add := func(field, format string, args ...any) {
		ve.Problems = append(ve.Problems, zonemodel.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if req.AlsoNotify == nil && req.AllowTransfer == nil && req.AllowUpdate == nil && req.Primaries == nil &&
		req.DNSSECPolicy == nil && req.InlineSigning == nil && req.CheckNames == nil {
		add("(body)", "at least one field (alsoNotify, allowTransfer, allowUpdate, primaries, dnssecPolicy or inlineSigning) must be provided")
		return nil, ve
	}
	ch := &zoneChange{inlineSigning: req.InlineSigning}
	if c := req.CheckNames; c != nil {
		switch *c {
		case "", "fail", "warn", "ignore":
			ch.checkNames = c
		default:
			add("checkNames", "%q: fail, warn, ignore or \"\" (named's default)", *c)
		}
	}
	servers := func(field string, in *[]string) *[]rndc.Value {
		if in == nil {
			return nil
		}
		out := []rndc.Value{}
		for i, s := range *in {
			c, err := ServerElement(s)
			if err != nil {
				add(fmt.Sprintf("%s[%d]", field, i), "%v", err)
				continue
			}
			out = append(out, c)
		}
		return &out
	}
	acl := func(field string, in *[]string) *aclChange {
		if in == nil {
			return nil
		}
		ac := &aclChange{elems: []rndc.Value{}}
		for i, s := range *in {
			c, isKey, err := ACLElement(s)
			if err != nil {
				add(fmt.Sprintf("%s[%d]", field, i), "%v", err)
				continue
			}
			ac.hasKeys = ac.hasKeys || isKey
			ac.elems = append(ac.elems, c)
		}
		return ac
	}
	ch.alsoNotify = servers("alsoNotify", req.AlsoNotify)
	ch.primaries = servers("primaries", req.Primaries)
	if ch.primaries != nil && len(*ch.primaries) == 0 && len(ve.Problems) == 0 {
		add("primaries", "a secondary zone needs at least one primary server")
	}
	ch.allowTransfer = acl("allowTransfer", req.AllowTransfer)
	ch.allowUpdate = acl("allowUpdate", req.AllowUpdate)
	if p := req.DNSSECPolicy; p != nil {
		if *p != "" {
			if _, err := checkKeyName(*p); err != nil {
				add("dnssecPolicy", "policy name %q: letters, digits, '.', '-' and '_' only", *p)
			}
		}
		ch.dnssecPolicy = p
	}
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return ch, nil
}

// apply changes zc as ch says, keeping every other clause and, in address
// lists given without keys, the key grants they had.
func (ch *zoneChange) apply(zc *rndc.ZoneStatement) error {
	if ch.primaries != nil {
		if zc.Type() != "secondary" && zc.Type() != "mirror" && zc.Type() != "stub" {
			return fmt.Errorf("primaries applies to secondary zones; this zone is %s", zc.Type())
		}
		zc.Remove("masters")
		zc.Set("primaries", rndc.List(*ch.primaries...))
	}
	if ch.alsoNotify != nil {
		if len(*ch.alsoNotify) == 0 {
			zc.Remove("also-notify")
		} else {
			zc.Set("also-notify", rndc.List(*ch.alsoNotify...))
		}
	}
	for _, a := range []struct {
		clause string
		ch     *aclChange
	}{{"allow-transfer", ch.allowTransfer}, {"allow-update", ch.allowUpdate}} {
		if a.ch == nil {
			continue
		}
		elems := a.ch.elems
		if !a.ch.hasKeys {
			// Keep the clause's key grants (the module's own among them).
			if old, ok := zc.Get(a.clause); ok {
				oldElems, ok := old.Elems()
				if !ok {
					return fmt.Errorf("reading %s %s: not a braced list", a.clause, old)
				}
				var keys []rndc.Value
				for _, e := range oldElems {
					if isKeyGrant(e) {
						keys = append(keys, e)
					}
				}
				elems = append(keys, elems...)
			}
		}
		if len(elems) == 0 {
			zc.Remove(a.clause)
		} else {
			zc.Set(a.clause, rndc.List(elems...))
		}
	}
	if p := ch.dnssecPolicy; p != nil {
		if *p == "" {
			zc.Remove("dnssec-policy")
		} else {
			zc.Set("dnssec-policy", rndc.Quoted(*p))
		}
	}
	if b := ch.inlineSigning; b != nil {
		v := "no"
		if *b {
			v = "yes"
		}
		zc.Set("inline-signing", rndc.Word(v))
	}
	if c := ch.checkNames; c != nil {
		if *c == "" {
			zc.Remove("check-names")
		} else {
			zc.Set("check-names", rndc.Word(*c))
		}
	}
	return nil
}

// signed reports whether the zone's configuration has named sign it: a
// dnssec-policy other than none, or inline-signing yes.
func signed(zc *rndc.ZoneStatement) bool {
	if v, ok := zc.Get("dnssec-policy"); ok {
		if t, ok := v.Text(); ok && t != "none" {
			return true
		}
	}
	v, _ := zc.Get("inline-signing")
	return isYes(v)
}

// signing reports whether named signs the zone of zc itself, with keys it
// makes: a primary zone with a dnssec-policy other than none and
// insecure (which removes the keys).
func signing(zc *rndc.ZoneStatement) bool {
	v, _ := zc.Get("dnssec-policy")
	p, ok := v.Text()
	return ok && p != "none" && p != "insecure" && zc.Type() == "primary"
}

// goingInsecure reports whether zc's primary zone is to leave DNSSEC:
// dnssec-policy insecure, BIND 9.18's way out, in which named removes the
// keys and signatures once that is safe.
func goingInsecure(zc *rndc.ZoneStatement) bool {
	v, _ := zc.Get("dnssec-policy")
	p, ok := v.Text()
	return ok && p == "insecure" && zc.Type() == "primary"
}

// Modified is what Modify did (zonemodel.Modified).
type Modified = zonemodel.Modified

// Modify changes the zone's configuration: showzone, change the clauses
// ch names (keeping every other), modzone, showzone again, under the
// zone's lock so that two changes do not overwrite each other. Errors:
// ErrInvalid (ch is not valid, or does not apply to the zone: its cause
// says why), ErrBusy, and those of the commands (showzone, modzone: a
// change named refuses changes nothing).
func (s *Service) Modify(ctx context.Context, name string, ch *SettingsChange) (*Modified, error) {
	if s.IsCatalogZone(name) {
		// Its settings are the catalog option's (also_notify,
		// allow_transfer): an allow-update or transfer list set here
		// would open the zone every consumer reads to changes from
		// outside the API.
		return nil, newErr(ErrCatalogZone, name, "", "zone "+name+" is the catalog zone: its settings are the catalog option's", nil)
	}
	zch, err := validateChange(ch)
	if err != nil {
		return nil, newErr(ErrInvalid, name, "", "invalid change", err)
	}
	unlock, err := s.lock(ctx, name)
	if err != nil {
		return nil, err
	}
	defer unlock()
	zc, err := s.Control.ShowZoneStatement(ctx, name)
	if err != nil {
		return nil, s.commandErr(name, "showzone", err)
	}
	if _, managed, _ := s.Store.Get(name); !managed && s.fromNamedConf(ctx, name) {
		return nil, newErr(ErrNamedConf, name, "", "zone "+name+" is configured in named.conf, which modzone cannot change durably (named takes named.conf's statement back at its next reconfig or restart): change named.conf and run rndc reconfig", nil)
	}
	wasSigned, wasSigning := signed(zc), signing(zc)
	if err := zch.apply(zc); err != nil {
		return nil, newErr(ErrInvalid, name, "", "invalid change", err)
	}
	if !wasSigned && signed(zc) {
		if _, ok := zc.Get("key-directory"); !ok {
			// As for zones created signed: named keeps the keys where a
			// delete finds and removes them.
			zc.Set("key-directory", rndc.Quoted(s.Store.Dir()))
		}
	}
	s.log().Debug("modifying zone", zap.String("zone", name), zap.String("config", zc.Block()))
	text, err := s.Control.ModZone(ctx, zc)
	if err != nil {
		e := s.commandErr(name, "modzone", err)
		if e.Kind == ErrNotFound {
			// The zone exists (showzone said so): what is missing is
			// something the change names (a dnssec-policy, a key).
			e.Kind = ErrInvalid
		}
		return nil, e
	}
	if !wasSigning && signing(zc) {
		s.awaitKeys(ctx, name)
	}
	if wasSigning && goingInsecure(zc) {
		s.awaitNoKeys(ctx, name)
	}
	res := &Modified{Details: text}
	if after, err := s.Control.ShowZoneStatement(ctx, name); err == nil {
		res.Config = SettingsOf(after)
	} else {
		s.log().Warn("showzone after modzone failed", zap.String("zone", name), zap.Error(err))
	}
	s.log().Info("zone modified", zap.String("zone", name))
	s.recordZone(ctx, history.ZoneModified, name, false)
	return res, nil
}
