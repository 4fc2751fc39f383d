package module

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/rndc"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// viewConfig converts a parsed showzone statement to the API's notation.
func viewConfig(zc *rndc.ZoneConfig) *zoneConfigView {
	v := &zoneConfigView{Type: zc.Type(), Options: map[string]string{}, Statement: zc.String()}
	for _, c := range zc.Clauses {
		v.Options[c.Name] = c.Value
		switch c.Name {
		case "file":
			if w, err := rndc.Words(c.Value); err == nil && len(w) == 1 {
				v.File = w[0]
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
			v.UpdatePolicy = c.Value
		case "dnssec-policy":
			if w, err := rndc.Words(c.Value); err == nil && len(w) == 1 {
				v.DNSSECPolicy = w[0]
			}
		case "inline-signing":
			b := c.Value == "yes" || c.Value == "true" || c.Value == "1"
			v.InlineSigning = &b
		}
	}
	return v
}

// viewList converts each element of a braced list; an element it cannot
// read is shown as named printed it.
func viewList(value string, conv func(string) string) []string {
	elems, err := rndc.ParseList(value)
	if err != nil {
		return []string{value}
	}
	out := make([]string, 0, len(elems))
	for _, e := range elems {
		out = append(out, conv(e))
	}
	return out
}

// viewServer converts `192.0.2.1 port 53 key "k"` to "192.0.2.1:53 key k".
func viewServer(elem string) string {
	w, err := rndc.Words(elem)
	if err != nil || len(w) == 0 {
		return elem
	}
	addr, err := netip.ParseAddr(w[0])
	if err != nil {
		return elem
	}
	s := addr.String()
	rest := w[1:]
	if len(rest) >= 2 && rest[0] == "port" {
		port, err := strconv.ParseUint(rest[1], 10, 16)
		if err != nil {
			return elem
		}
		s = netip.AddrPortFrom(addr, uint16(port)).String()
		rest = rest[2:]
	}
	if len(rest) >= 2 && rest[0] == "key" {
		s += " key " + rest[1]
		rest = rest[2:]
	}
	if len(rest) > 0 {
		return elem
	}
	return s
}

// viewACL converts `key "k"` to "key k", `"any"` to "any" and a
// full-length prefix to its address.
func viewACL(elem string) string {
	w, err := rndc.Words(elem)
	if err != nil || len(w) == 0 {
		return elem
	}
	if len(w) == 2 && w[0] == "key" {
		return "key " + w[1]
	}
	if len(w) != 1 {
		return elem
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

// confServer converts an API server element to BIND's notation.
func confServer(s string) (string, error) {
	addrText, keyName, hasKey := strings.Cut(strings.TrimSpace(s), " key ")
	addrText = strings.TrimSpace(addrText)
	var out string
	if a, err := netip.ParseAddr(addrText); err == nil && a.Zone() == "" {
		out = a.Unmap().String()
	} else if ap, err := netip.ParseAddrPort(addrText); err == nil && ap.Port() != 0 && ap.Addr().Zone() == "" {
		out = ap.Addr().Unmap().String() + " port " + strconv.Itoa(int(ap.Port()))
	} else {
		return "", fmt.Errorf("%q is not \"ip\", \"ip:port\" or \"[ipv6]:port\", optionally followed by \" key NAME\"", s)
	}
	if hasKey {
		k, err := confKeyName(keyName)
		if err != nil {
			return "", fmt.Errorf("%q: %v", s, err)
		}
		out += " key " + k
	}
	return out, nil
}

// confKeyName checks a TSIG key name and quotes it.
func confKeyName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return "", errors.New("empty key name")
	}
	if err := rndc.ValidZoneName(name); err != nil {
		return "", fmt.Errorf("key name %q: letters, digits, '.', '-' and '_' only", name)
	}
	return rndc.QuoteString(name), nil
}

// confACL converts an API address-list element to BIND's notation and
// reports whether it is a key grant.
func confACL(s string) (string, bool, error) {
	s = strings.TrimSpace(s)
	if name, ok := strings.CutPrefix(s, "key "); ok {
		k, err := confKeyName(name)
		if err != nil {
			return "", false, err
		}
		return "key " + k, true, nil
	}
	neg, body := "", s
	if rest, ok := strings.CutPrefix(s, "!"); ok {
		neg, body = "!", rest
	}
	if aclKeywords[body] {
		return neg + body, false, nil
	}
	if a, err := netip.ParseAddr(body); err == nil && a.Zone() == "" {
		return neg + a.Unmap().String(), false, nil
	}
	if p, err := netip.ParsePrefix(body); err == nil && p.Addr().Zone() == "" {
		if m := p.Masked(); m != p {
			return "", false, fmt.Errorf("%q has host bits set (did you mean %q?)", s, neg+m.String())
		}
		return neg + p.String(), false, nil
	}
	return "", false, fmt.Errorf("%q is not an IP address, a CIDR network, \"key NAME\" or one of any, none, localhost, localnets", s)
}

// zoneChange is a validated ModifyZoneRequest: each set clause's new
// elements in BIND's notation.
type zoneChange struct {
	alsoNotify, primaries      *[]string
	allowTransfer, allowUpdate *aclChange
	dnssecPolicy               *string
	inlineSigning              *bool
}

type aclChange struct {
	elems   []string
	hasKeys bool // the list names keys: it replaces the existing grants
}

// validate checks the request; every problem is listed.
func validateModify(req *ModifyZoneRequest) (*zoneChange, error) {
	ve := &zonemodel.ValidationError{}
	add := func(field, format string, args ...any) {
		ve.Problems = append(ve.Problems, zonemodel.Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if req.AlsoNotify == nil && req.AllowTransfer == nil && req.AllowUpdate == nil && req.Primaries == nil &&
		req.DNSSECPolicy == nil && req.InlineSigning == nil {
		add("(body)", "at least one field (alsoNotify, allowTransfer, allowUpdate, primaries, dnssecPolicy or inlineSigning) must be provided")
		return nil, ve
	}
	ch := &zoneChange{inlineSigning: req.InlineSigning}
	servers := func(field string, in *[]string) *[]string {
		if in == nil {
			return nil
		}
		out := []string{}
		for i, s := range *in {
			c, err := confServer(s)
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
		ac := &aclChange{elems: []string{}}
		for i, s := range *in {
			c, isKey, err := confACL(s)
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
			if _, err := confKeyName(*p); err != nil {
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
func (ch *zoneChange) apply(zc *rndc.ZoneConfig) error {
	if ch.primaries != nil {
		if zc.Type() != "secondary" && zc.Type() != "mirror" && zc.Type() != "stub" {
			return fmt.Errorf("primaries applies to secondary zones; this zone is %s", zc.Type())
		}
		zc.Remove("masters")
		zc.Set("primaries", rndc.RenderList(*ch.primaries))
	}
	if ch.alsoNotify != nil {
		if len(*ch.alsoNotify) == 0 {
			zc.Remove("also-notify")
		} else {
			zc.Set("also-notify", rndc.RenderList(*ch.alsoNotify))
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
				oldElems, err := rndc.ParseList(old)
				if err != nil {
					return fmt.Errorf("reading %s %s: %v", a.clause, old, err)
				}
				var keys []string
				for _, e := range oldElems {
					if strings.HasPrefix(e, "key ") || strings.HasPrefix(e, "key\t") {
						keys = append(keys, e)
					}
				}
				elems = append(keys, elems...)
			}
		}
		if len(elems) == 0 {
			zc.Remove(a.clause)
		} else {
			zc.Set(a.clause, rndc.RenderList(elems))
		}
	}
	if p := ch.dnssecPolicy; p != nil {
		if *p == "" {
			zc.Remove("dnssec-policy")
		} else {
			zc.Set("dnssec-policy", rndc.QuoteString(*p))
		}
	}
	if b := ch.inlineSigning; b != nil {
		v := "no"
		if *b {
			v = "yes"
		}
		zc.Set("inline-signing", v)
	}
	return nil
}

// showZone runs showzone; on failure it has
// answered the request.
func (h *Handler) showZone(ctx context.Context, w http.ResponseWriter, b *backend, name string) (*rndc.ZoneConfig, bool) {
	zc, err := b.rndc.ShowZoneConfig(ctx, name)
	if err != nil {
		h.commandFailed(w, "showzone", name, err)
		return nil, false
	}
	return zc, true
}

// handleModifyZone changes a zone's configuration: showzone, change the
// named clauses, modzone, showzone again. It holds the zone's lock so two
// changes do not overwrite each other. A change named refuses changes
// nothing: 400 when it names something named does not have (a
// dnssec-policy), else 409 with named's reason.
func (h *Handler) handleModifyZone(w http.ResponseWriter, r *http.Request, p params) {
	name, ok := zoneName(w, p)
	if !ok {
		return
	}
	if !h.checkBody(w, r, "/api/v1/zones/{name}") {
		return
	}
	var req ModifyZoneRequest
	if !decodeBody(w, r, &req) {
		return
	}
	if _, err := validateModify(&req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid change: %v", err)
		return
	}
	b, ok := h.backendOr500(w)
	if !ok {
		return
	}
	ctx := r.Context()
	text, err := h.modifyZone(ctx, b, name, &req)
	if err != nil {
		h.modifyFailed(w, name, err)
		return
	}
	resp := modifyResponse{Success: true, Message: "Zone " + name + " modified successfully", Details: text}
	if after, err := b.rndc.ShowZoneConfig(ctx, name); err == nil {
		resp.Config = viewConfig(after)
	} else {
		h.logger.Warn("showzone after modzone failed", zap.String("zone", name), zap.Error(err))
	}
	h.logger.Info("zone modified", zap.String("zone", name))
	writeJSON(w, http.StatusOK, resp)
}

// modifyError is a failed step of modifyZone.
type modifyError struct {
	step string // "lock", "invalid", or the rndc command
	err  error
}

func (e *modifyError) Error() string { return e.step + ": " + e.err.Error() }
func (e *modifyError) Unwrap() error { return e.err }

// modifyZone changes the clauses req names, under the zone's lock:
// showzone, change the clauses, modzone. It returns named's answer; a
// failure is a *modifyError.
func (h *Handler) modifyZone(ctx context.Context, b *backend, name string, req *ModifyZoneRequest) (string, error) {
	ch, err := validateModify(req)
	if err != nil {
		return "", &modifyError{step: "invalid", err: err}
	}
	unlock, err := b.store.Lock(ctx, name)
	if err != nil {
		return "", &modifyError{step: "lock", err: err}
	}
	defer unlock()
	zc, err := b.rndc.ShowZoneConfig(ctx, name)
	if err != nil {
		return "", &modifyError{step: "showzone", err: err}
	}
	wasSigned := signed(zc)
	if err := ch.apply(zc); err != nil {
		return "", &modifyError{step: "invalid", err: err}
	}
	if !wasSigned && signed(zc) {
		if _, ok := zc.Get("key-directory"); !ok {
			// As for zones created signed: named keeps the keys where a
			// delete finds and removes them.
			zc.Set("key-directory", rndc.QuoteString(b.store.Dir()))
		}
	}
	block := zc.Block()
	h.logger.Debug("modifying zone", zap.String("zone", name), zap.String("config", block))
	text, err := b.rndc.ModZone(ctx, name, block)
	if err != nil {
		return "", &modifyError{step: "modzone", err: err}
	}
	return text, nil
}

// signed reports whether the zone's configuration has named sign it: a
// dnssec-policy other than none, or inline-signing yes.
func signed(zc *rndc.ZoneConfig) bool {
	if v, ok := zc.Get("dnssec-policy"); ok {
		if w, err := rndc.Words(v); err == nil && len(w) == 1 && w[0] != "none" {
			return true
		}
	}
	v, _ := zc.Get("inline-signing")
	return v == "yes" || v == "true" || v == "1"
}

// modifyFailed answers a failed modifyZone.
func (h *Handler) modifyFailed(w http.ResponseWriter, name string, err error) {
	var me *modifyError
	switch {
	case !errors.As(err, &me):
		writeError(w, http.StatusInternalServerError, "%v", err)
	case me.step == "invalid":
		writeError(w, http.StatusBadRequest, "invalid change: %v", me.err)
	case me.step == "lock":
		lockFailed(w, name, me.err)
	default:
		h.commandFailed(w, me.step, name, me.err)
	}
}

// zoneConfigFor reads the zone's configuration for GET; a failure is
// logged and leaves the configuration out.
func (h *Handler) zoneConfigFor(ctx context.Context, b *backend, name string) *zoneConfigView {
	zc, err := b.rndc.ShowZoneConfig(ctx, name)
	if err != nil {
		return nil
	}
	return viewConfig(zc)
}

// handleRetransfer asks named to transfer a secondary zone again. named
// refuses on a primary zone: 409 with its reason.
func (h *Handler) handleRetransfer(w http.ResponseWriter, r *http.Request, p params) {
	b, name, ok := h.zoneTarget(w, p)
	if !ok {
		return
	}
	text, err := b.rndc.Retransfer(r.Context(), name)
	if err != nil {
		h.commandFailed(w, "retransfer", name, err)
		return
	}
	writeJSON(w, http.StatusOK, zoneResponse{Success: true, Message: "Retransfer initiated for zone " + name, Details: text})
}
