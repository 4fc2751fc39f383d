package zonemodel

// DNSKey is a DNSSEC key of a zone, read from its DNSKEY records.
type DNSKey struct {
	// Tag is the key tag (RFC 4034 appendix B).
	Tag uint16
	// Flags are the DNSKEY flags (257: KSK or CSK, 256: ZSK).
	Flags uint16
	// Algorithm is the algorithm's mnemonic, e.g. ECDSAP256SHA256.
	Algorithm string
	// Bits is the key's size as DNSSEC tools give it: the RSA modulus,
	// the curve's size (256 for P-256 and Ed25519, 384, 456 for Ed448).
	Bits int
	// DNSKEY is the record's data in presentation format.
	DNSKEY string
	// DS are the DS records (SHA-256, SHA-384) of a key-signing key
	// (RFC 4034 section 5).
	DS []string
}
