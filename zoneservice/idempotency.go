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

// Answer is a request's final answer as a front end recorded it: its
// status, the headers to give again, and its body.
type Answer struct {
	Status int
	Header map[string]string
	Body   []byte
}

// KeyedRequest is a request sent with an Idempotency-Key, from
// BeginKeyed to End.
type KeyedRequest struct {
	// Fingerprint is the request's fingerprint carrying the key
	// (WithKey): the create's index entry records it.
	Fingerprint string
	// Replay, when set, is the final answer the key's first use
	// recorded: the front end answers it again, and runs nothing.
	Replay *Answer

	keys *zonestore.IdempotencyKeys
	rec  zonestore.IdempotencyRecord
	end  func()
}

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
	k := &KeyedRequest{Fingerprint: WithKey(fp, id), keys: ks.IdempotencyKeys(), end: end}
	rec, found, err := k.keys.Get(id)
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
		if err := k.keys.Put(rec); err != nil {
			end()
			return nil, err
		}
	}
	k.rec = rec
	return k, nil
}

// Finish records the request's final answer, replayed to every retry of
// the key. A failure is returned for the log: the answer stands, and a
// retry finds the zone by its index entry instead.
func (k *KeyedRequest) Finish(a Answer) error {
	k.rec.Status, k.rec.Body, k.rec.Header = a.Status, a.Body, a.Header
	return k.keys.Put(k.rec)
}

// End ends the request: the key may be used again.
func (k *KeyedRequest) End() { k.end() }
