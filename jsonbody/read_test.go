package jsonbody

import (
	"bytes"
	"io"
	"testing"
	"testing/iotest"
)

// TestReadAllSized: whatever size the request declares (none, right,
// short, long), the body is read whole, as io.ReadAll reads it, and a
// read error comes through.
func TestReadAllSized(t *testing.T) {
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 70000} {
		body := bytes.Repeat([]byte("x"), n)
		for _, size := range []int64{-1, 0, int64(n), int64(n) / 2, int64(n) + 10, maxBody} {
			got, err := readAllSized(iotest.HalfReader(bytes.NewReader(body)), size, maxBody)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("%d bytes declared as %d: got %d bytes, %v", n, size, len(got), err)
			}
		}
	}
	if _, err := readAllSized(iotest.ErrReader(io.ErrUnexpectedEOF), 10, maxBody); err != io.ErrUnexpectedEOF {
		t.Fatalf("a failing read gave %v", err)
	}
}

// maxBody is the REST API's limit on a JSON body, 1 MiB.
const maxBody = 1 << 20
