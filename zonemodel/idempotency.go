package zonemodel

// KeyedAnswer is a request's final answer as a front end recorded it
// for its Idempotency-Key: its status, the headers to give again, and
// its body.
type KeyedAnswer struct {
	Status int
	Header map[string]string
	Body   []byte
}

// KeyedRequest is a request sent with an Idempotency-Key, from the zone
// service's BeginKeyed to End.
type KeyedRequest struct {
	// Fingerprint is the request's fingerprint carrying the key: the
	// create's index entry records it.
	Fingerprint string
	// Replay, when set, is the final answer the key's first use
	// recorded: the front end answers it again, and runs nothing.
	Replay *KeyedAnswer
	// Finish records the request's final answer, replayed to every
	// retry of the key. A failure is returned for the log: the answer
	// stands, and a retry finds the zone by its index entry instead.
	Finish func(KeyedAnswer) error
	// End ends the request: the key may be used again. It is called
	// once, when the request has been answered.
	End func()
}
