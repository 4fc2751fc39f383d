package zoneservice

import (
	"context"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DNSKey is a DNSSEC key of a zone, read from its DNSKEY records.
type DNSKey struct {
	// Tag is the key tag (RFC 4034 appendix B).
	Tag uint16
	// Flags are the DNSKEY flags (257: KSK or CSK, 256: ZSK).
	Flags uint16
	// Algorithm is the algorithm's mnemonic, e.g. ECDSAP256SHA256.
	Algorithm string
	// Bits is the size of the key's public part.
	Bits int
	// DNSKEY is the record's data in presentation format.
	DNSKEY string
	// DS are the DS records (SHA-256, SHA-384) of a key-signing key
	// (RFC 4034 section 5).
	DS []string
}

// Keys lists the zone's DNSSEC keys: its apex DNSKEY records with the
// zone key flag, read by AXFR. Errors as Snapshot's.
func (s *Service) Keys(ctx context.Context, zone string) ([]DNSKey, error) {
	snap, err := s.Snapshot(ctx, zone)
	if err != nil {
		return nil, err
	}
	var out []DNSKey
	for _, rr := range snap.At(zone + ".") {
		k, ok := rr.(*dns.DNSKEY)
		if !ok || k.Flags&dns.ZONE == 0 {
			continue
		}
		key := DNSKey{Tag: k.KeyTag(), Flags: k.Flags, Algorithm: dns.AlgorithmToString[k.Algorithm],
			Bits: len(k.PublicKey) * 6 / 8, DNSKEY: zonemodel.RDataText(k)}
		if k.Flags&dns.SEP != 0 {
			for _, d := range []uint8{dns.SHA256, dns.SHA384} {
				if ds := k.ToDS(d); ds != nil {
					key.DS = append(key.DS, zonemodel.RDataText(ds))
				}
			}
		}
		out = append(out, key)
	}
	return out, nil
}
