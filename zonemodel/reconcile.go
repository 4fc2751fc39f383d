package zonemodel

// ReconcileFix is one thing a reconcile did, or could not do yet.
type ReconcileFix struct {
	// Zone is the zone concerned ("" for the index itself).
	Zone string `json:"zone,omitempty"`
	// Action is one of the zone service's Action* values (for a fix), or the pending
	// operation (for something not settled yet).
	Action string `json:"action"`
	// Detail says more, e.g. the file moved aside or why it is pending.
	Detail string `json:"detail,omitempty"`
	// View is the view of the zone concerned (a front end that
	// reconciles several views' services sets it); "" without views.
	View string `json:"view,omitempty"`
}

// ReconcileReport is what a reconcile of the zone service found and
// fixed: the body of POST /api/v1/server/reconcile (with success and
// message).
type ReconcileReport struct {
	// Fixed lists the repairs made.
	Fixed []ReconcileFix `json:"fixed"`
	// Pending lists operations whose outcome is still unknown (named
	// cannot be asked, or may still execute a command): a later reconcile
	// settles them.
	Pending []ReconcileFix `json:"pending"`
	// Problems lists inconsistencies found but not repaired, e.g. an
	// indexed zone that named does not serve.
	Problems []ReconcileFix `json:"problems"`
	// Checked is how many zones were looked at.
	Checked int `json:"checked"`
}
