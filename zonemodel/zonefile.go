package zonemodel

import (
	"bufio"
	"fmt"
	"io"
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

// MaxImportRecordBytes bounds the records parsed from a zone file sent
// to be imported, in wire form (owner, type, class, TTL and rdata, names
// uncompressed): 256 MiB. A file within MaxImportBytes stays far below
// it unless its $GENERATE lines repeat long records.
const MaxImportRecordBytes = 256 << 20

// Bounds of $GENERATE lines. maxGenerate is the most records one makes
// in miekg/dns's parser (its range's (stop-start)/step at most 65,535).
// That parser joins a $GENERATE line's words one at a time, in time that
// grows with the square of the line's length: a line is at most
// maxGenerateLine bytes long and all of them maxGenerateBytes.
const (
	maxGenerate      = 65536
	maxGenerateLine  = 1024
	maxGenerateBytes = 1 << 20
)

// parseErrorLine reads the line number out of a miekg/dns parse error
// ("… at line: 7:12").
var parseErrorLine = regexp.MustCompile(`^(?:.*: )?dns: (.*) at line: (\d+):\d+$`)

// ParseZoneFile parses a master file (RFC 1035 section 5: $ORIGIN, $TTL,
// relative names, parentheses, comments; $GENERATE as BIND has it) of
// the zone name with miekg/dns: see ParseZoneFileLines.
func ParseZoneFile(name string, text []byte, maxRecords int) ([]dns.RR, error) {
	rrs, _, err := ParseZoneFileLines(name, text, maxRecords)
	return rrs, err
}

// ParseZoneFileLines parses a master file of the zone name with
// miekg/dns and returns its records in the file's order with the line
// each starts on (a $GENERATE line's records: that line). It is the only
// reader of a zone file a client sent: named-checkzone and named read
// the records rendered from it (RenderRecords), never the text itself,
// so nothing in the text makes them open a file.
//
// The directives taken are $ORIGIN, $TTL and $GENERATE (expanded here,
// at most 65,536 records a line), written unquoted at the start of a
// line. Whatever named would read as another directive is refused, in
// every spelling it reads: $INCLUDE in any case, quoted ("$INCLUDE"),
// after an opening or closing parenthesis, after a line break inside
// parentheses; so is a directive taken here but written so (quoted or
// after a parenthesis, which this parser would not read as one), and a
// carriage return that does not end a line (named ends a line there,
// this parser does not). The records are counted, and their size in
// wire form summed, as they come out of the parser: past maxRecords or
// MaxImportRecordBytes it stops at once with a *LimitError, as it does
// for a text over MaxImportBytes. A syntax error or a refusal is a
// *FileError with its line. No message depends on anything but the
// text.
func ParseZoneFileLines(name string, text []byte, maxRecords int) ([]dns.RR, []int, error) {
	return parseZoneFile(name, text, maxRecords, MaxImportRecordBytes, nil)
}

// ParseZoneFileTo is ParseZoneFileLines that also writes the records to
// w as RenderRecords renders them, each as soon as it is parsed, so that
// a checker reading w (through a pipe) works while the parse goes on.
// A failed write ends the parse with its error; what was written before
// a refusal is no zone. first is the line of the first record written
// (see RenderRecords).
func ParseZoneFileTo(name string, text []byte, maxRecords int, w *bufio.Writer) (rrs []dns.RR, lines []int, first int, err error) {
	rw := newRecordWriter(w, name)
	rrs, lines, err = parseZoneFile(name, text, maxRecords, MaxImportRecordBytes, rw.write)
	if err == nil {
		err = w.Flush()
	}
	return rrs, lines, renderedFirst, err
}

// parseZoneFile is ParseZoneFileLines with the bound of the records'
// size in wire form, calling each, when set, with every record made.
func parseZoneFile(name string, text []byte, maxRecords, maxBytes int, each func(dns.RR) error) ([]dns.RR, []int, error) {
	if len(text) > MaxImportBytes {
		return nil, nil, &LimitError{Message: "the zone file is larger than 64 MiB"}
	}
	r := &fileReader{text: text, line: 1, fresh: true}
	zp := dns.NewZoneParser(r, dns.Fqdn(name), "")
	zp.SetIncludeAllowed(false)
	var out []dns.RR
	var lines []int
	size := 0
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if len(out) == maxRecords {
			return nil, nil, &LimitError{Message: fmt.Sprintf("the zone file has more than %d records", maxRecords)}
		}
		if rr.Header().Name == "" {
			return nil, nil, &FileError{Line: r.start, Message: "the record has no owner name (a line that begins with a blank takes the previous record's owner, and there is none)"}
		}
		if r.generate {
			// miekg/dns expands "\\$" to "\" and the number, an escape
			// named would not read ("\10"), where BIND keeps "\\10".
			if msg := BadEscape(rr.String()); msg != "" {
				return nil, nil, &FileError{Line: r.start, Message: "the $GENERATE line makes the record " + shorten(rr.Header().Name) + ", which " + msg}
			}
		}
		if noData(rr) {
			// miekg/dns reads a record without data (an update's
			// deletion); named refuses one.
			return nil, nil, &FileError{Line: r.start, Message: fmt.Sprintf("the %s record has no data", dns.TypeToString[rr.Header().Rrtype])}
		}
		if size += dns.Len(rr); size > maxBytes {
			return nil, nil, &LimitError{Message: fmt.Sprintf("the zone file's records up to line %d are more than %d MiB in wire form", r.start, maxBytes>>20)}
		}
		if each != nil {
			if err := each(rr); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, rr)
		lines = append(lines, r.start)
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	if err := zp.Err(); err != nil {
		msg := err.Error()
		if m := parseErrorLine.FindStringSubmatch(msg); m != nil {
			line, _ := strconv.Atoi(m[2])
			if r.generate {
				line = r.start
			}
			return nil, nil, &FileError{Line: line, Message: parseMessage(shorten(m[1]))}
		}
		return nil, nil, &FileError{Message: shorten(strings.TrimPrefix(msg, "dns: "))}
	}
	return out, lines, nil
}

// shorten cuts a parse error's message, which quotes the word it failed
// on (of any length), to 200 bytes.
func shorten(msg string) string {
	if len(msg) <= 200 {
		return msg
	}
	return strings.ToValidUTF8(msg[:200], "") + "…"
}

// noData reports whether rr is a record whose data miekg/dns left as
// its type's zero value, as it does for a record written without data
// (an RFC 2136 deletion's form); an APL record and one in RFC 3597's
// generic form ("\# 0") may have none.
func noData(rr dns.RR) bool {
	h := rr.Header()
	newRR, ok := dns.TypeToRR[h.Rrtype]
	if !ok || h.Rrtype == dns.TypeAPL {
		return false
	}
	if _, generic := rr.(*dns.RFC3597); generic {
		return false
	}
	zero := newRR()
	*zero.Header() = *h
	return dns.IsDuplicate(rr, zero)
}

// msgInclude is the refusal of $INCLUDE.
const msgInclude = "$INCLUDE is not allowed in a zone file sent to the API: send the included records in the file itself"

// parseMessage words some of miekg/dns's parse errors as this package
// does.
func parseMessage(msg string) string {
	switch {
	case strings.HasPrefix(msg, "$INCLUDE directive not allowed"):
		// A $GENERATE line whose owner is \$INCLUDE makes one.
		return msgInclude
	case strings.HasPrefix(msg, "not a TTL: "):
		// A word where a TTL, a class or a type may stand that is none.
		return "unknown RR type (or a bad TTL or class): " + strings.TrimPrefix(msg, "not a TTL: ")
	case strings.HasPrefix(msg, "bad range in $GENERATE range"):
		return fmt.Sprintf("$GENERATE: the range must be start-stop[/step] with start <= stop, making at most %d records a line", maxGenerate)
	}
	return msg
}

// fileReader gives a master file to miekg/dns's parser byte by byte
// (dns.ZoneParser reads an io.ByteReader so), following it as named's
// reader would: it notes the line each entry (a record or a directive)
// starts on, and it stops the parser (io.EOF, with err set) at a
// directive that named would obey and that is not taken here, and at a
// carriage return that does not end a line.
type fileReader struct {
	text  []byte
	i     int
	line  int  // the line of text[i]
	start int  // the line the last entry started on
	fresh bool // the next byte that is not a line end starts an entry
	// generate is whether the last entry is a $GENERATE line, whose
	// records' errors name the line of the record made; generated is the
	// length of the $GENERATE lines so far.
	generate  bool
	generated int

	quote, escape, comment bool
	depth                  int   // open parentheses
	err                    error // a *FileError or *LimitError
}

// ReadByte returns the next byte of the text.
func (r *fileReader) ReadByte() (byte, error) {
	if r.err != nil || r.i >= len(r.text) {
		return 0, io.EOF
	}
	c := r.text[r.i]
	if c == '\r' && !r.quote && !r.escape && (r.i+1 == len(r.text) || r.text[r.i+1] != '\n') {
		r.err = &FileError{Line: r.line, Message: "a carriage return that does not end a line (named ends a line there): end lines with LF or CR LF"}
		return 0, io.EOF
	}
	if r.fresh && c != '\n' && c != '\r' {
		r.fresh = false
		r.start = r.line
		r.generate = len(r.text)-r.i >= 9 && strings.EqualFold(string(r.text[r.i:r.i+9]), "$GENERATE")
		if r.generate {
			n := entryLen(r.text[r.i:], maxGenerateLine)
			if r.generated += n; n > maxGenerateLine {
				r.err = &FileError{Line: r.line, Message: fmt.Sprintf("a $GENERATE line is longer than %d bytes", maxGenerateLine)}
				return 0, io.EOF
			} else if r.generated > maxGenerateBytes {
				r.err = &LimitError{Message: fmt.Sprintf("the $GENERATE lines up to line %d are longer than 1 MiB in all", r.line)}
				return 0, io.EOF
			}
		}
		// A line that begins with a blank has no owner: named reads no
		// directive there.
		if c != ' ' && c != '\t' {
			if msg := directiveRefused(r.text[r.i:]); msg != "" {
				r.err = &FileError{Line: r.line, Message: msg}
				return 0, io.EOF
			}
		}
	}
	switch {
	case r.escape:
		r.escape = false
	case r.comment:
		r.comment = c != '\n'
	case c == '\\':
		r.escape = true
		// named refuses an incomplete or out-of-range \DDD escape, in
		// data and names, naming the entry's first line.
		if msg := escapeAt(string(r.text[r.i:min(r.i+4, len(r.text))]), 0); msg != "" {
			r.err = &FileError{Line: r.start, Message: "the entry " + msg}
			return 0, io.EOF
		}
	case c == '"':
		r.quote = !r.quote
	case r.quote:
	case c == ';':
		r.comment = true
	case c == '(':
		r.depth++
	case c == ')' && r.depth > 0:
		r.depth--
	}
	if c == '\n' {
		r.line++
		r.fresh = r.fresh || !r.quote && r.depth == 0
	}
	r.i++
	return c, nil
}

// Read is io.Reader's, for dns.NewZoneParser's argument (which reads
// with ReadByte only).
func (r *fileReader) Read(p []byte) (int, error) {
	n := 0
	for ; n < len(p); n++ {
		c, err := r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		p[n] = c
	}
	return n, nil
}

// entryLen returns the length of the entry text begins with, up to the
// line end outside quotes and parentheses that ends it, or limit+1 when
// it is longer than limit.
func entryLen(text []byte, limit int) int {
	quote, escape, depth := false, false, 0
	for i, c := range text {
		switch {
		case i > limit:
			return limit + 1
		case escape:
			escape = false
		case c == '\\':
			escape = true
		case c == '"':
			quote = !quote
		case quote:
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
		case c == '\n' && depth == 0:
			return i
		}
	}
	return len(text)
}

// directiveRefused returns why the entry that text begins with (at the
// start of a line, not with a blank) is refused, "" when it is not: its
// first word, quoted or not, after any parentheses, blanks, comments and
// line breaks inside parentheses, begins with '$' (named reads a directive there) and is
// not $ORIGIN, $TTL or $GENERATE written unquoted as the line's first
// bytes, which this parser reads as the same directive.
func directiveRefused(text []byte) string {
	i, depth := 0, 0
skip:
	for ; i < len(text); i++ {
		switch c := text[i]; c {
		case ';':
			for i+1 < len(text) && text[i+1] != '\n' {
				i++
			}
			continue
		case '(':
			depth++
			continue
		case ')':
			depth = max(depth-1, 0)
			continue
		case ' ', '\t', '\r':
			continue
		case '\n':
			if depth > 0 {
				continue
			}
			return "" // no word on the line
		}
		break skip
	}
	skipped := i > 0
	quoted := i < len(text) && text[i] == '"'
	if quoted {
		i++
	}
	if i == len(text) || text[i] != '$' {
		return ""
	}
	j := i
	for j < len(text) && j-i < 32 {
		c := text[j]
		if quoted && (c == '"' || c == '\\') || !quoted && strings.IndexByte(" \t\r\n;()\"\\", c) >= 0 {
			break
		}
		j++
	}
	word := strings.ToUpper(string(text[i:j]))
	switch {
	case word == "$INCLUDE":
		return msgInclude
	case word != "$ORIGIN" && word != "$TTL" && word != "$GENERATE":
		return fmt.Sprintf("unknown directive %q: the directives taken are $ORIGIN, $TTL and $GENERATE", text[i:j])
	case quoted || skipped:
		return "the directive " + word + " must be written unquoted at the start of its line"
	}
	return ""
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
	origin := Origin(zone)
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
