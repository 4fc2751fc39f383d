package rest

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/zoneapi/caddy-zoneapi/frontend"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// maxIdempotencyKey bounds the length of an Idempotency-Key value.
const maxIdempotencyKey = 255

// idempotencyKeyOf reads the request's Idempotency-Key header (the IETF
// httpapi draft "The Idempotency-Key HTTP Header Field": a Structured
// Field string, "…"; a bare token is taken too). It returns "" when there
// is none; a malformed key is a 400.
func idempotencyKeyOf(r *http.Request) (string, error) {
	values := r.Header.Values("Idempotency-Key")
	if len(values) == 0 {
		return "", nil
	}
	bad := func(why string) (string, error) {
		return "", fail(http.StatusBadRequest, "Idempotency-Key: %s; send one quoted string of 1 to %d printable ASCII characters, e.g. Idempotency-Key: \"8e03978e-40d5-43e8-bc93-6894a57f9324\"", why, maxIdempotencyKey)
	}
	if len(values) > 1 {
		return bad("given more than once")
	}
	v := strings.TrimSpace(values[0])
	if strings.HasPrefix(v, `"`) {
		if len(v) < 2 || !strings.HasSuffix(v, `"`) {
			return bad("an unterminated string")
		}
		v = v[1 : len(v)-1]
		if strings.ContainsAny(v, `"\`) {
			return bad(`quotes and backslashes are not taken inside the key`)
		}
	}
	if v == "" {
		return bad("empty")
	}
	if len(v) > maxIdempotencyKey {
		return bad("longer than " + strconv.Itoa(maxIdempotencyKey) + " characters")
	}
	for i := 0; i < len(v); i++ {
		if v[i] < 0x20 || v[i] > 0x7e {
			return bad("not printable ASCII")
		}
	}
	return v, nil
}

// createWithKey answers a create sent with an Idempotency-Key. Keys
// belong to the principal that sends them (another identity's same key
// is another key); they are kept by the zone service
// (frontend.IdempotencyKeeper): the first use records the key and the
// request's fingerprint durably before the create runs; the final answer
// (201 with the zone, or 409) is recorded with it and replayed to every
// retry of the same key and body for zonestore.IdempotencyTTL (the store
// is bounded by age and size, never by a count of keys: no key is
// refused); the key with another body answers 422, and while a request
// with the key runs in this process, another answers 409, as the draft
// says. An answer that is not final (504: named did not answer; 5xx) is
// not recorded: a retry runs the create again, which finds the zone if
// the first attempt made it (the zone's index entry carries the key) and
// answers the 201 it would have.
//
// run does the create (or import) and answers it into w, with the
// request's fingerprint carrying the key (zoneservice.WithKey) and keyed
// set.
func (a *API) createWithKey(w http.ResponseWriter, r *http.Request, b frontend.IdempotencyKeeper, zone, fp, key string, run func(w http.ResponseWriter, fp string, keyed bool) error) error {
	principal := "anonymous"
	if id := a.identity(r); id != nil {
		principal = id.ID
	}
	k, err := b.BeginKeyed(principal, key, fp)
	switch {
	case errors.Is(err, zonemodel.ErrNoKeys):
		return fail(http.StatusInternalServerError, "the zone directory keeps no Idempotency-Keys")
	case errors.Is(err, zonemodel.ErrKeyBusy):
		return fail(http.StatusConflict, "a request with this Idempotency-Key is still being processed; retry once it has been answered")
	case errors.Is(err, zonemodel.ErrKeyReused):
		return fail(http.StatusUnprocessableEntity, "Idempotency-Key %q was used with another request body; a key identifies one request: send a new key for a new request", key)
	case err != nil:
		return indexFailure(err)
	}
	defer k.End()
	if rec := k.Replay; rec != nil {
		for name, v := range rec.Header {
			w.Header().Set(name, v)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(rec.Status)
		_, _ = w.Write(append(bytes.Clone(rec.Body), '\n'))
		return nil
	}

	bw := &bufferedResponse{header: http.Header{}}
	if err := run(bw, k.Fingerprint, true); err != nil {
		WriteFailure(bw, err) // recorded as any answer is
	}
	if bw.status == http.StatusCreated || bw.status == http.StatusConflict {
		ans := zonemodel.KeyedAnswer{Status: bw.status, Body: bytes.TrimSpace(bw.body.Bytes())}
		if loc := bw.header.Get("Location"); loc != "" {
			ans.Header = map[string]string{"Location": loc}
		}
		if err := k.Finish(ans); err != nil {
			// The answer stands; a retry finds the zone by its index
			// entry instead.
			a.Logger.Error("remembering the answer of an Idempotency-Key failed", zap.String("zone", zone), zap.Error(err))
		}
	}
	for name, v := range bw.header {
		w.Header()[name] = v
	}
	w.WriteHeader(bw.status)
	_, _ = w.Write(bw.body.Bytes())
	return nil
}

// bufferedResponse holds an answer so that it can be recorded before it
// is sent.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}
