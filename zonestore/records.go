package zonestore

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// AddRecordRequest is the body of POST /api/v1/zones/{name}/records
// (bindcar-compatible).
type AddRecordRequest struct {
	// Name is the owner: "@", a name relative to the zone, or an absolute
	// name inside the zone ("www.example.com" and "www.example.com." both
	// mean www.example.com. in zone example.com).
	Name string `json:"name"`
	// Type is the record type, e.g. "A", "MX" or "TYPE65534"
	// (case-insensitive).
	Type string `json:"type"`
	// Value is the record data in master-file form; see Record.Value.
	Value string `json:"value"`
	// TTL is the record's TTL; the zone's default TTL (its SOA record's
	// TTL) applies when absent.
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value.
	Priority *uint16 `json:"priority,omitempty"`
}

// RemoveRecordRequest is the body of DELETE /api/v1/zones/{name}/records.
// Without Value the whole RRset of Name and Type is deleted.
type RemoveRecordRequest struct {
	// Name is the owner, as in AddRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the data of the one record to delete; absent: every record
	// of the type at the name.
	Value *string `json:"value,omitempty"`
	// Priority is the MX preference or SRV priority, put before Value (an
	// addition to bindcar, where Value must carry it).
	Priority *uint16 `json:"priority,omitempty"`
}

// UpdateRecordRequest is the body of PUT /api/v1/zones/{name}/records: it
// replaces one record's data in one UPDATE message, on the condition that
// the current value exists.
type UpdateRecordRequest struct {
	// Name is the owner, as in AddRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// CurrentValue is the data of the record to replace.
	CurrentValue string `json:"currentValue"`
	// NewValue is the data that replaces it.
	NewValue string `json:"newValue"`
	// TTL is the new record's TTL (default: the zone's default TTL).
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is the MX preference or SRV priority of both values.
	Priority *uint16 `json:"priority,omitempty"`
}

// BatchRequest is the body of PATCH /api/v1/zones/{name}/records: changes
// applied in order as one UPDATE message, all or nothing.
type BatchRequest struct {
	// Changes are the changes, applied in order.
	Changes []Change `json:"changes"`
}

// Batch change operations.
const (
	// OpAdd adds one record (value).
	OpAdd = "add"
	// OpRemove removes one record (value), if present.
	OpRemove = "remove"
	// OpReplace replaces the RRset of name and type with values.
	OpReplace = "replace"
	// OpDelete deletes the RRset of name and type.
	OpDelete = "delete"
)

// Change is one change of a batch.
type Change struct {
	// Op is "add", "remove", "replace" or "delete".
	Op string `json:"op"`
	// Name is the owner, as in AddRecordRequest.
	Name string `json:"name"`
	// Type is the record type.
	Type string `json:"type"`
	// Value is the record data of add and remove.
	Value string `json:"value,omitempty"`
	// Values are the new RRset's data for replace.
	Values []string `json:"values,omitempty"`
	// TTL applies to add and replace (default: the zone's default TTL).
	TTL *uint32 `json:"ttl,omitempty"`
	// Priority is put before each value of an MX or SRV record.
	Priority *uint16 `json:"priority,omitempty"`
}

// ErrRecordNotFound means the record a change depends on does not exist.
var ErrRecordNotFound = errors.New("record not found")

// ErrNoUpdateKey means the updater holds no TSIG key to sign updates.
var ErrNoUpdateKey = errors.New("no TSIG update key with a secret is configured")

// ConflictError is a change refused because of a DNS rule that named
// would otherwise silently ignore (CNAME and other data, apex NS), or
// because the zone's data no longer allows it.
type ConflictError struct {
	// Field is the JSON path of the offending change, or "".
	Field string
	// Message says what conflicts.
	Message string
}

func (e *ConflictError) Error() string {
	if e.Field != "" {
		return e.Field + ": " + e.Message
	}
	return e.Message
}

// PreconditionError means the zone's serial is not the one the request
// was conditional on (If-Match).
type PreconditionError struct {
	// Expected is the serial the request named.
	Expected uint32
	// Current is the zone's serial now.
	Current uint32
}

func (e *PreconditionError) Error() string {
	return fmt.Sprintf("zone serial is %d, not %d: the zone changed since it was read", e.Current, e.Expected)
}

// NormalizeRecordName resolves a record name of the record endpoints in
// the canonical zone: "@" is the apex; a name ending in '.' is absolute; a
// name that is the zone name or ends in ".<zone>" is absolute too (as in
// bindcar, but on a label boundary); any other name is relative. It returns
// the lower-case absolute name, or an error for invalid or out-of-zone
// names.
func NormalizeRecordName(name, zone string) (string, error) {
	origin := zone + "."
	fqdn, msg := resolveName(absoluteIfInZone(name, origin), origin, true)
	if msg != "" {
		return "", errors.New(msg)
	}
	if !inZone(fqdn, origin) {
		return "", fmt.Errorf("%s is outside the zone %s", fqdn, origin)
	}
	return fqdn, nil
}

// ParseRecordType validates a record type of the record endpoints and
// returns its number.
func ParseRecordType(t string) (uint16, error) {
	if msg := checkRecordType(t); msg != "" {
		return 0, errors.New(msg)
	}
	n, _ := lookupType(strings.ToUpper(t))
	return n, nil
}

// isSOAType reports whether t names the SOA type.
func isSOAType(t string) bool {
	t = strings.ToUpper(strings.TrimSpace(t))
	return t == "SOA" || t == "TYPE6"
}

func soaConflict(field string) *ConflictError {
	return &ConflictError{Field: field, Message: "the SOA record is maintained by named, which bumps its serial on every change; it cannot be added, replaced or deleted here"}
}

// ParseRecord validates one record of the record endpoints against the
// zone (canonical name) and returns it as a dns.RR; defaultTTL applies
// when TTL is nil. Problems are reported under field (e.g. "changes[3]"),
// with the value's field named valueField ("value", "newValue").
func ParseRecord(zone string, defaultTTL uint32, name, typ, value string, ttl *uint32, priority *uint16, field, valueField string) (dns.RR, error) {
	ve := &ValidationError{}
	rr := parseRecordInto(zone, defaultTTL, name, typ, value, ttl, priority, field, valueField, ve)
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return rr, nil
}

// parseRecordInto is ParseRecord adding problems to ve.
func parseRecordInto(zone string, defaultTTL uint32, name, typ, value string, ttl *uint32, priority *uint16, field, valueField string, ve *ValidationError) dns.RR {
	sub := &ValidationError{}
	rr := parseRecord(&Record{Name: name, Type: typ, Value: value, TTL: ttl, Priority: priority}, zone+".", defaultTTL, "", true, sub)
	if rr != nil {
		// The wire form is what named stores and answers: round-trip
		// through it so the record reads back exactly as named gives it.
		w, err := wireRoundTrip(rr)
		if err != nil {
			sub.add(".value", "%q is not valid %s data: %v", value, strings.ToUpper(typ), err)
			rr = nil
		} else {
			rr = w
		}
	}
	for _, p := range sub.Problems {
		f := strings.TrimPrefix(p.Field, ".")
		if f == "value" {
			f = valueField
		}
		if field != "" {
			f = field + "." + f
		}
		dup := false
		for _, q := range ve.Problems {
			if q.Field == f && q.Message == p.Message {
				dup = true
				break
			}
		}
		if !dup {
			ve.Problems = append(ve.Problems, Problem{Field: f, Message: p.Message})
		}
	}
	return rr
}

// wireRoundTrip packs and unpacks rr, giving its canonical presentation.
func wireRoundTrip(rr dns.RR) (dns.RR, error) {
	buf := make([]byte, dns.Len(rr)+64)
	off, err := dns.PackRR(rr, buf, 0, nil, false)
	if err != nil {
		return nil, err
	}
	out, _, err := dns.UnpackRR(buf[:off], 0)
	if err != nil {
		return nil, err
	}
	out.Header().Name = rr.Header().Name
	return out, nil
}

// parseNameType validates a name and a type, adding problems to ve.
func parseNameType(zone, name, typ, field string, ve *ValidationError) (string, uint16) {
	pre := ""
	if field != "" {
		pre = field + "."
	}
	fqdn, err := NormalizeRecordName(name, zone)
	if err != nil {
		ve.add(pre+"name", "%s", err.Error())
	}
	t, err := ParseRecordType(typ)
	if err != nil {
		ve.add(pre+"type", "%s", err.Error())
	}
	return fqdn, t
}

// change is a validated batch step.
type change struct {
	op     string // OpAdd, OpRemove or OpDelete (replace is expanded)
	name   string
	rrtype uint16
	rr     dns.RR // add, remove
	field  string
}

// parseBatch validates every change and expands replace into a delete and
// adds.
func parseBatch(zone string, defaultTTL uint32, req *BatchRequest) ([]change, error) {
	ve := &ValidationError{}
	if len(req.Changes) == 0 {
		ve.add("changes", "must list at least one change")
		return nil, ve
	}
	var out []change
	for i := range req.Changes {
		c := &req.Changes[i]
		field := fmt.Sprintf("changes[%d]", i)
		if isSOAType(c.Type) {
			return nil, soaConflict(field)
		}
		switch c.Op {
		case OpAdd, OpRemove:
			if len(c.Values) > 0 {
				ve.add(field+".values", "is for replace; %s takes value", c.Op)
			}
			if c.Op == OpRemove && c.TTL != nil {
				ve.add(field+".ttl", "is not used by remove")
			}
			rr := parseRecordInto(zone, defaultTTL, c.Name, c.Type, c.Value, c.TTL, c.Priority, field, "value", ve)
			if rr != nil {
				out = append(out, change{op: c.Op, name: rr.Header().Name, rrtype: rr.Header().Rrtype, rr: rr, field: field})
			}
		case OpReplace:
			if c.Value != "" {
				ve.add(field+".value", "replace takes values (a list)")
			}
			if len(c.Values) == 0 {
				ve.add(field+".values", "must list at least one value (use delete to remove the RRset)")
			}
			name, t := parseNameType(zone, c.Name, c.Type, field, ve)
			if name == "" || t == 0 {
				continue
			}
			out = append(out, change{op: OpDelete, name: name, rrtype: t, field: field})
			for j, v := range c.Values {
				rr := parseRecordInto(zone, defaultTTL, c.Name, c.Type, v, c.TTL, c.Priority, field, fmt.Sprintf("values[%d]", j), ve)
				if rr != nil {
					out = append(out, change{op: OpAdd, name: name, rrtype: t, rr: rr, field: field})
				}
			}
		case OpDelete:
			if c.Value != "" || len(c.Values) > 0 {
				ve.add(field+".value", "delete removes the whole RRset and takes no value (use remove for one record)")
			}
			if c.TTL != nil || c.Priority != nil {
				ve.add(field, "delete takes no ttl or priority")
			}
			name, t := parseNameType(zone, c.Name, c.Type, field, ve)
			if name != "" && t != 0 {
				out = append(out, change{op: OpDelete, name: name, rrtype: t, field: field})
			}
		case "":
			ve.add(field+".op", "must not be empty (add, remove, replace or delete)")
		default:
			ve.add(field+".op", "%q is not an operation (add, remove, replace or delete)", c.Op)
		}
	}
	if len(ve.Problems) > 0 {
		return nil, ve
	}
	return out, nil
}

// nameData is the simulated data at one owner name, by type.
type nameData map[uint16][]dns.RR

// simulation applies a batch to the affected names of a snapshot, in
// order, enforcing the rules named would otherwise apply silently.
type simulation struct {
	snap  *Snapshot
	names map[string]nameData
}

func (s *simulation) at(name string) nameData {
	if d, ok := s.names[name]; ok {
		return d
	}
	d := nameData{}
	for _, rr := range s.snap.At(name) {
		t := rr.Header().Rrtype
		d[t] = append(d[t], rr)
	}
	s.names[name] = d
	return d
}

// coexistsWithCNAME lists the types allowed beside a CNAME (DNSSEC data).
var coexistsWithCNAME = map[uint16]bool{dns.TypeRRSIG: true, dns.TypeNSEC: true, dns.TypeNSEC3: true, dns.TypeKEY: true}

// otherTypes lists the types at a name that cannot sit beside a CNAME.
func (d nameData) otherTypes() []string {
	var out []string
	for t, rrs := range d {
		if len(rrs) > 0 && t != dns.TypeCNAME && !coexistsWithCNAME[t] {
			out = append(out, typeString(t))
		}
	}
	sortStrings(out)
	return out
}

func (s *simulation) apply(c change) error {
	d := s.at(c.name)
	switch c.op {
	case OpAdd:
		if err := checkAdd(d, c.rr, c.field); err != nil {
			return err
		}
		if mx, ok := c.rr.(*dns.MX); ok && inZone(strings.ToLower(mx.Mx), s.snap.Zone+".") {
			t := s.at(strings.ToLower(mx.Mx))
			if len(t[dns.TypeA])+len(t[dns.TypeAAAA]) == 0 {
				return mxConflict(c.field, mx)
			}
		}
		d[c.rrtype] = addRR(d[c.rrtype], c.rr)
	case OpRemove:
		d[c.rrtype] = removeRR(d[c.rrtype], c.rr)
	case OpDelete:
		delete(d, c.rrtype)
	}
	return nil
}

// checkAdd refuses an add that named would ignore: data beside a CNAME, a
// second CNAME, a CNAME beside data.
func checkAdd(d nameData, rr dns.RR, field string) error {
	h := rr.Header()
	if h.Rrtype == dns.TypeCNAME {
		if cur := d[dns.TypeCNAME]; len(cur) > 0 && !dns.IsDuplicate(cur[0], rr) {
			return &ConflictError{Field: field, Message: fmt.Sprintf("%s already has a CNAME (to %s); a name has at most one CNAME: replace it (PUT, or delete then add)", h.Name, cur[0].(*dns.CNAME).Target)}
		}
		if other := d.otherTypes(); len(other) > 0 {
			return &ConflictError{Field: field, Message: fmt.Sprintf("a CNAME at %s cannot coexist with the %s data there (RFC 1034 §3.6.2)", h.Name, strings.Join(other, ", "))}
		}
		return nil
	}
	if cur := d[dns.TypeCNAME]; len(cur) > 0 && !coexistsWithCNAME[h.Rrtype] {
		return &ConflictError{Field: field, Message: fmt.Sprintf("%s is a CNAME (to %s): other data cannot be added beside it (RFC 1034 §3.6.2)", h.Name, cur[0].(*dns.CNAME).Target)}
	}
	return nil
}

// addRR adds rr to an RRset unless present; like named, the RRset takes
// the new record's TTL.
func addRR(set []dns.RR, rr dns.RR) []dns.RR {
	out := make([]dns.RR, 0, len(set)+1)
	ttl := rr.Header().Ttl
	found := false
	for _, x := range set {
		if dns.IsDuplicate(x, rr) {
			found = true
		}
		x = dns.Copy(x)
		x.Header().Ttl = ttl
		out = append(out, x)
	}
	if !found {
		out = append(out, dns.Copy(rr))
	}
	return out
}

func removeRR(set []dns.RR, rr dns.RR) []dns.RR {
	var out []dns.RR
	for _, x := range set {
		if !dns.IsDuplicate(x, rr) {
			out = append(out, x)
		}
	}
	return out
}

func containsRR(set []dns.RR, rr dns.RR) bool {
	for _, x := range set {
		if dns.IsDuplicate(x, rr) {
			return true
		}
	}
	return false
}

func copyRRs(set []dns.RR) []dns.RR {
	out := make([]dns.RR, len(set))
	for i, rr := range set {
		out[i] = dns.Copy(rr)
	}
	return out
}

func sortStrings(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func itoa(n uint32) string { return strconv.FormatUint(uint64(n), 10) }

// MasterFile renders the snapshot as master-file text: an $ORIGIN line,
// then one record per line with absolute names, SOA first.
func (s *Snapshot) MasterFile() []byte {
	var b strings.Builder
	b.WriteString("$ORIGIN " + s.Zone + ".\n")
	for _, rr := range s.RRs {
		b.WriteString(rr.String())
		b.WriteByte('\n')
	}
	return []byte(b.String())
}
