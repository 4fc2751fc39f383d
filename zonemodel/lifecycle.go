package zonemodel

// The results and options of the zone service's lifecycle operations
// (create, delete, adopt), as the front ends read them.

// Created describes a created zone.
type Created struct {
	// File is the zone's master file.
	File string
	// Details is named's answer to addzone.
	Details string
	// Existed is true when the zone was made earlier by a request with
	// the same fingerprint: this request is a retry and changed nothing.
	Existed bool
	// Settled is what settling an earlier pending intent for the zone did
	// ("" when there was none).
	Settled string
}

// Deleted describes a deleted zone.
type Deleted struct {
	// Details is named's answer to delzone.
	Details string
	// Managed is true for a zone created through the API (its files and
	// index entry were removed too).
	Managed bool
	// Durable is false when named has not confirmed (within DurableWait)
	// that the removal survives its restart; the delete's intent then
	// stays pending and is completed later.
	Durable bool
	// Removed lists the files removed.
	Removed []string
	// Settled is what settling an earlier pending intent for the zone did.
	Settled string
}

// DeleteOptions are the choices of a delete.
type DeleteOptions struct {
	// Unmanaged confirms the delete of a zone the API does not manage
	// (one added with `rndc addzone` outside it): without it such a
	// delete is refused with ErrUnmanaged.
	Unmanaged bool
}

// AdoptOptions are the choices of an adoption.
type AdoptOptions struct {
	// GrantUpdateKey adds the service's update key (UpdateKey) to the
	// zone's allow-update (or, for a zone with an update-policy, a grant
	// for it) by modzone, so that the record operations work on it.
	GrantUpdateKey bool
}

// Adopted is what an adoption did.
type Adopted struct {
	// Type is the zone's type.
	Type string
	// Granted is the clause added by modzone ("" when none was).
	Granted string
	// Details is named's answer to the modzone, if one was sent.
	Details string
}
