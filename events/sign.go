package events

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The headers of the Standard Webhooks specification
// (https://www.standardwebhooks.com, "Signature scheme").
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// SecretPrefix starts every webhook secret: whsec_ and the base64 of the
// key (Standard Webhooks' symmetric secrets).
const SecretPrefix = "whsec_"

// Signer signs webhook payloads with one secret.
type Signer struct{ key []byte }

// NewSigner parses a secret "whsec_<base64>" (standard encoding); the key
// must be 24 to 64 bytes, as the specification recommends.
func NewSigner(secret string) (*Signer, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("a webhook secret starts with %s followed by base64 (e.g. from `head -c 32 /dev/urandom | base64`)", SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("the webhook secret after %s is not base64: %v", SecretPrefix, err)
	}
	if len(key) < 24 || len(key) > 64 {
		return nil, fmt.Errorf("the webhook secret's key is %d bytes; want 24 to 64", len(key))
	}
	return &Signer{key: key}, nil
}

// Signature returns the webhook-signature value of a message: "v1," and
// the base64 of HMAC-SHA256("<id>.<timestamp>.<payload>").
func (s *Signer) Signature(id string, ts time.Time, payload []byte) string {
	m := hmac.New(sha256.New, s.key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write(strconv.AppendInt(nil, ts.Unix(), 10))
	m.Write([]byte{'.'})
	m.Write(payload)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// appendSignature appends the webhook-signature value of a message to
// dst, as Signature, with mac (from newMAC, reused: one goroutine's).
func (s *Signer) appendSignature(dst []byte, mac hash.Hash, id string, ts time.Time, payload []byte) []byte {
	mac.Reset()
	var n [20]byte
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(n[:0], ts.Unix(), 10))
	mac.Write([]byte{'.'})
	mac.Write(payload)
	var sum [sha256.Size]byte
	dst = append(dst, "v1,"...)
	return base64.StdEncoding.AppendEncode(dst, mac.Sum(sum[:0]))
}

// newMAC returns the HMAC of the signer's key, for appendSignature.
func (s *Signer) newMAC() hash.Hash { return hmac.New(sha256.New, s.key) }

// Sign sets the three signature headers of a message on h.
func (s *Signer) Sign(h http.Header, id string, ts time.Time, payload []byte) {
	h.Set(HeaderID, id)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, s.Signature(id, ts, payload))
}

// MessageID is the webhook-id of the event with history ID id: the same
// for every attempt, so that receivers can drop duplicates.
func MessageID(id string) string { return "evt_" + id }
