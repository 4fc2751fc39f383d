package zonemodel

// CatalogMember is one member of an RFC 9432 catalog zone (package
// catalog's Member). Its JSON is that of GET /api/v1/catalog's members.
type CatalogMember struct {
	// Zone is the member zone's name, without a trailing dot.
	Zone string `json:"zone"`
	// Label is its member label.
	Label string `json:"label"`
	// Group is its group property, if any.
	Group string `json:"group,omitempty"`
}

// CatalogReport is what a reconcile of the catalog zone with the managed
// zones found (and, unless it was a dry run, fixed): package catalog's
// Report, answered by the REST API as it is.
type CatalogReport struct {
	// Members is how many members the catalog had before.
	Members int `json:"members"`
	// Zones is how many zones are managed.
	Zones int `json:"zones"`
	// Missing are managed zones that had no member (added).
	Missing []string `json:"missing"`
	// Stray are members whose zone is not managed (removed).
	Stray []CatalogMember `json:"stray"`
	// Fixed is true when the differences were repaired.
	Fixed bool `json:"fixed"`
}
