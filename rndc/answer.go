package rndc

import "strings"

// The views named's refusal names, as a front end reads them through
// zonemodel.ControlNoSuchView and ControlMultipleViews.

// Short is BIND's short error text (Err).
func (e *Error) Short() string { return e.Err }

// NoSuchView reports whether named refused the command for a view it
// does not have (IsNoSuchView), and whether that view is "_default".
func (e *Error) NoSuchView() (refused, defaultView bool) {
	if !IsNoSuchView(e) {
		return false, false
	}
	return true, strings.Contains(e.Text, "'_default'")
}

// MultipleViews reports whether named refused the command because the
// zone is in several views (IsMultipleViews).
func (e *Error) MultipleViews() bool { return IsMultipleViews(e) }
