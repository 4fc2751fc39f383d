package rndc

import (
	"strings"
	"time"
)

// CommandEvent describes one command a Client ran, for its Observe hook.
type CommandEvent struct {
	// Verb is the command's first word, e.g. "addzone".
	Verb string
	// Zone is the command's first argument that is not a flag (the zone
	// of every zone command), or "" for a command without arguments.
	Zone string
	// Output is named's text (Response.Text), or "" when no reply came.
	Output string
	// Err is the command's error, nil on success.
	Err error
	// Duration is the time from the call to the reply (or failure).
	Duration time.Duration
}

// newCommandEvent describes command's outcome.
func newCommandEvent(command string, resp *Response, err error, d time.Duration) CommandEvent {
	fields := strings.Fields(command)
	e := CommandEvent{Err: err, Duration: d}
	if len(fields) > 0 {
		e.Verb = fields[0]
	}
	for _, f := range fields[min(1, len(fields)):] {
		if !strings.HasPrefix(f, "-") {
			e.Zone = strings.Trim(f, `"`)
			break
		}
	}
	if resp != nil {
		e.Output = resp.Text
	}
	return e
}
