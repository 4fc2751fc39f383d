package module

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
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
//   - for a body that is one JSON value, parsed once (jsonbody.Parse):
//     400 for a key given twice in one object, then 400 listing each
//     violation of the request schema the served specification gives the
//     route, so the document and the validation cannot drift;
//   - the strict decode (jsonbody.Strict), with 400 for an empty or
//     malformed body, an unknown field, a value of the wrong type, more
//     than one value.
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
	body := jsonbody.Parse(raw)
	if body.Valid && !body.Dup {
		if vs := d.ValidateValue(rt.method, rt.template, body.Value); len(vs) > 0 {
			writeViolations(w, vs)
			return false
		}
	} // a duplicate key is refused before the schema is looked at
	return decodeStrict(w, body, v)
}

// decodeStrict decodes body into v strictly (jsonbody.Strict), answering
// 400 in the API's words when it does not decode.
func decodeStrict(w http.ResponseWriter, body jsonbody.Body, v any) bool {
	if err := body.Decode(v, jsonbody.Strict); err != nil {
		writeError(w, http.StatusBadRequest, "%s", err.(*jsonbody.Error).Message())
		return false
	}
	return true
}

// readBody reads the request body, at most MaxBodyBytes, after checking
// its declared media type (415 for anything but JSON). It writes the error
// answer itself.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if !checkContentType(w, r) {
		return nil, false
	}
	raw, err := jsonbody.Read(w, r, MaxBodyBytes)
	if err != nil {
		if jsonbody.TooLarge(err) {
			writeError(w, http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", MaxBodyBytes)
		} else {
			writeError(w, http.StatusBadRequest, "reading the request body: %v", err)
		}
		return nil, false
	}
	return raw, true
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
