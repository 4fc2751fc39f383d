package zoneservice

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/zoneapi/caddy-zoneapi/zonestore"

	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// Idempotency-Keys (the IETF httpapi draft "The Idempotency-Key HTTP
// Header Field") of the creates and imports: the key and the request's
// fingerprint are recorded durably beside the zone index
// (zonestore.IdempotencyKeys) before the request runs; its final answer
// is recorded with them and replayed to every retry of the same key and
// body for zonestore.IdempotencyTTL. An answer that is not final (named
// did not answer) is not recorded: a retry runs the request again, which
// finds the zone if the first attempt made it (the zone's index entry
// carries the key, WithKey). Keys belong to the principal that sends
// them: another identity's same key is another key. The front end reads
// the key and writes the answers; the keys are kept here.

// Errors of BeginKeyed (zonemodel's).
var (
	ErrKeyBusy   = zonemodel.ErrKeyBusy
	ErrKeyReused = zonemodel.ErrKeyReused
	ErrNoKeys    = zonemodel.ErrNoKeys
)

// Answer is a request's final answer as a front end recorded it
// (zonemodel.KeyedAnswer).
type Answer = zonemodel.KeyedAnswer

// KeyedRequest is a request sent with an Idempotency-Key, from
// BeginKeyed to End (zonemodel.KeyedRequest).
type KeyedRequest = zonemodel.KeyedRequest

// keyedStore is a store that keeps Idempotency-Keys (*zonestore.Store).
type keyedStore interface {
	IdempotencyKeys() *zonestore.IdempotencyKeys
}

// BeginKeyed begins the request with fingerprint fp that principal sent
// with Idempotency-Key key: ErrKeyBusy while another request with the key
// runs in this process, ErrKeyReused when the key was used with another
// fingerprint, the store's error when its keys cannot be read or
// written. Otherwise End must be called once the request is answered.
func (s *Service) BeginKeyed(principal, key, fp string) (*KeyedRequest, error) {
	sum := sha256.Sum256([]byte(principal + "\x00" + key))
	id := hex.EncodeToString(sum[:16])
	ks, ok := s.Store.(keyedStore)
	if !ok {
		return nil, ErrNoKeys
	}
	end, ok := s.directory().BeginKey(id)
	if !ok {
		return nil, ErrKeyBusy
	}
	keys := ks.IdempotencyKeys()
	k := &KeyedRequest{Fingerprint: WithKey(fp, id), End: end}
	rec, found, err := keys.Get(id)
	switch {
	case err != nil:
		end()
		return nil, err
	case found && rec.Request != fp:
		end()
		return nil, ErrKeyReused
	case found && rec.Status != 0:
		k.Replay = &Answer{Status: rec.Status, Header: rec.Header, Body: rec.Body}
	case !found:
		rec = zonestore.IdempotencyRecord{Key: id, Principal: principal, Request: fp, Time: time.Now().UTC()}
		if err := keys.Put(rec); err != nil {
			end()
			return nil, err
		}
	}
	k.Finish = func(a Answer) error {
		rec.Status, rec.Body, rec.Header = a.Status, a.Body, a.Header
		return keys.Put(rec)
	}
	return k, nil
}
