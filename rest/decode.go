package rest

import (
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/zoneapi/caddy-zoneapi/apispec"
	"github.com/zoneapi/caddy-zoneapi/apitypes"
	"github.com/zoneapi/caddy-zoneapi/jsonbody"
)

// The checks of a JSON request body, moved from module/request.go and
// httpjson.go; each returns its failure for the caller to answer
// (WriteFailure) instead of writing it.

// bodyViolations is the 400 answer of a request body that fails its
// schema: the usual error and message, plus each violation by JSON pointer.
type bodyViolations struct {
	Error      string              `json:"error"`
	Message    string              `json:"message"`
	Violations []apispec.Violation `json:"violations"`
}

// DecodeBody reads the body of the route method template once and runs
// every check on those same bytes before decoding them strictly into v:
//
//   - 415 when the request declares a media type other than JSON;
//   - 413 over maxBytes;
//   - for a body that is one JSON value, parsed once (jsonbody.Parse):
//     400 for a key given twice in one object, then 400 listing each
//     violation of the request schema d gives the route, so the
//     document and the validation cannot drift;
//   - the strict decode (jsonbody.Strict), with 400 for an empty or
//     malformed body, an unknown field, a value of the wrong type, more
//     than one value.
//
// It returns the failure to answer, nil when v holds the body.
func DecodeBody(w http.ResponseWriter, r *http.Request, d *apispec.Document, method, template string, v any, maxBytes int64) error {
	raw, err := readBody(w, r, maxBytes)
	if err != nil {
		return err
	}
	body := jsonbody.Parse(raw)
	if body.Valid && !body.Dup {
		if vs := d.ValidateValue(method, template, body.Value); len(vs) > 0 {
			return violations(vs)
		}
	} // a duplicate key is refused before the schema is looked at
	return decodeStrict(body, v)
}

// decodeStrict decodes body into v strictly (jsonbody.Strict), failing
// with a 400 in the API's words when it does not decode.
func decodeStrict(body jsonbody.Body, v any) error {
	if err := body.Decode(v, jsonbody.Strict); err != nil {
		return fail(http.StatusBadRequest, "%s", err.(*jsonbody.Error).Message())
	}
	return nil
}

// readBody reads the request body, at most maxBytes, after checking its
// declared media type (415 for anything but JSON).
func readBody(w http.ResponseWriter, r *http.Request, maxBytes int64) ([]byte, error) {
	if err := checkContentType(r); err != nil {
		return nil, err
	}
	raw, err := jsonbody.Read(w, r, maxBytes)
	if err != nil {
		if jsonbody.TooLarge(err) {
			return nil, fail(http.StatusRequestEntityTooLarge, "request body exceeds %d bytes", maxBytes)
		}
		return nil, fail(http.StatusBadRequest, "reading the request body: %v", err)
	}
	return raw, nil
}

// checkContentType fails with 415 when the request declares a body type
// other than JSON; an absent Content-Type is taken as JSON. It runs
// before the body is read or checked against the schema.
func checkContentType(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/json" && !strings.HasSuffix(mt, "+json")) {
		return fail(http.StatusUnsupportedMediaType, "request body must be JSON (Content-Type: application/json), got %q", ct)
	}
	return nil
}

// maxViolations is the most schema violations one 400 lists; its message
// names the first MaxProblems of them.
const maxViolations = 100

// violations is the 400 listing the schema violations: at most
// maxViolations of them, and the message the first few and how many
// there are in all, so that a large body of bad records is not answered
// with a larger one.
func violations(vs []apispec.Violation) error {
	msgs := make([]string, 0, MaxProblems)
	for _, v := range vs[:min(len(vs), MaxProblems)] {
		ptr := v.Pointer
		if ptr == "" {
			ptr = "(body)"
		}
		msgs = append(msgs, ptr+": "+v.Message)
	}
	msg := "request body does not match the schema: " + strings.Join(msgs, "; ")
	if len(vs) > MaxProblems {
		msg += fmt.Sprintf("; and %d more", len(vs)-MaxProblems)
		if len(vs) > maxViolations {
			msg += fmt.Sprintf(" (the first %d listed in violations)", maxViolations)
		}
	}
	return &answer{status: http.StatusBadRequest, body: bodyViolations{
		Error:      apitypes.ReasonPhrase(http.StatusBadRequest),
		Message:    msg,
		Violations: vs[:min(len(vs), maxViolations)],
	}}
}
