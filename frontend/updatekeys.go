package frontend

// UpdateKeys tells which TSIG key the zone service signs record changes
// with, for the answers that explain a refusal.
type UpdateKeys interface {
	// CanUpdate reports whether the service can sign record changes: a
	// key with its secret is configured. It does no I/O.
	CanUpdate() bool
	// UpdateKeyName is the configured update key's name, "" when none
	// is (zones created through the API grant it allow-update).
	UpdateKeyName() string
	// SigningKeyName is the name of the key the service signs updates
	// and transfers with, "" when it has none.
	SigningKeyName() string
}
