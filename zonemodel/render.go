package zonemodel

import (
	"bytes"
	"fmt"
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
	return render(z.Name, head, z.rrs)
}

// RenderRecords renders records of the zone name (a checked zone name,
// see NormalizeZoneName) as a master file for a checker, in the order
// given and without checks of their own (no SOA first, say): a comment
// line, $ORIGIN, then one record a line from line first on (absolute
// names, explicit TTLs), verified as RenderFile verifies its file. This
// is what named-checkzone reads of a zone file a client sent
// (ParseZoneFileLines): the only directive in it is the $ORIGIN written
// here, and no line begins with '$' or a quote.
func RenderRecords(name string, rrs []dns.RR) (text []byte, first int, err error) {
	text, err = render(name, "; zone "+name+", records rendered by zoneapi\n$ORIGIN "+name+".\n", rrs)
	return text, 3, err
}

// render writes head, then rrs one a line, and verifies the text.
func render(name, head string, rrs []dns.RR) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(len(head) + 64*len(rrs))
	buf.WriteString(head)
	for _, rr := range rrs {
		line := rr.String()
		if strings.ContainsAny(line, "\n\r") {
			return nil, fmt.Errorf("rendering zone %s: record %q spans lines", name, line)
		}
		// named reads a line that begins with '$' as a directive (an
		// owner name such as "$x.example." from a transfer, or from a
		// $GENERATE owner "\\$x"): the escaped dollar is the same name.
		if strings.HasPrefix(line, "$") {
			buf.WriteByte('\\')
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	out := buf.Bytes()
	if err := verify(out, name+".", rrs); err != nil {
		return nil, fmt.Errorf("rendering zone %s: %w", name, err)
	}
	return out, nil
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
