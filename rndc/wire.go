package rndc

import (
	"crypto/hmac"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
)

// Wire-format constants of BIND's libisccc (lib/isccc/cc.c).
const (
	protocolVersion = 1

	typeString = 0x00 // plain string; decoded like binary data
	typeBinary = 0x01
	typeTable  = 0x02
	typeList   = 0x03

	// MaxMessageSize is the largest message (after the 4-byte length) that
	// the decoder accepts.
	MaxMessageSize = 16 << 20

	// maxDepth bounds the nesting of tables and lists in a decoded message.
	maxDepth = 32

	hmd5Length = 22 // base64 of an HMAC-MD5 digest, truncated
	hshaLength = 88 // base64 of an HMAC-SHA* digest, zero padded
)

// errMalformed is wrapped by every decoding error.
var errMalformed = errors.New("malformed control message")

// entry is one key/value pair of a table; tables keep their wire order.
type entry struct {
	key string
	val any // []byte, table or list
}

// table is an ordered isccc table ("alist").
type table []entry

// list is an isccc list.
type list []any

// lookup returns the value of key; the last definition wins, as in BIND's
// isccc_alist_define.
func (t table) lookup(key string) (any, bool) {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i].key == key {
			return t[i].val, true
		}
	}
	return nil, false
}

// str returns the binary value of key as a string.
func (t table) str(key string) (string, bool) {
	v, ok := t.lookup(key)
	if !ok {
		return "", false
	}
	b, ok := v.([]byte)
	return string(b), ok
}

// sub returns the table value of key.
func (t table) sub(key string) (table, bool) {
	v, ok := t.lookup(key)
	if !ok {
		return nil, false
	}
	st, ok := v.(table)
	return st, ok
}

// encodeTable appends the wire form of t (entries only) to b.
func encodeTable(b []byte, t table) ([]byte, error) {
	for _, e := range t {
		if len(e.key) > 255 {
			return nil, fmt.Errorf("table key too long (%d bytes)", len(e.key))
		}
		b = append(b, byte(len(e.key)))
		b = append(b, e.key...)
		var err error
		if b, err = encodeValue(b, e.val); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func encodeValue(b []byte, v any) ([]byte, error) {
	var err error
	switch v := v.(type) {
	case []byte:
		b = append(b, typeBinary)
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	case string:
		b = append(b, typeBinary)
		b = binary.BigEndian.AppendUint32(b, uint32(len(v)))
		b = append(b, v...)
	case table:
		b = append(b, typeTable, 0, 0, 0, 0)
		start := len(b)
		if b, err = encodeTable(b, v); err != nil {
			return nil, err
		}
		binary.BigEndian.PutUint32(b[start-4:start], uint32(len(b)-start))
	case list:
		b = append(b, typeList, 0, 0, 0, 0)
		start := len(b)
		for _, el := range v {
			if b, err = encodeValue(b, el); err != nil {
				return nil, err
			}
		}
		binary.BigEndian.PutUint32(b[start-4:start], uint32(len(b)-start))
	default:
		return nil, fmt.Errorf("cannot encode value of type %T", v)
	}
	return b, nil
}

// decodeTable parses a table that spans all of p.
func decodeTable(p []byte, depth int) (table, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("%w: nesting deeper than %d", errMalformed, maxDepth)
	}
	var t table
	for len(p) > 0 {
		kl := int(p[0])
		p = p[1:]
		if len(p) < kl {
			return nil, fmt.Errorf("%w: truncated key", errMalformed)
		}
		key := string(p[:kl])
		p = p[kl:]
		v, rest, err := decodeValue(p, depth)
		if err != nil {
			return nil, err
		}
		p = rest
		t = append(t, entry{key: key, val: v})
	}
	return t, nil
}

// decodeValue parses one value at the start of p and returns the rest.
func decodeValue(p []byte, depth int) (any, []byte, error) {
	if len(p) < 5 {
		return nil, nil, fmt.Errorf("%w: truncated value header", errMalformed)
	}
	typ := p[0]
	n := binary.BigEndian.Uint32(p[1:5])
	p = p[5:]
	if uint64(n) > uint64(len(p)) {
		return nil, nil, fmt.Errorf("%w: value length %d exceeds remaining %d bytes", errMalformed, n, len(p))
	}
	body, rest := p[:n], p[n:]
	switch typ {
	case typeBinary, typeString:
		return append([]byte(nil), body...), rest, nil
	case typeTable:
		t, err := decodeTable(body, depth+1)
		return t, rest, err
	case typeList:
		if depth+1 > maxDepth {
			return nil, nil, fmt.Errorf("%w: nesting deeper than %d", errMalformed, maxDepth)
		}
		var l list
		for len(body) > 0 {
			v, r, err := decodeValue(body, depth+1)
			if err != nil {
				return nil, nil, err
			}
			l = append(l, v)
			body = r
		}
		return l, rest, nil
	default:
		return nil, nil, fmt.Errorf("%w: unknown value type %d", errMalformed, typ)
	}
}

// message is a decoded control message: its top-level table and, when it
// had a leading _auth entry, the bytes that the signature covers.
type message struct {
	top    table
	signed []byte
}

// decodeMessage parses a message body (everything after the 4-byte length
// prefix): the protocol version, then the top-level table.
func decodeMessage(p []byte) (*message, error) {
	if len(p) > MaxMessageSize {
		return nil, fmt.Errorf("%w: %d bytes exceeds the %d-byte limit", errMalformed, len(p), MaxMessageSize)
	}
	if len(p) < 4 {
		return nil, fmt.Errorf("%w: missing protocol version", errMalformed)
	}
	if v := binary.BigEndian.Uint32(p[:4]); v != protocolVersion {
		return nil, fmt.Errorf("%w: unknown protocol version %d", errMalformed, v)
	}
	p = p[4:]
	top, err := decodeTable(p, 0)
	if err != nil {
		return nil, err
	}
	m := &message{top: top}
	// The signed region starts right after a leading _auth entry.
	const hdr = 1 + len("_auth")
	if len(top) > 0 && top[0].key == "_auth" && len(p) >= hdr+5 {
		n := uint64(hdr) + 5 + uint64(binary.BigEndian.Uint32(p[hdr+1:hdr+5]))
		if n <= uint64(len(p)) {
			m.signed = p[n:]
		}
	}
	return m, nil
}

// Algorithm byte values in the hsha _auth entry (BIND's ISCCC_ALG_*).
var algorithmCode = map[Algorithm]byte{
	HMACMD5:    157,
	HMACSHA1:   161,
	HMACSHA224: 162,
	HMACSHA256: 163,
	HMACSHA384: 164,
	HMACSHA512: 165,
}

func (a Algorithm) newHash() func() hash.Hash {
	switch a {
	case HMACMD5:
		return md5.New
	case HMACSHA1:
		return sha1.New
	case HMACSHA224:
		return sha256.New224
	case HMACSHA256:
		return sha256.New
	case HMACSHA384:
		return sha512.New384
	case HMACSHA512:
		return sha512.New
	}
	return nil
}

// signature computes the value stored in _auth for data: the base64 text of
// the HMAC, truncated to 22 bytes for MD5, or the algorithm byte followed by
// the base64 text zero-padded to 88 bytes for the SHA family.
func signature(k Key, data []byte) ([]byte, error) {
	h := k.Algorithm.newHash()
	if h == nil {
		return nil, fmt.Errorf("unsupported algorithm %q", string(k.Algorithm))
	}
	mac := hmac.New(h, k.Secret)
	mac.Write(data)
	b64 := base64.StdEncoding.EncodeToString(mac.Sum(nil))
	if k.Algorithm == HMACMD5 {
		return []byte(b64[:hmd5Length]), nil
	}
	out := make([]byte, 1+hshaLength)
	out[0] = algorithmCode[k.Algorithm]
	copy(out[1:], b64)
	return out, nil
}

// authTable builds the _auth table holding sig for k's algorithm.
func authTable(k Key, sig []byte) table {
	if k.Algorithm == HMACMD5 {
		return table{{key: "hmd5", val: sig}}
	}
	return table{{key: "hsha", val: sig}}
}

// encodeMessage renders a signed message, including its 4-byte length
// prefix: version, _auth (first), then the entries of body.
func encodeMessage(k Key, body table) ([]byte, error) {
	for _, e := range body {
		if e.key == "_auth" {
			return nil, errors.New("message body must not contain _auth")
		}
	}
	signed, err := encodeTable(nil, body)
	if err != nil {
		return nil, err
	}
	sig, err := signature(k, signed)
	if err != nil {
		return nil, err
	}
	b := make([]byte, 8, 8+128+len(signed))
	binary.BigEndian.PutUint32(b[4:8], protocolVersion)
	if b, err = encodeTable(b, table{{key: "_auth", val: authTable(k, sig)}}); err != nil {
		return nil, err
	}
	b = append(b, signed...)
	if len(b)-4 > MaxMessageSize {
		return nil, fmt.Errorf("message of %d bytes exceeds the %d-byte limit", len(b)-4, MaxMessageSize)
	}
	binary.BigEndian.PutUint32(b[:4], uint32(len(b)-4))
	return b, nil
}

// errBadSignature is wrapped (with ErrAuth) when a signature does not verify.
var errBadSignature = errors.New("bad or missing signature")

// verify checks m's signature against k in constant time.
func verify(k Key, m *message) error {
	if m.signed == nil {
		return errBadSignature
	}
	auth, ok := m.top.sub("_auth")
	if !ok {
		return errBadSignature
	}
	field := "hsha"
	if k.Algorithm == HMACMD5 {
		field = "hmd5"
	}
	got, ok := auth.str(field)
	if !ok {
		return errBadSignature
	}
	want, err := signature(k, m.signed)
	if err != nil {
		return err
	}
	if subtle.ConstantTimeCompare([]byte(got), want) != 1 {
		return errBadSignature
	}
	return nil
}

// traceMap converts a table to plain Go maps for the Trace hook: binary
// values become strings, and the _auth entry is left out.
func traceMap(t table) map[string]any {
	m := make(map[string]any, len(t))
	for _, e := range t {
		if e.key == "_auth" {
			continue
		}
		m[e.key] = traceValue(e.val)
	}
	return m
}

func traceValue(v any) any {
	switch v := v.(type) {
	case []byte:
		return string(v)
	case string:
		return v
	case table:
		return traceMap(v)
	case list:
		out := make([]any, len(v))
		for i, el := range v {
			out[i] = traceValue(el)
		}
		return out
	}
	return nil
}
