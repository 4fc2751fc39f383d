package powerdns

import (
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/zoneapi/caddy-zoneapi/auth"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// The changetypes of an RRset in a PATCH (PowerDNS 5.0 added EXTEND and
// PRUNE).
const (
	ChangeReplace = "REPLACE"
	ChangeDelete  = "DELETE"
	ChangeExtend  = "EXTEND"
	ChangePrune   = "PRUNE"
)

// InputError is input PowerDNS answers 422 Unprocessable Entity to; its
// message is the body's error.
type InputError struct {
	Message string
}

func (e *InputError) Error() string { return e.Message }

func inputErr(format string, args ...any) *InputError {
	return &InputError{Message: fmt.Sprintf(format, args...)}
}

// refusedTypes are record types PowerDNS serves that BIND cannot: 422.
var refusedTypes = map[string]string{
	"ALIAS": "ALIAS is a PowerDNS extension that BIND cannot serve (no record type on the wire; PowerDNS resolves the target at query time): use a CNAME below the apex, or A/AAAA records",
	"LUA":   "LUA records are PowerDNS scripts that BIND cannot run",
}

// singletonTypes hold at most one record per RRset.
var singletonTypes = map[string]bool{"CNAME": true, "DNAME": true, "SOA": true}

// Plan is a PATCH of RRsets translated into the zone service's change
// list: applied in order as one UPDATE, all or nothing, with one serial
// bump.
type Plan struct {
	// Changes are the changes, in the order of the request's RRsets.
	Changes []zonemodel.Change
	// RRset is, for each change, the index of the request's RRset it comes
	// from (to name it in an error).
	RRset []int
	// Sets are the request's RRsets with canonical names and types.
	Sets []RRset
}

// Label names the RRset a change came from as PowerDNS does in errors:
// "www.example.com. IN A".
func (p *Plan) Label(change int) string {
	if change < 0 || change >= len(p.RRset) {
		return ""
	}
	s := p.Sets[p.RRset[change]]
	return s.Name + " IN " + s.Type
}

// changeField matches the field of a change in the service's errors,
// "changes[3]", with what follows.
var changeField = regexp.MustCompile(`^changes\[(\d+)\]`)

// Explain rewrites a field of the service's validation or conflict
// errors ("changes[3].value") into the RRset it names ("RRset
// www.example.com. IN A"), for the 422 body.
func (p *Plan) Explain(field, message string) string {
	if m := changeField.FindStringSubmatch(field); m != nil {
		if i, err := strconv.Atoi(m[1]); err == nil && p.Label(i) != "" {
			return "RRset " + p.Label(i) + ": " + message
		}
	}
	if field == "" {
		return message
	}
	return field + ": " + message
}

// PlanPatch checks a PATCH's RRsets against PowerDNS's rules and
// translates them for the zone (canonical name, no trailing dot):
//
//   - REPLACE with records replaces the RRset; with an empty records
//     list it deletes the RRset; without records (comments only) it
//     changes no record.
//   - DELETE deletes the RRset (outside the zone: nothing, as PowerDNS
//     lets clients delete what should not be there).
//   - EXTEND adds its one record unless present; PRUNE removes its one
//     record if present.
//
// The same name and type twice, a missing or unknown changetype, a name
// outside the zone, a duplicate record, two records in a CNAME, disabled
// records, non-empty comments, ALIAS and LUA, and an SOA deleted,
// extended or pruned are refused with an *InputError. An SOA replaced
// (one record) sets the zone's SOA in the same UPDATE, its serial edited
// by the zone's SOA-EDIT-API first (Plan.EditSOA). Record content is checked by the zone
// service when the plan is applied.
func PlanPatch(zone string, sets []RRset) (*Plan, error) {
	p := &Plan{}
	seen := map[string]bool{}
	for i := range sets {
		s := sets[i]
		ct := ""
		if s.ChangeType != nil {
			ct = strings.ToUpper(*s.ChangeType)
		}
		name, err := CanonicalName(s.Name)
		if err != nil {
			return nil, &InputError{Message: err.Error()}
		}
		typ := strings.ToUpper(strings.TrimSpace(s.Type))
		s.Name, s.Type = name, typ
		label := name + " IN " + typ
		if typ == "" {
			return nil, inputErr("RRset %s: Key 'type' not present or not a String", name)
		}
		if s.ChangeType == nil {
			return nil, inputErr("RRset %s: Key 'changetype' not present or not a String", label)
		}
		// An RRset may be named twice with different changetypes (a
		// DELETE, then a REPLACE: applied in order), not twice with one.
		if seen[label+" "+ct] {
			return nil, inputErr("Duplicate RRset %s", label)
		}
		seen[label+" "+ct] = true
		if why, ok := refusedTypes[typ]; ok {
			return nil, inputErr("RRset %s: %s", label, why)
		}
		if singletonTypes[typ] && len(s.Records) > 1 {
			return nil, errOnlyOne(label)
		}
		if err := checkApex(zone, name, typ); err != nil {
			return nil, err
		}
		if typ == "DNSKEY" {
			return nil, inputErr("RRset %s: DNSKEY records are BIND's to publish: named signs a zone only with keys it holds (dnssec: true, or cryptokeys), and refuses a DNSKEY record it has no private key for", label)
		}
		if typ == "SOA" && (ct != ChangeReplace || s.Records != nil && len(s.Records) == 0) {
			return nil, inputErr("RRset %s: the SOA RRset can only be replaced (changetype REPLACE, one record): BIND serves a zone only with its SOA", label)
		}
		if _, err := zonemodel.ParseRecordType(typ); err != nil && typ != "SOA" {
			if strings.Contains(err.Error(), "not a known record type") {
				return nil, inputErr("RRset %s: unknown type given", label)
			}
			return nil, inputErr("RRset %s: invalid type given: %v", label, err)
		}
		if ct != ChangeDelete && !InZone(name, zone) {
			return nil, inputErr("RRset %s: Name is out of zone", label)
		}
		if err := checkComments(s.Comments); err != nil {
			return nil, err
		}
		if hasComments(s.Comments) {
			return nil, inputErr("RRset %s: comments are not supported: BIND keeps no comments with records, and this API does not store them elsewhere; send \"comments\": [] or leave them out", label)
		}
		// Content is taken without the white space around it, as
		// PowerDNS 4.9+ does.
		s.Records = trimmedRecords(s.Records)
		for _, r := range s.Records {
			if r.Disabled {
				return nil, inputErr("RRset %s: disabled records are not supported: BIND serves every record of a zone; remove the record instead", label)
			}
			if r.Content == "" {
				return nil, inputErr("Record %s/%s '%s': Not in expected format (parsed as '%s')", name, typ, r.Content, r.Content)
			}
			if err := checkContent(name, typ, r.Content); err != nil {
				return nil, err
			}
			if err := checkHostname(label, typ, r.Content); err != nil {
				return nil, err
			}
		}
		p.Sets = append(p.Sets, s)
		idx := len(p.Sets) - 1
		add := func(c zonemodel.Change) {
			c.Name, c.Type = name, typ
			p.Changes = append(p.Changes, c)
			p.RRset = append(p.RRset, idx)
		}
		switch ct {
		case ChangeDelete:
			if len(s.Records) > 0 {
				return nil, inputErr("RRset %s: records must be empty when changetype is DELETE", label)
			}
			if InZone(name, zone) {
				add(zonemodel.Change{Op: zonemodel.OpDelete})
			}
		case ChangeReplace:
			if s.Records == nil {
				continue // comments only: no record changes
			}
			if len(s.Records) == 0 {
				add(zonemodel.Change{Op: zonemodel.OpDelete})
				continue
			}
			if s.TTL == nil {
				return nil, inputErr("RRset %s: Key 'ttl' not present or not an Integer", label)
			}
			values := make([]string, 0, len(s.Records))
			dup := map[string]bool{}
			for _, r := range s.Records {
				k := contentKey(r.Content)
				if dup[k] {
					return nil, errDuplicate(label, r.Content)
				}
				dup[k] = true
				values = append(values, r.Content)
			}
			if typ == "SOA" {
				if _, err := soaSerial(values[0]); err != nil {
					return nil, inputErr("RRset %s: %v", label, err)
				}
			}
			ttl := *s.TTL
			add(zonemodel.Change{Op: zonemodel.OpReplace, Values: values, TTL: &ttl})
		case ChangeExtend, ChangePrune:
			if len(s.Records) != 1 {
				return nil, inputErr("RRset %s: exactly one record must be given when changetype is %s", label, ct)
			}
			if ct == ChangePrune {
				add(zonemodel.Change{Op: zonemodel.OpRemove, Value: s.Records[0].Content})
				continue
			}
			if s.TTL == nil {
				return nil, inputErr("RRset %s: Key 'ttl' not present or not an Integer", label)
			}
			ttl := *s.TTL
			add(zonemodel.Change{Op: zonemodel.OpAdd, Value: s.Records[0].Content, TTL: &ttl})
		default:
			return nil, inputErr("RRset %s: Changetype '%s' is not a valid value", label, *s.ChangeType)
		}
	}
	return p, nil
}

// hasComments reports whether a comments list says anything: clients
// such as PowerDNS-Admin send {"content": "", "account": ""} for a record
// without a comment, which is accepted as no comment.
func hasComments(cs []Comment) bool {
	for _, c := range cs {
		if c.Content != "" {
			return true
		}
	}
	return false
}

// checkAbsolute refuses record content naming a domain without its
// trailing dot, as PowerDNS does (its content is always absolute; a zone
// file would complete the name with the origin instead).
func checkAbsolute(name, typ, content string) error {
	if zonemodel.HasRelativeNames(typ, content) {
		return inputErr("Record %s/%s '%s': Not in expected format: names in record content must be absolute (end with a dot)", name, typ, content)
	}
	return nil
}

// allowRecords checks that the identity may make the plan's changes to
// the zone's records (AllowRecords), answering 403 itself when not.
func (a *API) allowRecords(w http.ResponseWriter, r *http.Request, zone string, sets []RRset) bool {
	changes := make([]auth.RecordChange, len(sets))
	for i, s := range sets {
		changes[i] = auth.RecordChange{Field: "RRset " + strconv.Itoa(i), Name: s.Name, Type: s.Type}
	}
	if a.AllowRecords != nil {
		return a.AllowRecords(w, r, zone, changes)
	}
	if id := identity(r); id != nil {
		if err := id.Grant.CheckRecordChanges(id.ID, zone, "", changes); err != nil {
			a.forbid(w, r, err)
			return false
		}
	}
	return true
}

// EditSOA applies SOA-EDIT-API api (with SOA-EDIT edit) to the serial of
// the SOA the plan sets, as PowerDNS does to an SOA given in a PATCH or
// a PUT of rrsets (an empty api keeps the serial given). The zone service
// then takes that serial when it is above the zone's, and otherwise the
// next one: BIND serves no lower serial.
func (p *Plan) EditSOA(api, edit string, now time.Time) {
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Type != "SOA" || len(c.Values) != 1 {
			continue
		}
		given, err := soaSerial(c.Values[0])
		if err != nil {
			continue
		}
		f := strings.Fields(c.Values[0])
		f[2] = strconv.FormatUint(uint64(CreateSerial(given, api, edit, now)), 10)
		c.Values = []string{strings.Join(f, " ")}
	}
}

// SetsSOA reports whether the plan sets the zone's SOA.
func (p *Plan) SetsSOA() bool {
	for _, c := range p.Changes {
		if c.Type == "SOA" {
			return true
		}
	}
	return false
}

// soaSerial is the serial of SOA content ("mname rname serial refresh
// retry expire minimum").
func soaSerial(content string) (uint32, error) {
	var soa zonemodel.SOA
	if err := soaFromContent(content, &soa, false); err != nil {
		return 0, err
	}
	return *soa.Serial, nil
}

// editPlanSOA edits the serial of the SOA a PATCH sets by the zone's
// SOA-EDIT-API and SOA-EDIT, read from its side file (DEFAULT when not
// kept), answering a failure itself (not ok). Only a plan that sets the
// SOA reads the zone.
func (a *API) editPlanSOA(w http.ResponseWriter, r *http.Request, name string, plan *Plan) bool {
	if !plan.SetsSOA() {
		return true
	}
	z, ok := a.zone(w, r, name)
	if !ok {
		return false
	}
	d, err := a.loadData(z)
	if err != nil {
		a.fail(w, err, nil, false)
		return false
	}
	plan.EditSOA(soaEditsOf(d, nil), d.SOAEdit, time.Now())
	return true
}

// soaEditsOf is the zone's SOA-EDIT-API: api when given (a PUT's),
// else the one its side data keeps, DEFAULT when none.
func soaEditsOf(d *zoneData, api *string) string {
	switch {
	case api != nil:
		return *api
	case d.SOAEditAPI != nil:
		return *d.SOAEditAPI
	}
	return SOAEditAPIDefault
}

// soaContent is SOA content as PowerDNS shows it: its MNAME and RNAME
// escape only what PowerDNS escapes in a name (a dot or a backslash
// inside a label, and bytes that are not printable, as \DDD), where the
// content read from named escapes zone-file specials too ("test\@"):
// an RNAME given as "test@example.org." reads back as given
// (test_only_at_apex_0_SOA).
func soaContent(v string) string {
	f := strings.Fields(v)
	if len(f) != 7 {
		return v
	}
	for i := 0; i < 2; i++ {
		var b strings.Builder
		name := f[i]
		for j := 0; j < len(name); j++ {
			c := name[j]
			if c == '\\' && j+1 < len(name) && name[j+1] > ' ' && name[j+1] < 0x7f && name[j+1] != '.' && name[j+1] != '\\' && (name[j+1] < '0' || name[j+1] > '9') {
				continue // \@, \; \( \) \" \$: the character itself
			}
			b.WriteByte(c)
			if c == '\\' && j+1 < len(name) {
				j++
				b.WriteByte(name[j])
			}
		}
		f[i] = b.String()
	}
	return strings.Join(f, " ")
}
