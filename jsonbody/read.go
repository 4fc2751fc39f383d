package jsonbody

import (
	"errors"
	"io"
	"net/http"
)

// Read reads the request body, at most max bytes, into one buffer sized
// by the length the request declares. Over max it returns an error for
// which TooLarge is true, and the server closes the connection after the
// answer (http.MaxBytesReader). The caller answers the error in its own
// words: each front end words its 413 and its failed read.
func Read(w http.ResponseWriter, r *http.Request, max int64) ([]byte, error) {
	return readAllSized(http.MaxBytesReader(w, r.Body, max), r.ContentLength, max)
}

// TooLarge reports whether err is Read's error of a body over its limit.
func TooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

// readAllSized is io.ReadAll starting with room for the size the request
// declared (when it is one the body may have, below max), so that a large
// body is read into one buffer instead of a chain of doubling ones.
func readAllSized(r io.Reader, size, max int64) ([]byte, error) {
	n := 512
	if size > 0 && size < max {
		n = int(size) + 1 // the last read, which finds the end, needs room
	}
	b := make([]byte, 0, n)
	for {
		m, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+m]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}
