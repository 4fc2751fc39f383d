package testbind

import "testing"

// TestReservedPortNotHandedOutTwice: a reserved port cannot be reserved
// again (by another process, or by this one through another open file)
// until its reservation is released.
func TestReservedPortNotHandedOutTwice(t *testing.T) {
	p := ReservedPort(t)
	if reserve(p) {
		t.Fatalf("port %d reserved twice", p)
	}
	if q := ReservedPort(t); q == p {
		t.Fatalf("ReservedPort handed out %d twice", p)
	}
	release(p)
	if !reserve(p) {
		t.Fatalf("port %d not reservable after its release", p)
	}
	release(p)
}
