package zonemodel

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// Limits of a zone imported from a master file, a zone transfer or a
// copy (docs/import.md).
const (
	// MaxImportBytes bounds a zone file sent to be imported: 64 MiB, a
	// little over ten times a 100,000-record zone.
	MaxImportBytes = 64 << 20
	// MaxImportRecords bounds the records of an imported zone, $GENERATE
	// lines expanded.
	MaxImportRecords = 1_000_000
)

// FileError is a zone file refused: the line (1-based; 0 when the
// problem is not of one line, such as a missing SOA) and what is wrong,
// in the words of the checker that found it.
type FileError struct {
	// Line is the line of the file the problem is on, or 0.
	Line int `json:"line,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// Error returns "line N: message", or the message alone.
func (e *FileError) Error() string {
	if e.Line > 0 {
		return "line " + strconv.Itoa(e.Line) + ": " + e.Message
	}
	return e.Message
}

// LimitError is a zone over MaxImportBytes or MaxImportRecords.
type LimitError struct {
	// Message says which limit and by how much.
	Message string
}

// Error returns the message.
func (e *LimitError) Error() string { return e.Message }

// ScanDirectives checks the directives of a master file before any
// parser that follows them reads it: $INCLUDE is refused (a file sent to
// the API must not read files of the server), and the records the
// $GENERATE lines would make are counted against maxRecords (the other
// records are counted as they are parsed). It reads directives as named
// does: a line (ended by LF, CR or both) whose first byte is '$'.
func ScanDirectives(text []byte, maxRecords int) error {
	generated := 0
	for n := 1; len(text) > 0; n++ {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		// named's reader ends a line at a lone CR as well: what follows
		// one is a line of its own, a directive if it begins with '$'.
		for part := range bytes.SplitSeq(line, []byte{'\r'}) {
			if len(part) == 0 || part[0] != '$' {
				continue
			}
			word, args := directive(part)
			switch word {
			case "$INCLUDE":
				return &FileError{Line: n, Message: "$INCLUDE is not allowed in a zone file sent to the API: send the included records in the file itself"}
			case "$GENERATE":
				count, err := generateCount(args)
				if err != nil {
					return &FileError{Line: n, Message: "$GENERATE: " + err.Error()}
				}
				generated += count
				if generated > maxRecords {
					return &LimitError{Message: fmt.Sprintf("the $GENERATE lines up to line %d make more than %d records", n, maxRecords)}
				}
			}
		}
	}
	return nil
}

// directive returns a directive line's upper-cased first word and the
// rest of the line.
func directive(line []byte) (string, string) {
	s := string(line)
	if i := strings.IndexByte(s, ';'); i >= 0 {
		s = s[:i]
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		return "", ""
	}
	return strings.ToUpper(f[0]), strings.Join(f[1:], " ")
}

// generateRange is the range of a $GENERATE line: start-stop[/step].
var generateRange = regexp.MustCompile(`^(\d+)-(\d+)(?:/(\d+))?$`)

// generateCount returns how many records a $GENERATE line's range makes.
func generateCount(args string) (int, error) {
	f := strings.Fields(args)
	if len(f) == 0 {
		return 0, fmt.Errorf("no range")
	}
	m := generateRange.FindStringSubmatch(f[0])
	if m == nil {
		return 0, fmt.Errorf("range %q is not start-stop[/step]", f[0])
	}
	start, err1 := strconv.ParseUint(m[1], 10, 32)
	stop, err2 := strconv.ParseUint(m[2], 10, 32)
	step := uint64(1)
	var err3 error
	if m[3] != "" {
		step, err3 = strconv.ParseUint(m[3], 10, 32)
	}
	if err1 != nil || err2 != nil || err3 != nil || step == 0 || stop < start {
		return 0, fmt.Errorf("range %q is not start-stop[/step] with start <= stop and a step of at least 1", f[0])
	}
	return int(min((stop-start)/step+1, 1<<31)), nil
}

// parseErrorLine reads the line number out of a miekg/dns parse error
// ("… at line: 7:12").
var parseErrorLine = regexp.MustCompile(`^(?:.*: )?dns: (.*) at line: (\d+):\d+$`)

// ParseZoneFile parses a master file (RFC 1035 section 5: $ORIGIN, $TTL,
// relative names, parentheses, comments; $GENERATE as BIND has it) of
// the zone name with miekg/dns, refusing $INCLUDE and more than
// maxRecords records. A syntax error is a *FileError with its line;
// too many records a *LimitError.
func ParseZoneFile(name string, text []byte, maxRecords int) ([]dns.RR, error) {
	if err := ScanDirectives(text, maxRecords); err != nil {
		return nil, err
	}
	zp := dns.NewZoneParser(bytes.NewReader(text), dns.Fqdn(name), "")
	zp.SetIncludeAllowed(false)
	var out []dns.RR
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if len(out) == maxRecords {
			return nil, &LimitError{Message: fmt.Sprintf("the zone file has more than %d records", maxRecords)}
		}
		out = append(out, rr)
	}
	if err := zp.Err(); err != nil {
		msg := err.Error()
		if m := parseErrorLine.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[2])
			return nil, &FileError{Line: line, Message: m[1]}
		}
		return nil, &FileError{Message: strings.TrimPrefix(msg, "dns: ")}
	}
	return out, nil
}

// ImportedZone checks the records of a zone to import (from a master
// file, a zone transfer or a copy) and returns the primary zone they
// make, its SOA first and the other records in their order. The checks
// are those named makes when it loads a primary zone and that hold for
// any zone: class IN; every owner inside the zone; exactly one SOA, at
// the apex; NS records at the apex; no CNAME at the apex, beside other
// data (but DNSSEC records) or twice at one name; an address for every
// name server of the apex inside the zone. The first problem found is returned as a
// *FileError (without a line: the records have none). When named's own
// checker is at hand the service runs it as well (package zonecheck).
func ImportedZone(name string, rrs []dns.RR) (*Zone, error) {
	zone, err := NormalizeZoneName(name)
	if err != nil {
		return nil, &FileError{Message: err.Error()}
	}
	origin := zone + "."
	z := &Zone{Name: zone, Type: TypePrimary}
	var soa *dns.SOA
	hasNS := false
	types := map[string]map[uint16]int{} // owner -> type -> count
	hasAddr := map[string]bool{}
	for _, rr := range rrs {
		h := rr.Header()
		owner := strings.ToLower(h.Name)
		if h.Class != dns.ClassINET {
			return nil, &FileError{Message: fmt.Sprintf("%s %s: class %s: only class IN zones are imported", h.Name, dns.TypeToString[h.Rrtype], dns.ClassToString[h.Class])}
		}
		if !inZone(owner, origin) {
			return nil, &FileError{Message: fmt.Sprintf("%s %s is outside the zone %s", h.Name, dns.TypeToString[h.Rrtype], zone)}
		}
		switch h.Rrtype {
		case dns.TypeSOA:
			if owner != origin {
				return nil, &FileError{Message: fmt.Sprintf("SOA at %s: the SOA must be at the zone apex %s", h.Name, origin)}
			}
			if soa != nil {
				return nil, &FileError{Message: "more than one SOA record at the zone apex"}
			}
			soa = rr.(*dns.SOA)
		case dns.TypeNS:
			hasNS = hasNS || owner == origin
		case dns.TypeA, dns.TypeAAAA:
			hasAddr[owner] = true
		}
		if types[owner] == nil {
			types[owner] = map[uint16]int{}
		}
		types[owner][h.Rrtype]++
	}
	if soa == nil {
		return nil, &FileError{Message: "the zone has no SOA record at its apex " + origin}
	}
	if !hasNS {
		return nil, &FileError{Message: "the zone has no NS records at its apex " + origin}
	}
	if err := checkNames(rrs, origin, types, hasAddr); err != nil {
		return nil, err
	}
	z.Serial, z.TTL = soa.Serial, soa.Hdr.Ttl
	z.rrs = make([]dns.RR, 0, len(rrs))
	z.rrs = append(z.rrs, soa)
	for _, rr := range rrs {
		if rr != dns.RR(soa) {
			z.rrs = append(z.rrs, rr)
		}
	}
	return z, nil
}

// checkNames applies the CNAME rules and the address rule of in-zone name
// servers to the records of ImportedZone.
func checkNames(rrs []dns.RR, origin string, types map[string]map[uint16]int, hasAddr map[string]bool) error {
	for owner, ts := range types {
		n := ts[dns.TypeCNAME]
		if n == 0 {
			continue
		}
		if owner == origin {
			return &FileError{Message: "a CNAME is not allowed at the zone apex " + origin}
		}
		if n > 1 {
			return &FileError{Message: fmt.Sprintf("%s has more than one CNAME record", owner)}
		}
		for t := range ts {
			switch t {
			case dns.TypeCNAME, dns.TypeRRSIG, dns.TypeNSEC, dns.TypeKEY:
			default:
				return &FileError{Message: fmt.Sprintf("%s: CNAME and other data (%s)", owner, dns.TypeToString[t])}
			}
		}
	}
	for _, rr := range rrs {
		// The apex's name servers only: named loads a delegation whose
		// glue is missing (check-integrity warns of it).
		if ns, ok := rr.(*dns.NS); ok && strings.EqualFold(ns.Hdr.Name, origin) {
			target := strings.ToLower(ns.Ns)
			if inZone(target, origin) && !hasAddr[target] {
				return &FileError{Message: fmt.Sprintf("%s NS %s: the name server is inside the zone and has no address records (A or AAAA)", ns.Hdr.Name, ns.Ns)}
			}
		}
	}
	return nil
}
