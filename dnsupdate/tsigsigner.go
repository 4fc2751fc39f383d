package dnsupdate

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"hash"
	"sync"

	"github.com/miekg/dns"
)

// tsigSigner signs and checks the messages of an exchange as miekg/dns
// does with a Conn's TsigSecret (the HMAC of the TSIG record's algorithm,
// keyed with the secret of its key name; ErrSecret for another name,
// ErrKeyAlg for an algorithm it has no HMAC for, ErrSig for a MAC that
// does not match), with the secret decoded once and the HMAC states of
// the key's algorithm reused (Reset) instead of made for each message:
// an UPDATE is signed and its answer checked with a few allocations
// instead of some forty.
type tsigSigner struct {
	name   string // the key's name, as the TSIG records carry it
	alg    string // its algorithm, canonical
	secret []byte
	macs   sync.Pool // hash.Hash: alg's HMAC keyed with secret
}

// newTSIGSigner returns the signer of the key name (canonical) with the
// secret (decoded) and algorithm alg.
func newTSIGSigner(name, alg string, secret []byte) *tsigSigner {
	return &tsigSigner{name: name, alg: dns.CanonicalName(alg), secret: secret}
}

// newHMAC is alg's HMAC keyed with secret, nil for an algorithm miekg/dns
// does not sign with.
func newHMAC(alg string, secret []byte) hash.Hash {
	switch alg {
	case dns.HmacSHA1:
		return hmac.New(sha1.New, secret)
	case dns.HmacSHA224:
		return hmac.New(sha256.New224, secret)
	case dns.HmacSHA256:
		return hmac.New(sha256.New, secret)
	case dns.HmacSHA384:
		return hmac.New(sha512.New384, secret)
	case dns.HmacSHA512:
		return hmac.New(sha512.New, secret)
	}
	return nil
}

// Generate is the MAC of msg for t (dns.TsigProvider).
func (s *tsigSigner) Generate(msg []byte, t *dns.TSIG) ([]byte, error) {
	if t.Hdr.Name != s.name {
		return nil, dns.ErrSecret
	}
	alg := dns.CanonicalName(t.Algorithm)
	if alg != s.alg {
		h := newHMAC(alg, s.secret)
		if h == nil {
			return nil, dns.ErrKeyAlg
		}
		h.Write(msg)
		return h.Sum(nil), nil
	}
	h, ok := s.macs.Get().(hash.Hash)
	if ok {
		h.Reset()
	} else if h = newHMAC(alg, s.secret); h == nil {
		return nil, dns.ErrKeyAlg
	}
	h.Write(msg)
	mac := h.Sum(nil)
	s.macs.Put(h)
	return mac, nil
}

// Verify checks t's MAC of msg (dns.TsigProvider).
func (s *tsigSigner) Verify(msg []byte, t *dns.TSIG) error {
	b, err := s.Generate(msg, t)
	if err != nil {
		return err
	}
	mac, err := hex.DecodeString(t.MAC)
	if err != nil {
		return err
	}
	if !hmac.Equal(b, mac) {
		return dns.ErrSig
	}
	return nil
}
