package zoneservice

import (
	"errors"
	"fmt"
	"testing"

	"github.com/zoneapi/caddy-zoneapi/rndc"
)

// TestControlRefusal classifies named's refusals of control commands by
// BIND's words into kinds, wrapped or not; other errors have no kind.
func TestControlRefusal(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want error
	}{
		{&rndc.Error{Command: "addzone", Err: "already exists"}, ErrExists},
		{&rndc.Error{Command: "freeze", Err: "already frozen"}, ErrFrozen},
		{&rndc.Error{Command: "thaw", Err: "not frozen"}, ErrNotFrozen},
		{&rndc.Error{Command: "freeze", Err: "not dynamic"}, ErrNotDynamic},
		{&rndc.Error{Command: "reload", Err: "dynamic zone"}, ErrDynamic},
		{&rndc.Error{Command: "zonestatus", Err: "not found", Text: "no matching zone 'x' in any view"}, ErrNotFound},
		{&rndc.Error{Command: "showzone", Result: rndc.ResultNotFound}, ErrNotFound},
		{&rndc.Error{Command: "retransfer", Err: "failure", Text: "inappropriate zone type"}, ErrWrongType},
		{fmt.Errorf("zone x: %w", &rndc.Error{Command: "freeze", Err: "already frozen"}), ErrFrozen},
		{&rndc.Error{Command: "reload", Err: "failure"}, nil},
		{errors.New("already frozen"), nil},
		{rndc.ErrAuth, nil},
	} {
		if got := ControlRefusal(tc.err); got != tc.want {
			t.Errorf("ControlRefusal(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}
