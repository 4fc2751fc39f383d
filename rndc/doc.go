// Package rndc is a native client of BIND 9's control channel, the protocol
// that the rndc program speaks to named (TCP, port 953 by default).
//
// It implements the wire format of BIND's libisccc (length-prefixed,
// HMAC-signed tables), the nonce exchange that named requires before each
// command, loading of keys from rndc.key, rndc.conf and named key files,
// and typed helpers for the zone commands (addzone, delzone, zonestatus,
// showzone, reload, freeze, thaw, notify) with parsers of their output.
//
// ZoneStatement (zonestatement.go) is the one model of a BIND zone
// statement: addzone and modzone take it and render it with one quoting
// function, and showzone's text is parsed into it, so a statement read,
// changed in a clause and sent back keeps every other clause.
//
// A Client keeps a few idle connections and reuses them: once named has
// issued its nonce on a connection it answers further commands there, which
// saves the connect and the nonce round trip (Client.MaxIdle; a negative
// value gives one connection per command). A Client is safe for concurrent
// use. The package knows nothing of HTTP or Caddy.
//
// Secrets never appear in errors, in the String form of a Key, or in the
// messages passed to a Client's Trace hook.
package rndc
