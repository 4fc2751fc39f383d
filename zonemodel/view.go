package zonemodel

import (
	"errors"
	"fmt"
)

// MaxViewNameLength is the longest view name CheckViewName accepts.
const MaxViewNameLength = 64

// CheckViewName reports whether view is a view name (named.conf's `view
// "<name>"`) this module can address: 1 to 64 letters, digits, '_' and
// '-', not starting with '-'. Such a name is safe on an rndc command line
// (`zone IN view`), as a path component and in a URL query. BIND allows
// more in a view's quoted name; a view named otherwise cannot be addressed
// through this module.
func CheckViewName(view string) error {
	if view == "" {
		return errors.New("empty view name")
	}
	if len(view) > MaxViewNameLength {
		return fmt.Errorf("view name too long (%d characters, at most %d)", len(view), MaxViewNameLength)
	}
	if view[0] == '-' {
		return fmt.Errorf("invalid view name %q: starts with '-'", view)
	}
	for i := 0; i < len(view); i++ {
		c := view[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return fmt.Errorf("invalid view name %q: only letters, digits, '_' and '-' are allowed", view)
		}
	}
	return nil
}
