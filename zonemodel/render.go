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
	var buf bytes.Buffer
	// Only validated values reach these header lines: the zone name passed
	// NormalizeZoneName and the TTL is a number.
	buf.WriteString("; zone " + z.Name + ", written by zoneapi\n")
	buf.WriteString("$ORIGIN " + z.origin() + "\n")
	buf.WriteString("$TTL " + strconv.FormatUint(uint64(z.TTL), 10) + "\n")
	for _, rr := range z.rrs {
		line := rr.String()
		if strings.ContainsAny(line, "\n\r") {
			return nil, fmt.Errorf("rendering zone %s: record %q spans lines", z.Name, line)
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
	}
	out := buf.Bytes()
	if err := z.verify(out); err != nil {
		return nil, fmt.Errorf("rendering zone %s: %w", z.Name, err)
	}
	return out, nil
}

// verify parses a rendered file and compares it with the zone's records.
func (z *Zone) verify(text []byte) error {
	zp := dns.NewZoneParser(bytes.NewReader(text), z.origin(), "")
	zp.SetIncludeAllowed(false)
	got, want := make([]byte, dns.MaxMsgSize), make([]byte, dns.MaxMsgSize)
	i := 0
	for rr, ok := zp.Next(); ok; rr, ok = zp.Next() {
		if i >= len(z.rrs) {
			return fmt.Errorf("rendered file has more records than the zone: %s", rr)
		}
		// Compared in wire form: a name may hold a byte as itself or as
		// its \DDD escape, which print alike but differ as Go strings.
		if !sameWire(rr, z.rrs[i], got, want) {
			return fmt.Errorf("rendered record %d reads back as %q, want %q", i, rr.String(), z.rrs[i].String())
		}
		i++
	}
	if err := zp.Err(); err != nil {
		return fmt.Errorf("rendered file does not parse: %w", err)
	}
	if i != len(z.rrs) {
		return fmt.Errorf("rendered file has %d records, want %d", i, len(z.rrs))
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
