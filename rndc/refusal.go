package rndc

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// Refusal classifies named's refusal (zonemodel.ControlRefusal):
// zonemodel.ErrExists, ErrFrozen, ErrNotFrozen, ErrNotDynamic or
// ErrDynamic for BIND's short error texts that describe the zone's state
// rather than a failure of BIND, ErrNotFound when named does not know
// what the command names, ErrWrongType when the zone's type does not
// allow the command; nil otherwise.
func (e *Error) Refusal() error {
	switch e.Err {
	case "already exists":
		return zonemodel.ErrExists
	case "already frozen":
		return zonemodel.ErrFrozen
	case "not dynamic":
		return zonemodel.ErrNotDynamic
	case "dynamic zone":
		return zonemodel.ErrDynamic
	case "not frozen":
		return zonemodel.ErrNotFrozen
	}
	switch {
	case IsNotFound(e):
		return zonemodel.ErrNotFound
	case IsWrongZoneType(e):
		return zonemodel.ErrWrongType
	}
	return nil
}

// Describe is named's short error text and, when it says more, its
// longer text (zonemodel.DescribeControl).
func (e *Error) Describe() string {
	if e.Text != "" && e.Text != e.Err {
		return e.Err + ": " + e.Text
	}
	return e.Err
}
