package zoneservice

import (
	"context"
	"encoding/base64"
	"errors"
	"math/bits"
	"time"

	"github.com/miekg/dns"

	"github.com/zoneapi/caddy-zoneapi/dnsupdate"
	"github.com/zoneapi/caddy-zoneapi/zonemodel"
)

// DNSKey is a DNSSEC key of a zone, read from its DNSKEY records
// (zonemodel.DNSKey).
type DNSKey = zonemodel.DNSKey

// Keys lists the zone's DNSSEC keys: its apex DNSKEY records with the
// zone key flag, read by AXFR. Errors as RRsets'.
func (r *Records) Keys(ctx context.Context, zone string) ([]DNSKey, error) {
	snap, err := r.snapshot(ctx, zone)
	if err != nil {
		return nil, err
	}
	var out []DNSKey
	for _, rr := range snap.At(zonemodel.Origin(zone)) {
		k, ok := rr.(*dns.DNSKEY)
		if !ok || k.Flags&dns.ZONE == 0 {
			continue
		}
		key := DNSKey{Tag: k.KeyTag(), Flags: k.Flags, Algorithm: dns.AlgorithmToString[k.Algorithm],
			Bits: keyBits(k), DNSKEY: zonemodel.RDataText(k)}
		if k.Flags&dns.SEP != 0 {
			for _, d := range []uint8{dns.SHA256, dns.SHA384} {
				if ds := k.ToDS(d); ds != nil {
					key.DS = append(key.DS, zonemodel.RDataText(ds))
				}
			}
		}
		out = append(out, key)
	}
	return out, nil
}

// LoadKeys asks named to run its key manager for the zone now (rndc
// loadkeys). BIND 9.18 now and then does not run it for a zone added with
// a dnssec-policy (about one zone in 200 here: named logs "loaded serial"
// and "added zone", never "reconfiguring zone keys"), and the zone stays
// without keys until something else makes named look at them. Errors:
// ErrControl, ErrOutcomeUnknown (command "loadkeys").
func (s *Service) LoadKeys(ctx context.Context, zone string) error {
	defer s.statusChanged(zone, true)
	if _, err := s.Control.LoadKeys(ctx, zone); err != nil {
		return s.commandErr(zone, "loadkeys", err)
	}
	return nil
}

// keysWait bounds how long a create or modify that signs a primary zone
// waits for named to publish the zone's keys (awaitKeys).
const keysWait = 10 * time.Second

// keysNudge is how long awaitKeys waits for the keys before it asks named
// to run its key manager for the zone (and between two such asks).
const keysNudge = time.Second

// awaitKeys waits until named publishes the zone's DNSKEYs and returns
// them; nil when they are not there after keysWait, when ctx ends first,
// or when they cannot be read (no update key; three failed reads in a
// row). named makes and adds a zone's keys a few milliseconds after the
// addzone or modzone that gives it a dnssec-policy has answered (longer
// on a busy server); a create or modify that signs a primary zone waits
// for them (signing), so that every front end answers once the zone is
// signed: PowerDNS's clients (DNSControl's AUTODNSSEC, PowerDNS-Admin)
// read the keys right after, and a REST client that reads the DNSKEY
// RRset to publish the DS finds it. When the keys are not there after
// keysNudge, named is asked to run its key manager for the zone (rndc
// loadkeys), and again every keysNudge: BIND 9.18 now and then does not
// run it for a zone just added with a policy (about one in 200 here), and
// such a zone stayed unsigned until named's next periodic key check
// (dnssec-loadkeys-interval, an hour by default).
func (s *Service) awaitKeys(ctx context.Context, zone string) []DNSKey {
	keys, _ := s.pollKeys(ctx, zone, func(keys []DNSKey) bool { return len(keys) > 0 })
	return keys
}

// awaitNoKeys waits until named no longer publishes the zone's DNSKEYs,
// as awaitKeys waits for them: a modify that turns a signed zone's
// dnssec-policy to insecure waits for the keys to go, so that the zone is
// unsigned when the change is answered (PowerDNS's dnssec false). named
// removes them within a second when no DS was ever published for them
// (the key manager's DS state is hidden: nothing can depend on them); once
// a DS was (rndc dnssec -checkds), it keeps them until the transition is
// safe, and the modify is answered after keysWait with them still there.
// It reports whether they are gone.
func (s *Service) awaitNoKeys(ctx context.Context, zone string) bool {
	_, ok := s.pollKeys(ctx, zone, func(keys []DNSKey) bool { return len(keys) == 0 })
	return ok
}

// pollKeys reads the zone's DNSKEYs until done says they are as awaited
// (awaitKeys, awaitNoKeys), asking named to run its key manager every
// keysNudge, for at most keysWait.
func (s *Service) pollKeys(ctx context.Context, zone string, done func([]DNSKey) bool) ([]DNSKey, bool) {
	start := time.Now()
	deadline, nudge := start.Add(keysWait), start.Add(keysNudge)
	failed := 0
	for wait := 5 * time.Millisecond; ; wait = min(2*wait, 200*time.Millisecond) {
		keys, err := s.Records().Keys(ctx, zone)
		switch {
		case err == nil && done(keys):
			return keys, true
		case errors.Is(err, dnsupdate.ErrNoUpdateKey):
			return nil, false
		case err != nil:
			if failed++; failed == 3 {
				return nil, false
			}
		default:
			failed = 0
		}
		if time.Now().Add(wait).After(deadline) {
			return nil, false
		}
		if time.Now().After(nudge) {
			_ = s.LoadKeys(ctx, zone) // a failure: the next poll or nudge
			nudge = time.Now().Add(keysNudge)
		}
		select {
		case <-ctx.Done():
			return nil, false
		case <-time.After(wait):
		}
	}
}

// keyBits is the size of a DNSKEY's key: for RSA the modulus's bits
// (RFC 3110 section 2: exponent length, exponent, modulus), for the
// curves their size.
func keyBits(k *dns.DNSKEY) int {
	switch k.Algorithm {
	case dns.ECDSAP256SHA256, dns.ED25519:
		return 256
	case dns.ECDSAP384SHA384:
		return 384
	case dns.ED448:
		return 456
	}
	b, err := base64.StdEncoding.DecodeString(k.PublicKey)
	if err != nil || len(b) < 3 {
		return 0
	}
	explen, off := int(b[0]), 1
	if explen == 0 {
		explen, off = int(b[1])<<8|int(b[2]), 3
	}
	if off+explen >= len(b) {
		return 0
	}
	mod := b[off+explen:]
	for len(mod) > 0 && mod[0] == 0 {
		mod = mod[1:]
	}
	if len(mod) == 0 {
		return 0
	}
	return (len(mod)-1)*8 + bits.Len8(mod[0])
}
