package auth

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Action is a class of operations a scope admits.
type Action string

// The actions. Every route of the API needs exactly one.
const (
	// ActionRead reads zones and records: list, get, status, records, export.
	ActionRead Action = "read"
	// ActionRecords changes records: add, update, remove, batch.
	ActionRecords Action = "records"
	// ActionZones manages zones: create, delete, reload, freeze, thaw, notify.
	ActionZones Action = "zones"
	// ActionServer reads the name server's status.
	ActionServer Action = "server"
)

// Actions lists every action.
var Actions = []Action{ActionRead, ActionRecords, ActionZones, ActionServer}

// Scope says what a principal may do. Every list that is empty leaves its
// dimension unrestricted; a principal with an empty scope may do
// everything. A request is allowed when its action, its zone, and (for
// record changes and reads) each record's name and type are all allowed.
type Scope struct {
	// Actions are the allowed actions: read, records, zones, server.
	Actions []string `json:"actions,omitempty"`
	// Zones are the allowed zones: a name (example.com) allows that zone;
	// a pattern *.example.com allows every zone below example.com (not
	// example.com itself); * allows every zone. A pattern followed by
	// @<view> (example.com@internal, *@internal) allows those zones only
	// in that view (a request naming it with ?view=); without @ a
	// pattern allows the zones in every view and without one.
	Zones []string `json:"zones,omitempty"`
	// Views are the allowed views (named.conf's view names): a request
	// must name one of them (?view=, or the configured default view).
	// With views set, a request that addresses no view is refused.
	Views []string `json:"views,omitempty"`
	// Names are the allowed record owner names, absolute, matched label
	// by label; a label * matches one or more labels, so
	// _acme-challenge.* allows every _acme-challenge name.
	Names []string `json:"names,omitempty"`
	// Types are the allowed record types, e.g. TXT.
	Types []string `json:"types,omitempty"`
}

// IsEmpty reports whether the scope restricts nothing.
func (s Scope) IsEmpty() bool {
	return len(s.Actions) == 0 && len(s.Zones) == 0 && len(s.Views) == 0 && len(s.Names) == 0 && len(s.Types) == 0
}

// String renders the scope in the key=value syntax ParseScope reads.
func (s Scope) String() string {
	var parts []string
	add := func(k string, v []string) {
		if len(v) > 0 {
			parts = append(parts, k+"="+strings.Join(v, ","))
		}
	}
	add("actions", s.Actions)
	add("zones", s.Zones)
	add("views", s.Views)
	add("names", s.Names)
	add("types", s.Types)
	return strings.Join(parts, " ")
}

// ParseScope reads a scope written as space-separated key=value fields,
// values comma-separated: `actions=records zones=example.com
// names=_acme-challenge.* types=TXT`, and `views=internal` or
// `zones=example.com@internal` for views. Unknown keys are errors.
func ParseScope(text string) (Scope, error) {
	var s Scope
	for _, f := range strings.Fields(text) {
		k, v, ok := strings.Cut(f, "=")
		if !ok || v == "" {
			return Scope{}, fmt.Errorf("scope field %q: want key=value[,value…]", f)
		}
		if err := s.Add(k, strings.Split(v, ",")...); err != nil {
			return Scope{}, err
		}
	}
	return s, nil
}

// Add appends values to the scope field named key (actions, zones,
// views, names, types, or the singular action, zone, view, name, type).
// A field given
// no value (only empty or blank ones) is an error: a scope never grants
// more because something in it is empty.
func (s *Scope) Add(key string, values ...string) error {
	var dst *[]string
	switch key {
	case "actions", "action":
		dst = &s.Actions
	case "zones", "zone":
		dst = &s.Zones
	case "views", "view":
		dst = &s.Views
	case "names", "name":
		dst = &s.Names
	case "types", "type":
		dst = &s.Types
	default:
		return fmt.Errorf("unknown scope field %q: want actions, zones, views, names or types", key)
	}
	n := 0
	for _, v := range values {
		if v = strings.TrimSpace(v); v != "" {
			*dst = append(*dst, v)
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("scope field %q has no value", key)
	}
	return nil
}

// UnmarshalJSON accepts a scope as a string in ParseScope's syntax or
// as an object, convenient in JWT claims. The object form takes exactly
// what the string form takes, through the same Add: the same field names
// (singular aliases included), each value a list of strings or one
// comma-separated string; an unknown field, a value of another type
// (number, boolean, null, object) or a field without a value is an
// error. A JSON null, an empty or blank string and {} give the empty
// Scope (callers that must not read "empty" as "everything", such as
// the jwt mode, check IsEmpty).
func (s *Scope) UnmarshalJSON(b []byte) error {
	var v Scope
	if trimmed := strings.TrimSpace(string(b)); trimmed == "null" {
		*s = v
		return nil
	}
	var text string
	if json.Unmarshal(b, &text) == nil {
		p, err := ParseScope(text)
		if err != nil {
			return err
		}
		*s = p
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return fmt.Errorf("a scope is a string or an object of fields, not %s", jsonKind(b))
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		raw := obj[k]
		var values []string
		if err := json.Unmarshal(raw, &text); err == nil && jsonKind(raw) == "a string" {
			values = strings.Split(text, ",")
		} else if jsonKind(raw) != "an array" || json.Unmarshal(raw, &values) != nil {
			return fmt.Errorf("scope field %q: want a list of strings or a comma-separated string, not %s", k, jsonKind(raw))
		}
		if err := v.Add(k, values...); err != nil {
			return err
		}
	}
	*s = v
	return nil
}

// jsonKind names the kind of a JSON value for messages.
func jsonKind(b []byte) string {
	t := strings.TrimSpace(string(b))
	if t == "" {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return "a string"
	case '[':
		return "an array"
	case '{':
		return "an object"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Grant is a compiled scope: what an identity may do. A nil *Grant
// allows everything.
type Grant struct {
	scope   Scope
	actions map[Action]bool
	zones   []zonePattern   // nil: every zone in every view
	views   map[string]bool // nil: every view, and none
	names   [][]string
	types   map[string]bool
	// and, when set, must allow a request too: the grant is the
	// intersection of this one and and (see Intersect).
	and *Grant
}

// zonePattern is a compiled zone pattern: an exact name, a "*." suffix
// pattern or "*" (every zone), and the view it is limited to ("": any).
type zonePattern struct {
	name, view string
}

// Intersect returns a grant that allows only what both a and b allow
// (nil allows everything, so Intersect(nil, b) is b).
func Intersect(a, b *Grant) *Grant {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	c := *a
	c.and = Intersect(a.and, b)
	return &c
}

// Compile checks the scope and returns its grant; an empty scope gives a
// nil grant (everything allowed).
func (s Scope) Compile() (*Grant, error) {
	if s.IsEmpty() {
		return nil, nil
	}
	g := &Grant{scope: s}
	if len(s.Actions) > 0 {
		g.actions = map[Action]bool{}
		for _, a := range s.Actions {
			act := Action(strings.ToLower(a))
			if !slices.Contains(Actions, act) {
				return nil, fmt.Errorf("unknown action %q: want read, records, zones or server", a)
			}
			g.actions[act] = true
		}
	}
	all := false
	for _, z := range s.Zones {
		p, view, hasView := strings.Cut(z, "@")
		p = strings.TrimSuffix(strings.ToLower(p), ".")
		if p == "" || strings.Contains(strings.TrimPrefix(p, "*."), "*") && p != "*" {
			return nil, fmt.Errorf("zone pattern %q: want a zone name, *.<zone> or *, optionally followed by @<view>", z)
		}
		if hasView {
			if err := zonemodel.CheckViewName(view); err != nil {
				return nil, fmt.Errorf("zone pattern %q: %v", z, err)
			}
		}
		all = all || p == "*" && !hasView
		g.zones = append(g.zones, zonePattern{name: p, view: view})
	}
	if all {
		g.zones = nil // * is every zone in every view: not limited to some
	}
	for _, v := range s.Views {
		if err := zonemodel.CheckViewName(v); err != nil {
			return nil, fmt.Errorf("views: %v", err)
		}
		if g.views == nil {
			g.views = map[string]bool{}
		}
		g.views[v] = true
	}
	for _, n := range s.Names {
		p := strings.TrimSuffix(strings.ToLower(n), ".")
		if p == "" {
			return nil, fmt.Errorf("empty record name pattern")
		}
		labels := strings.Split(p, ".")
		for _, l := range labels {
			if l == "" || (strings.Contains(l, "*") && l != "*") {
				return nil, fmt.Errorf("record name pattern %q: labels are names or a whole *", n)
			}
		}
		g.names = append(g.names, labels)
	}
	if len(s.Types) > 0 {
		g.types = map[string]bool{}
		for _, t := range s.Types {
			u := strings.ToUpper(t)
			if _, ok := dns.StringToType[u]; !ok {
				return nil, fmt.Errorf("unknown record type %q", t)
			}
			g.types[u] = true
		}
	}
	return g, nil
}

// Scope returns the scope the grant was compiled from.
func (g *Grant) Scope() Scope {
	if g == nil {
		return Scope{}
	}
	return g.scope
}

// Denied is a request outside the identity's scope; its message says
// what was missing.
type Denied struct {
	Message string
}

func (d *Denied) Error() string { return d.Message }

// AllowsAction reports whether the action is granted.
func (g *Grant) AllowsAction(a Action) bool {
	return g == nil || (g.actions == nil || g.actions[a]) && g.and.AllowsAction(a)
}

// AllowsServer reports whether server-wide operations (server status and
// reconcile, the catalog) are granted: the server action, and no limit
// to some zones or to some record names or types, since such operations
// see and touch every zone and record (a reconcile moves zone files and
// re-adds zones; the catalog is records of other types).
func (g *Grant) AllowsServer() bool {
	return g.AllowsAction(ActionServer) && !g.RestrictsZones() && !g.RestrictsRecords()
}

// AllowsZone reports whether the zone (any case, with or without the
// trailing dot), addressed without a view, is granted.
func (g *Grant) AllowsZone(zone string) bool { return g.AllowsZoneIn(zone, "") }

// AllowsZoneIn reports whether the zone (any case, with or without the
// trailing dot) in view is granted; view "" is the zone addressed
// without a view, which a grant limited to some views never allows.
func (g *Grant) AllowsZoneIn(zone, view string) bool {
	if g == nil {
		return true
	}
	if !g.and.AllowsZoneIn(zone, view) {
		return false
	}
	if g.views != nil && !g.views[view] {
		return false
	}
	if g.zones == nil {
		return true
	}
	z := strings.TrimSuffix(strings.ToLower(zone), ".")
	for _, p := range g.zones {
		if p.view != "" && p.view != view {
			continue
		}
		switch {
		case p.name == "*":
			return true
		case strings.HasPrefix(p.name, "*."):
			if strings.HasSuffix(z, p.name[1:]) && len(z) > len(p.name)-1 {
				return true
			}
		case p.name == z:
			return true
		}
	}
	return false
}

// RestrictsZones reports whether the grant names zones or views (so zone
// lists must be filtered).
func (g *Grant) RestrictsZones() bool {
	return g != nil && (g.zones != nil || g.views != nil || g.and.RestrictsZones())
}

// RestrictsViews reports whether the grant names views, in its views or
// in a zone pattern's @view (so a request that addresses no view may be
// refused where one naming the view would not).
func (g *Grant) RestrictsViews() bool {
	if g == nil {
		return false
	}
	if g.views != nil {
		return true
	}
	for _, p := range g.zones {
		if p.view != "" {
			return true
		}
	}
	return g.and.RestrictsViews()
}

// RestrictsRecords reports whether the grant limits record names or
// types (so record reads must be filtered).
func (g *Grant) RestrictsRecords() bool {
	return g != nil && (g.names != nil || g.types != nil || g.and.RestrictsRecords())
}

// AllowsRecord reports whether a record of the owner name (absolute, any
// case, with or without the trailing dot) and type is granted.
func (g *Grant) AllowsRecord(name, rrtype string) bool {
	return g == nil || g.allowsRecord(name, rrtype) && g.and.AllowsRecord(name, rrtype)
}

// allowsRecord is AllowsRecord of this grant alone, without and.
func (g *Grant) allowsRecord(name, rrtype string) bool {
	if g.types != nil && !g.types[strings.ToUpper(rrtype)] {
		return false
	}
	if g.names == nil {
		return true
	}
	labels := strings.Split(strings.TrimSuffix(strings.ToLower(name), "."), ".")
	for _, p := range g.names {
		if matchLabels(p, labels) {
			return true
		}
	}
	return false
}

// matchLabels matches name labels against pattern labels; a pattern label
// * matches one or more labels.
func matchLabels(p, n []string) bool {
	for len(p) > 0 {
		if p[0] == "*" {
			for k := 1; k <= len(n); k++ {
				if matchLabels(p[1:], n[k:]) {
					return true
				}
			}
			return false
		}
		if len(n) == 0 || p[0] != n[0] {
			return false
		}
		p, n = p[1:], n[1:]
	}
	return len(n) == 0
}

// CheckAction returns a *Denied unless the action is granted, and for a
// zone-bound action (zone != "") the zone, addressed without a view, too.
func (g *Grant) CheckAction(who string, a Action, zone string) error {
	return g.CheckActionIn(who, a, zone, "")
}

// CheckActionIn returns a *Denied unless the action is granted, and for
// a zone-bound action (zone != "") the zone in view (""; none) too.
func (g *Grant) CheckActionIn(who string, a Action, zone, view string) error {
	if g == nil {
		return nil
	}
	for l := g; l != nil; l = l.and {
		if l.actions != nil && !l.actions[a] {
			return &Denied{Message: fmt.Sprintf("%s lacks the %q action this request needs (its actions: %s)", who, a, orNone(l.scope.Actions))}
		}
	}
	if zone != "" && !g.AllowsZoneIn(zone, view) {
		where := ""
		if view != "" {
			where = " in view " + view
		} else if g.RestrictsViews() {
			where = " without a view (name one with ?view=)"
		}
		var has []string
		if zs := g.zoneList(); len(zs) > 0 {
			has = append(has, "its zones: "+strings.Join(zs, "; "))
		}
		if vs := g.viewList(); len(vs) > 0 {
			has = append(has, "its views: "+strings.Join(vs, "; "))
		}
		return &Denied{Message: fmt.Sprintf("%s has no access to zone %s%s (%s)", who, strings.TrimSuffix(zone, "."), where, strings.Join(has, "; "))}
	}
	return nil
}

// viewList lists the views of the grant and of each grant it is
// intersected with, for messages.
func (g *Grant) viewList() []string { return g.lists(func(s Scope) []string { return s.Views }) }

// zoneList lists the zone patterns of the grant and of each grant it is
// intersected with, for messages.
func (g *Grant) zoneList() []string { return g.lists(func(s Scope) []string { return s.Zones }) }

// lists joins one field of the scope of the grant and of each grant it is
// intersected with, one item per grant that sets it.
func (g *Grant) lists(field func(Scope) []string) []string {
	var out []string
	for ; g != nil; g = g.and {
		if v := field(g.scope); len(v) > 0 {
			out = append(out, strings.Join(v, ", "))
		}
	}
	return out
}

// CheckRecord returns a *Denied unless a change of the record of owner
// name and type is granted. field, when set, names the change in the
// message (e.g. "changes[2]").
func (g *Grant) CheckRecord(who, field, name, rrtype string) error {
	if g.AllowsRecord(name, rrtype) {
		return nil
	}
	for g.allowsRecord(name, rrtype) { // the grant it is intersected with refuses
		g = g.and
	}
	where := ""
	if field != "" {
		where = field + ": "
	}
	var has []string
	if len(g.scope.Names) > 0 {
		has = append(has, "names "+strings.Join(g.scope.Names, ", "))
	}
	if len(g.scope.Types) > 0 {
		has = append(has, "types "+strings.Join(g.scope.Types, ", "))
	}
	return &Denied{Message: fmt.Sprintf("%s%s may not touch %s records named %s (its records: %s); nothing was changed",
		where, who, strings.ToUpper(rrtype), name, strings.Join(has, "; "))}
}

// RecordChange is one RRset a request changes, for CheckRecordChanges:
// its owner name (absolute) and type, and Field, which names it in a
// refusal's message (e.g. "changes[2]", "RRset 0"; "" for none).
type RecordChange struct {
	Field, Name, Type string
}

// CheckRecordChanges is the one question every path that changes the
// records of an existing zone asks (the REST record routes and batches,
// the PowerDNS API's PATCH and its PUT with rrsets): it returns a
// *Denied unless the grant allows the records action on the zone in
// view ("": none) and a change of every RRset named. A request whose
// route needs another action (a PowerDNS PUT needs zones) still needs
// records for the records it changes.
func (g *Grant) CheckRecordChanges(who, zone, view string, changes []RecordChange) error {
	if err := g.CheckActionIn(who, ActionRecords, zone, view); err != nil {
		return err
	}
	for _, c := range changes {
		if err := g.CheckRecord(who, c.Field, c.Name, c.Type); err != nil {
			return err
		}
	}
	return nil
}

// IsZero reports whether the scope is empty, so JSON omits it.
func (s Scope) IsZero() bool { return s.IsEmpty() }

// orNone joins a list for a message, "none" when it is empty.
func orNone(v []string) string {
	if len(v) == 0 {
		return "none"
	}
	return strings.Join(v, ", ")
}

// Scopes returns every scope the grant requires: the one it was compiled
// from and, for an intersection (Intersect), each further one. A request
// is allowed when every scope allows it. Nil (everything) gives none.
func (g *Grant) Scopes() []Scope {
	var out []Scope
	for ; g != nil; g = g.and {
		out = append(out, g.scope)
	}
	return out
}
