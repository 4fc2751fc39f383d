package frontend

import "github.com/zoneapi/caddy-zoneapi/zonemodel"

// IdempotencyKeeper keeps the Idempotency-Keys of the creates and
// imports (the IETF httpapi draft "The Idempotency-Key HTTP Header
// Field"), durably beside the zone index.
type IdempotencyKeeper interface {
	// BeginKeyed begins the request with fingerprint fp that principal
	// sent with Idempotency-Key key (keys belong to their principal:
	// another identity's same key is another key). The first use records
	// the key and fp durably before it returns; the request's
	// Fingerprint then carries the key, so that the zone's index entry
	// names it. A key whose first use recorded its final answer returns
	// it as Replay: the front end answers it again and runs nothing.
	// The caller calls End once it has answered, after Finish when the
	// answer is final (201, 409). Errors: zonemodel.ErrKeyBusy while
	// another request with the key runs in this process (409),
	// zonemodel.ErrKeyReused when the key was used with another fp (422),
	// zonemodel.ErrNoKeys when the store keeps no keys, the store's own
	// error when the keys cannot be read or written (500). Idempotent by
	// design: every retry of a finished request replays its answer.
	BeginKeyed(principal, key, fp string) (*zonemodel.KeyedRequest, error)
}
