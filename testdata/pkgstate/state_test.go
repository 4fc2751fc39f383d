package pkgstate

import "testing"

func TestWrite(t *testing.T) {
	badTestWrite["x"] = 1
}
