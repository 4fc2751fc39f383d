package zonemodel

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Fingerprint identifies the request's body: a hash of its JSON (the
// model's own form, which must not change: the fingerprints of the zones
// made so far are in their index entries). The zone service compares it
// to tell a retry of the create that made a zone from another request.
func (req *CreateZoneRequest) Fingerprint() string {
	b, err := json.Marshal(req)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}
