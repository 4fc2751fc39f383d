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

// BINDConfig renders the block for `rndc addzone <name> <block>`, e.g.
// `{ type primary; file "/zones/example.com.zone"; allow-update { key "k"; }; };`.
// Secondary zones get `type secondary; primaries { ... };` and the file too,
// so BIND persists transfers. defaultUpdateKey is the module's key: the
// key of allow-update when the request gave no updateKeyName ("" means no
// allow-update clause; never for secondary zones, where BIND does not allow
// it), and added to an allow-transfer list so the module can still read
// the zone by AXFR.
// The result is one line without a newline. Every interpolated value has been
// validated against a strict charset; file and defaultUpdateKey come from the
// caller and are quoted, with any '"', '\\' or control character dropped.
func (z *Zone) BINDConfig(file, defaultUpdateKey string) string {
	var b strings.Builder
	b.WriteString("{ type ")
	b.WriteString(z.Type)
	b.WriteString("; ")
	if file != "" {
		b.WriteString("file " + quoteConf(file) + "; ")
	}
	if z.Type == TypeSecondary {
		b.WriteString("primaries {")
		for _, e := range z.primaries {
			b.WriteString(" " + e.conf() + ";")
		}
		b.WriteString(" }; ")
	}
	if z.Type == TypePrimary {
		key := z.UpdateKeyName
		if key == "" {
			key = defaultUpdateKey
		}
		if key != "" && CheckIdentifier(key) == "" {
			b.WriteString("allow-update { key " + quoteConf(key) + "; }; ")
		}
	}
	if len(z.alsoNotify) > 0 {
		b.WriteString("also-notify {")
		for _, e := range z.alsoNotify {
			b.WriteString(" " + e.conf() + ";")
		}
		b.WriteString(" }; ")
	}
	if len(z.allowTransfer) > 0 {
		b.WriteString("allow-transfer {")
		for _, p := range z.allowTransfer {
			if p.IsSingleIP() {
				b.WriteString(" " + p.Addr().String() + ";")
			} else {
				b.WriteString(" " + p.String() + ";")
			}
		}
		// The module reads zones by AXFR signed with its key: a zone that
		// restricts transfers must still admit it.
		if defaultUpdateKey != "" && CheckIdentifier(defaultUpdateKey) == "" {
			b.WriteString(" key " + quoteConf(defaultUpdateKey) + ";")
		}
		b.WriteString(" }; ")
	}
	if z.dnssecPolicy != "" {
		b.WriteString("dnssec-policy " + quoteConf(z.dnssecPolicy) + "; ")
	}
	if z.inlineSigning != nil {
		if *z.inlineSigning {
			b.WriteString("inline-signing yes; ")
		} else {
			b.WriteString("inline-signing no; ")
		}
	}
	b.WriteString("};")
	return b.String()
}

// conf renders an endpoint as BIND writes it: "ip" or "ip port n".
func (e endpoint) conf() string {
	if e.port == 0 {
		return e.addr.String()
	}
	return e.addr.String() + " port " + strconv.FormatUint(uint64(e.port), 10)
}

// quoteConf quotes a string for named.conf, dropping characters that could
// end the string or the line.
func quoteConf(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '"' && c != '\\' && c >= 0x20 && c != 0x7f {
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
