package module

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/apitypes"
)

// bodyViolations is the 400 answer of a request body that fails its
// schema: the usual error and message, plus each violation by JSON pointer.
type bodyViolations struct {
	Error      string              `json:"error"`
	Message    string              `json:"message"`
	Violations []apispec.Violation `json:"violations"`
}

// decodeRequest reads the body of the matched route once and runs every
// check on those same bytes before decoding them strictly into v, which
// must point to a value of the route's body type (route.body):
//
//   - 415 when the request declares a media type other than JSON;
//   - 413 over MaxBodyBytes;
//   - for a body that is one JSON value, parsed once (parseJSON): 400 for
//     a key given twice in one object, then 400 listing each violation of
//     the request schema the served specification gives the route, so
//     the document and the validation cannot drift;
//   - the strict decode: from the parsed value when fastDecode can,
//     else of the bytes (decodeJSON), with 400 for an empty or malformed
//     body, an unknown field, a value of the wrong type, more than one
//     value.
//
// It writes the error answer itself and reports whether v holds the body.
func (h *Handler) decodeRequest(w http.ResponseWriter, r *http.Request, p params, v any) bool {
	rt := p.route
	if rt == nil || rt.body == nil || reflect.TypeOf(v) != reflect.PointerTo(rt.body) {
		writeError(w, http.StatusInternalServerError, "the route of %s %s declares no request body of type %T", r.Method, r.URL.Path, v)
		return false
	}
	d, err := h.spec()
	if err != nil {
		writeError(w, http.StatusInternalServerError, "building the API specification: %v", err)
		return false
	}
	raw, ok := readBody(w, r)
	if !ok {
		return false
	}
	if pj := parseJSON(raw); pj.valid {
		if pj.dup {
			writeError(w, http.StatusBadRequest, "duplicate key %q in the object at %s", pj.dupKey, pj.dupWhere)
			return false
		}
		if vs := d.ValidateValue(rt.method, rt.template, pj.value); len(vs) > 0 {
			writeViolations(w, vs)
			return false
		}
		if fastDecode(pj.value, v) {
			return true
		}
	} // else decodeJSON answers an empty or malformed body precisely
	return decodeJSON(w, raw, v)
}

// readBody reads the request body, at most MaxBodyBytes, after checking
// its declared media type (415 for anything but JSON). It writes the error
// answer itself.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !checkContentType(w, r) {
		return nil, false
	}
	raw, err := readAllSized(http.MaxBytesReader(w, r.Body, MaxBodyBytes), r.ContentLength)
	if err != nil {
		if isTooLarge(err) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", MaxBodyBytes)
		} else {
			writeError(w, http.StatusBadRequest, "reading the request body: %v", err)
		}
		return nil, false
	}
	return raw, true
}

// readAllSized is io.ReadAll starting with room for the size the request
// declared (when it is one the body may have), so that a large body is
// read into one buffer instead of a chain of doubling ones.
func readAllSized(r io.Reader, size int64) ([]byte, error) {
	n := 512
	if size > 0 && size < MaxBodyBytes {
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

// maxViolations is the most schema violations one 400 lists; its message
// names the first maxProblems of them.
const maxViolations = 100

// writeViolations answers 400 listing the schema violations: at most
// maxViolations of them, and the message the first few and how many
// there are in all, so that a large body of bad records is not answered
// with a larger one.
func writeViolations(w http.ResponseWriter, vs []apispec.Violation) {
	msgs := make([]string, 0, maxProblems)
	for _, v := range vs[:min(len(vs), maxProblems)] {
		ptr := v.Pointer
		if ptr == "" {
			ptr = "(body)"
		}
		msgs = append(msgs, ptr+": "+v.Message)
	}
	msg := "request body does not match the schema: " + strings.Join(msgs, "; ")
	if len(vs) > maxProblems {
		msg += fmt.Sprintf("; and %d more", len(vs)-maxProblems)
		if len(vs) > maxViolations {
			msg += fmt.Sprintf(" (the first %d listed in violations)", maxViolations)
		}
	}
	writeJSON(w, http.StatusBadRequest, bodyViolations{
		Error:      apitypes.ReasonPhrase(http.StatusBadRequest),
		Message:    msg,
		Violations: vs[:min(len(vs), maxViolations)],
	})
}

// decodeJSON decodes raw into v strictly: no unknown fields, exactly one
// JSON value. It writes the error answer itself and reports whether
// decoding succeeded.
func decodeJSON(w http.ResponseWriter, raw []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		// Exactly one value: anything but whitespace after it is an error.
		if _, terr := dec.Token(); terr != io.EOF {
			writeError(w, http.StatusBadRequest, "request body must contain a single JSON object")
			return false
		}
		return true
	}
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		writeError(w, http.StatusBadRequest, "request body is empty; a JSON object is required")
	case errors.Is(err, io.ErrUnexpectedEOF):
		writeError(w, http.StatusBadRequest, "malformed JSON: unexpected end of body")
	case errors.As(err, &syntaxErr):
		writeError(w, http.StatusBadRequest, "malformed JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			field = "(body)"
		}
		writeError(w, http.StatusBadRequest, "field %s: expected %s, got JSON %s", field, typeErr.Type, typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		writeError(w, http.StatusBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	default:
		writeError(w, http.StatusBadRequest, "invalid JSON body: %v", err)
	}
	return false
}
