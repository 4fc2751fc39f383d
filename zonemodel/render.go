package zonemodel

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/miekg/dns"
)

// RenderFile renders the primary zone's master file from its dns.RR values
// (one record per line, absolute names, explicit TTLs), then parses the text
// back with dns.ZoneParser and checks that it yields the same records before
// returning it.
func (z *Zone) RenderFile() ([]byte, error) {
	if z.Type != TypePrimary {
		return nil, fmt.Errorf("rendering zone %s: only primary zones have a master file", z.Name)
	}
	if len(z.rrs) == 0 || z.rrs[0].Header().Rrtype != dns.TypeSOA {
		return nil, fmt.Errorf("rendering zone %s: zone has no SOA record", z.Name)
	}
	// Only validated values reach these header lines: the zone name passed
	// NormalizeZoneName and the TTL is a number.
	head := "; zone " + z.Name + ", written by zoneapi\n$ORIGIN " + z.origin() + "\n$TTL " + strconv.FormatUint(uint64(z.TTL), 10) + "\n"
	out, err := render(z.Name, head, z.rrs)
	if err != nil {
		return nil, err
	}
	if err := verify(out, z.origin(), z.rrs); err != nil {
		return nil, fmt.Errorf("rendering zone %s: %w", z.Name, err)
	}
	return out, nil
}

// RenderRecords renders records of the zone name (a checked zone name,
// see NormalizeZoneName) as a master file for a checker, in the order
// given and without checks of their own (no SOA first, say): a comment
// line, $ORIGIN, then one record a line from line first on (owners
// inside the zone relative to it, other names absolute, explicit
// TTLs). This is what named-checkzone reads of a zone file a client
// sent (ParseZoneFileTo writes the same as it parses): the only
// directive in it is the $ORIGIN written here, and no line begins with
// '$'. Unlike RenderFile it does not parse its text back (a third of an
// import's time; FuzzRenderImport holds it to reading back the same
// records): named-checkzone reads it, and named loads what
// named-checkzone wrote.
func RenderRecords(name string, rrs []dns.RR) (text []byte, first int, err error) {
	var buf bytes.Buffer
	buf.Grow(64 + 48*len(rrs))
	r := newRecordWriter(&buf, name)
	for _, rr := range rrs {
		if err := r.write(rr); err != nil {
			return nil, 0, err
		}
	}
	return buf.Bytes(), renderedFirst, nil
}

// renderedFirst is the line of the first record RenderRecords writes.
const renderedFirst = 3

// textWriter is what a recordWriter writes to (*bytes.Buffer,
// *bufio.Writer).
type textWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// recordWriter writes the lines of RenderRecords: its head first, then a
// record at a time.
type recordWriter struct {
	w      textWriter
	name   string
	origin string // "." + name + ".", or "." for the root zone
}

// newRecordWriter writes the head of zone name's file to w.
func newRecordWriter(w textWriter, name string) *recordWriter {
	w.WriteString("; zone " + name + ", records rendered by zoneapi\n$ORIGIN " + Origin(name) + "\n")
	origin := "." + name + "."
	if name == Root {
		// Every owner is below the root: "www." is written "www".
		origin = Root
	}
	return &recordWriter{w: w, name: name, origin: origin}
}

// write writes rr's line.
func (r *recordWriter) write(rr dns.RR) error {
	line := rr.String()
	// The owner relative to the origin, when the line begins with it as
	// a name below the origin (a dot before the origin that no backslash
	// escapes): the file named-checkzone reads is a third smaller.
	owner := rr.Header().Name
	if n := len(owner) - len(r.origin); n > 0 && strings.HasPrefix(line, owner+"\t") && strings.EqualFold(owner[n:], r.origin) && !escaped(owner, n) {
		line = line[:n] + line[len(owner):]
	}
	return writeLine(r.w, r.name, line)
}

// escaped reports whether the byte at i of the name in presentation
// form is escaped (an odd number of backslashes before it).
func escaped(name string, i int) bool {
	n := 0
	for i > 0 && name[i-1] == '\\' {
		n, i = n+1, i-1
	}
	return n%2 == 1
}

// writeLine writes one record's line of zone name's file. named reads a
// line that begins with '$' as a directive (an owner name such as
// "$x.example." from a transfer, or from a $GENERATE owner "\\$x"): the
// escaped dollar is the same name.
func writeLine(w textWriter, name, line string) error {
	if strings.ContainsAny(line, "\n\r") {
		return fmt.Errorf("rendering zone %s: record %q spans lines", name, line)
	}
	if strings.HasPrefix(line, "$") {
		w.WriteByte('\\')
	}
	w.WriteString(line)
	return w.WriteByte('\n')
}

// render writes head, then rrs one a line.
func render(name, head string, rrs []dns.RR) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(head) + 64*len(rrs))
	buf.WriteString(head)
	for _, rr := range rrs {
		if err := writeLine(&buf, name, rr.String()); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// verify parses a rendered file and compares it with the records.
func verify(text []byte, origin string, rrs []dns.RR) error {
	zp := dns.NewZoneParser(bytes.NewReader(text), origin, "")
	zp.SetIncludeAllowed(false)
	got, want := make([]byte, dns.MaxMsgSize), make([]byte, dns.MaxMsgSize)
	i := 0
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if i >= len(rrs) {
			return fmt.Errorf("rendered file has more records than the zone: %s", rr)
		}
		// Compared in wire form: a name may hold a byte as itself or as
		// its \DDD escape, which print alike but differ as Go strings.
		if !sameWire(rr, rrs[i], got, want) {
			return fmt.Errorf("rendered record %d reads back as %q, want %q", i, rr.String(), rrs[i].String())
		}
		i++
	}
	if err := zp.Err(); err != nil {
		return fmt.Errorf("rendered file does not parse: %w", err)
	}
	if i != len(rrs) {
		return fmt.Errorf("rendered file has %d records, want %d", i, len(rrs))
	}
	return nil
}

// sameWire reports whether a and b pack to the same wire form (owner,
// type, class, TTL and rdata), using the two scratch buffers.
func sameWire(a, b dns.RR, bufA, bufB []byte) bool {
	na, errA := dns.PackRR(a, bufA, 0, nil, false)
	nb, errB := dns.PackRR(b, bufB, 0, nil, false)
	return errA == nil && errB == nil && bytes.Equal(bufA[:na], bufB[:nb])
}
