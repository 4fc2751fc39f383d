package module

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
)

// writeJSON writes v as a JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"Internal Server Error","message":"encoding response failed"}`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// writeError writes the {error, message} body with the status's reason
// phrase as error.
func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, errorBody{Error: http.StatusText(status), Message: fmt.Sprintf(format, args...)})
}

// writeBadGateway answers a failed control command: status 500 labelled
// "Bad Gateway", as the service specification lists it.
func writeBadGateway(w http.ResponseWriter, format string, args ...any) {
	writeJSON(w, http.StatusInternalServerError, errorBody{Error: "Bad Gateway", Message: fmt.Sprintf(format, args...)})
}

// decodeBody decodes the JSON request body into v strictly: at most
// MaxBodyBytes, no unknown fields, exactly one JSON value. It writes the
// error response itself and reports whether decoding succeeded.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if !checkContentType(w, r) {
		return false
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		if isTooLarge(err) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", MaxBodyBytes)
		} else {
			writeError(w, http.StatusBadRequest, "reading the request body: %v", err)
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(raw))
	if json.Valid(raw) {
		if k, where, dup := duplicateKey(raw); dup {
			writeError(w, http.StatusBadRequest, "duplicate key %q in the object at %s", k, where)
			return false
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err = dec.Decode(v)
	if err == nil {
		// Exactly one value: anything but whitespace after it is an error.
		if _, terr := dec.Token(); terr != io.EOF {
			if isTooLarge(terr) {
				err = terr
			} else {
				writeError(w, http.StatusBadRequest, "request body must contain a single JSON object")
				return false
			}
		}
	}
	if err == nil {
		return true
	}
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
	)
	switch {
	case isTooLarge(err):
		writeError(w, http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", MaxBodyBytes)
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

// checkContentType answers 415 when the request declares a body type other
// than JSON; an absent Content-Type is taken as JSON. It runs before the
// body is read or checked against the schema.
func checkContentType(w http.ResponseWriter, r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		writeError(w, http.StatusUnsupportedMediaType, "request body must be JSON (Content-Type: application/json), got %q", ct)
		return false
	}
	return true
}

func isTooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}
