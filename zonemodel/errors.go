package zonemodel

import (
	"fmt"
	"strings"
)

// Problem is one validation failure; Field is a JSON path like
// "zoneConfig.soa.primaryNs" or "zoneConfig.records[2].value".
type Problem struct {
	// Field is the JSON path of the offending value.
	Field string `json:"field"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

// ValidationError lists every problem found in a request, not only the
// first.
type ValidationError struct {
	// Problems are the failures in the order they were found.
	Problems []Problem `json:"problems"`
}

// Error joins the problems as "field: message; field: message".
func (e *ValidationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.Field + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// Add adds a problem at field, its message formatted as by fmt.Sprintf.
func (e *ValidationError) Add(field, format string, args ...any) { e.add(field, format, args...) }

func (e *ValidationError) add(field, format string, args ...any) {
	e.Problems = append(e.Problems, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
}
